// AlertNotifyRepository (storage/repositories/alert-notify.repository.ts) on each engine: a raised alert read with its
// system's name, its notification ended once; the actions' starts decided by one conditional insert: once per alert and
// action, one per system within the cooldown, at most maxOperationsPerHour per rule over the last hour, given back when
// the operation was not started, and held by concurrent transactions too. PGlite always; PostgreSQL with
// TEST_DATABASE_URL (always under CI=true).
import { expect } from 'vitest'
import type { Db } from '../../core/ports/store.js'
import type { ActionClaim } from '../../core/ports/alert-notify.js'
import { actionLimits, HOUR_MS } from '../../core/domain/alert-notice.js'
import { createRepositories } from '../../storage/repositories/index.js'
import { createTestDb } from '../helpers/test-db.js'
import { defaultRule } from '../helpers/alert-rules.js'
import { EMBEDDED_RUN, TEST_DATABASE_URL } from '../helpers/env.js'
import { defineContract, newCompany, newSystem, uniq, type Repos } from './repositories/store.js'

// The one environment read of this file: whether this is a CI run (test/helpers/env.ts holds the server URL).
const CI = process.env.CI === 'true'
const NOW = 100 * HOUR_MS

async function newRule (repos: Repos, companyUid: string): Promise<string> {
  const uid = uniq('rule')
  const rule = defaultRule(uid, [{ operator: 'GT', operands: [{ attributeId: { name: 'DATA.temp' } }, { valueNum: 40 }] }])
  expect(await repos.alertRules.insertWithin({ rule, companyUid, ownerUid: null, dataIds: ['temp'], periodic: false, systemUids: null, at: 1 }, 1000)).toBe(true)
  return uid
}

async function insertAlert (db: Db, rule: string, system: string, company: string, pending = true): Promise<string> {
  const uid = uniq('alert')
  await db.query(`INSERT INTO alerts (uid, rule_uid, system_uid, company_uid, date, state, attributes, notify_pending)
    VALUES ($1, $2, $3, $4, $5, 'CLOSED', $6::jsonb, $7)`, [uid, rule, system, company, NOW, JSON.stringify([{ id: { name: 'DATA.temp' }, value: { valueNum: 41 } }]), pending])
  return uid
}

/** A company with a rule and `n` systems, one alert on each. */
async function fleet ({ db, repos }: { db: Db, repos: Repos }, n: number) {
  const co = await newCompany(repos)
  const rule = await newRule(repos, co)
  const systems: string[] = []
  const alerts: string[] = []
  for (let i = 0; i < n; i++) {
    systems.push(await newSystem(repos, co, { name: `Pump ${i}` }))
    alerts.push(await insertAlert(db, rule, systems[i] as string, co))
  }
  return { co, rule, systems, alerts }
}

const claim = (rule: string, alertUid: string, systemUid: string, patch: Partial<ActionClaim> = {}): ActionClaim =>
  ({ alertUid, ruleUid: rule, systemUid, index: 0, at: NOW, ...patch })

/** Claims in a transaction, as the actions do. */
async function claimed (db: Db, c: ActionClaim, cooldownMinutes: number, maxPerHour: number): Promise<string> {
  const limits = actionLimits({ operation: 'REBOOT', cooldownMinutes }, maxPerHour, c.at)
  return await db.transaction(async (tx) => await createRepositories(tx).alertNotify.claimAction(c, limits))
}

const contract = defineContract('AlertNotifyRepository', {
  'reads a raised alert with its system\'s name, and ends its notification once': async (store) => {
    const f = await fleet(store, 1)
    const [alert, system] = [f.alerts[0] as string, f.systems[0] as string]
    expect(await store.repos.alertNotify.find(alert)).toEqual({
      uid: alert,
      date: NOW,
      ruleUid: f.rule,
      systemUid: system,
      systemName: 'Pump 0',
      companyUid: f.co,
      pending: true,
      attributes: [{ id: { name: 'DATA.temp' }, value: { valueNum: 41 } }]
    })
    expect(await store.repos.alertNotify.clearPending(alert)).toBe(true)
    expect(await store.repos.alertNotify.clearPending(alert)).toBe(false)
    expect((await store.repos.alertNotify.find(alert))?.pending).toBe(false)
    expect(await store.repos.alertNotify.find('nope')).toBeUndefined()
  },
  'starts an action once per alert, and once per system within its cooldown': async (store) => {
    const f = await fleet(store, 2)
    const [a0, a1] = [f.alerts[0] as string, f.alerts[1] as string]
    const [s0, s1] = [f.systems[0] as string, f.systems[1] as string]
    expect(await claimed(store.db, claim(f.rule, a0, s0), 30, 60)).toBe('claimed')
    expect(await claimed(store.db, claim(f.rule, a0, s0, { at: NOW + HOUR_MS }), 30, 60)).toBe('done')
    // Another alert of the same system within 30 minutes; the same action on another system; another action.
    const again = await insertAlert(store.db, f.rule, s0, f.co)
    expect(await claimed(store.db, claim(f.rule, again, s0, { at: NOW + 29 * 60_000 }), 30, 60)).toBe('cooldown')
    expect(await claimed(store.db, claim(f.rule, a1, s1, { at: NOW + 60_000 }), 30, 60)).toBe('claimed')
    expect(await claimed(store.db, claim(f.rule, again, s0, { index: 1, at: NOW + 60_000 }), 30, 60)).toBe('claimed')
    // Past the cooldown the action starts again; without a cooldown, it always does.
    expect(await claimed(store.db, claim(f.rule, again, s0, { at: NOW + 31 * 60_000 }), 30, 60)).toBe('claimed')
    const third = await insertAlert(store.db, f.rule, s0, f.co)
    expect(await claimed(store.db, claim(f.rule, third, s0, { at: NOW + 31 * 60_000 }), 0, 60)).toBe('claimed')
  },
  'starts at most maxOperationsPerHour operations of a rule in the last hour; a start given back counts for nothing': async (store) => {
    const f = await fleet(store, 4)
    const c = (i: number, at = NOW): ActionClaim => claim(f.rule, f.alerts[i] as string, f.systems[i] as string, { at })
    expect(await claimed(store.db, c(0), 0, 2)).toBe('claimed')
    expect(await claimed(store.db, c(1), 0, 2)).toBe('claimed')
    expect(await claimed(store.db, c(2), 0, 2)).toBe('limit')
    await store.repos.alertNotify.release(f.alerts[1] as string, 0)
    expect(await claimed(store.db, c(2), 0, 2)).toBe('claimed')
    expect(await claimed(store.db, c(3, NOW + HOUR_MS - 1), 0, 2)).toBe('limit')
    // An hour after the first start, it no longer counts.
    expect(await claimed(store.db, c(3, NOW + HOUR_MS), 0, 2)).toBe('claimed')
    await store.repos.alertNotify.startedOperation(f.alerts[3] as string, 0, 'op-1')
    const { rows } = await store.db.query<{ operation_uid: string | null }>('SELECT operation_uid FROM alert_actions WHERE alert_uid = $1', [f.alerts[3]])
    expect(rows).toEqual([{ operation_uid: 'op-1' }])
  },
  'holds the rule\'s budget against concurrent transactions': async (store) => {
    const f = await fleet(store, 8)
    const verdicts = await Promise.all(f.alerts.map(async (a, i) => await claimed(store.db, claim(f.rule, a, f.systems[i] as string), 0, 3)))
    expect(verdicts.filter((v) => v === 'claimed')).toHaveLength(3)
    expect(verdicts.filter((v) => v === 'limit')).toHaveLength(5)
  }
})

if (EMBEDDED_RUN) contract('PGlite', async () => await createTestDb('pglite'))
if (TEST_DATABASE_URL !== undefined || CI) contract('PostgreSQL', async () => await createTestDb('postgres'))
