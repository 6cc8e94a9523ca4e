// What every repository contract runs against: a fresh migrated store of one engine, opened once per contract (a
// PGlite start or a database clone costs about a second), and the repositories bound to its pool. Each test makes
// its own company (and its own keys elsewhere), so the tests of one contract share the store without seeing each
// other's rows.
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, it } from 'vitest'
import type { Db } from '../../../core/ports/store.js'
import { emptyIpFilters } from '../../../core/domain/company.js'
import { initialSystemData } from '../../../core/domain/system-data.js'
import { createRepositories } from '../../../storage/repositories/index.js'
import type { TestDb } from '../../helpers/test-db.js'

export type Repos = ReturnType<typeof createRepositories>
export type SystemRow = Parameters<Repos['systems']['insert']>[0]

/** Opens a fresh, migrated store of one engine (test/helpers/test-db.ts). */
export type StoreFactory = () => Promise<TestDb>

export interface Store { db: Db, repos: Repos }

/** A repository contract: registers its describe block for one engine. */
export type RepositoryContract = (engine: string, makeStore: StoreFactory) => void

/** Opens the store before the contract's tests and drops it after them; answers the current one. */
export function useStore (makeStore: StoreFactory): () => Store {
  let opened: TestDb | undefined
  let store: Store | undefined
  beforeAll(async () => {
    opened = await makeStore()
    store = { db: opened.db, repos: createRepositories(opened.db) }
  })
  afterAll(async () => { await opened?.drop() })
  return () => {
    if (store === undefined) throw new Error('the store is not open')
    return store
  }
}

/** One test of a contract, given the open store. */
export type Case = (store: Store) => Promise<void>

/** A contract made of cases: one describe block per engine, one test per case, on one store opened for them all. */
export function defineContract (title: string, cases: Record<string, Case>): RepositoryContract {
  return (engine, makeStore) => {
    describe(`${title}: ${engine}`, () => {
      const store = useStore(makeStore)
      for (const [name, run] of Object.entries(cases)) it(name, async () => { await run(store()) })
    })
  }
}

export const uniq = (prefix: string): string => `${prefix}-${randomBytes(5).toString('hex')}`

/** A company of its own for one test. */
export async function newCompany (repos: Repos, name = uniq('company')): Promise<string> {
  const uid = uniq('co')
  await repos.companies.insert({
    uid,
    name,
    address: null,
    nFactor: false,
    ipFiltering: false,
    ipFilters: emptyIpFilters(),
    deviceIpFiltering: false,
    deviceIpFilters: emptyIpFilters(),
    picture: null,
    systemLimit: null
  }, 1_700_000_000_000)
  return uid
}

/** The row a system is created with (core/services/systems/write.ts), with `patch` over it. */
export function systemRow (companyUid: string, patch: Partial<SystemRow> = {}): SystemRow {
  return {
    uid: uniq('sys'),
    companyUid,
    name: uniq('name'),
    type: null,
    lifeCycleState: 'INVENTORY',
    state: 'INVENTORY',
    activityState: 'ACTIVATED',
    creationDate: 1_700_000_000_000,
    activationDate: null,
    lastStateChangeDate: 1_700_000_000_000,
    lastCommDate: null,
    commStatus: 'UNDEFINED',
    lastSyncDate: null,
    syncStatus: 'NOT_SYNC',
    labels: [],
    gatewayUid: null,
    subscriptionUid: null,
    metadata: {},
    communication: {},
    data: initialSystemData() as unknown as Record<string, unknown>,
    heartbeat: null,
    statusReport: null,
    reports: [],
    offerUid: null,
    lastAppliedTemplate: null,
    lastConfigName: null,
    monthBytesTotal: 0,
    monthBytesTime: null,
    usageStatus: 'WITHIN_PLAN',
    ...patch
  }
}

/** Inserts a system of the company and answers its uid. */
export async function newSystem (repos: Repos, companyUid: string, patch: Partial<SystemRow> = {}): Promise<string> {
  const row = systemRow(companyUid, patch)
  await repos.systems.insert(row)
  return row.uid
}
