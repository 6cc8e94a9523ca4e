// The fleet part of a seed document (docs/api.md#systems): applications, operator accounts, offers, setting templates,
// options, systems and datasets. Matched by natural keys so that seeding twice changes nothing.
import { Type, type Static } from 'typebox'
import type { Repositories } from '../../ports/repositories.js'
import { isFleetError } from '../../errors.js'
import {
  APPLICATION_CATEGORY_INPUTS, applicationCategory, LIFE_CYCLE_MOVES, LIFE_CYCLE_STATES, OPERATORS, type LifeCycleState
} from '../../domain/system.js'
import type { CommunicationEntry, DataNode } from '../../domain/application-model.js'
import { communicationProblem, dataTreeProblem } from '../../domain/application-model-rules.js'
import { CommunicationSchema, DataTreeSchema } from '../../schemas/application-model.schema.js'
import { newUid } from '../../security/secrets.js'
import { insertSystem, updateSystem } from '../systems/write.js'
import type { SystemInput } from '../systems/input.js'

const Company = Type.Union([Type.String(), Type.Null()])

export const SeedApplication = Type.Object({
  company: Type.Optional(Company), // absent or null: a public application
  name: Type.String({ minLength: 1 }),
  revision: Type.String({ minLength: 1 }),
  type: Type.String({ minLength: 1 }),
  category: Type.Enum([...APPLICATION_CATEGORY_INPUTS]),
  // docs/api.md#applications-and-templates: the protocols it speaks and the tree of what its devices understand.
  communication: Type.Optional(CommunicationSchema),
  data: Type.Optional(DataTreeSchema)
}, { additionalProperties: false })

export const SeedOperatorAccount = Type.Object({
  company: Type.String(),
  name: Type.String({ minLength: 1 }),
  operator: Type.Enum([...OPERATORS]),
  swapSupported: Type.Optional(Type.Boolean())
}, { additionalProperties: false })

export const SeedOffer = Type.Object({
  company: Type.String(),
  name: Type.String({ minLength: 1 }),
  limit: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
  types: Type.Optional(Type.Array(Type.String())),
  // Billing increments of usage records (docs/usage.md); absent: the service's defaults.
  dataIncrementBytes: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
  voiceIncrementSeconds: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]))
}, { additionalProperties: false })

export const SeedTemplate = Type.Object({
  company: Type.String(),
  name: Type.String({ minLength: 1 }),
  settings: Type.Array(Type.Object({ key: Type.String({ minLength: 1 }), value: Type.Unknown() }))
}, { additionalProperties: false })

export const SeedOption = Type.Object({
  company: Type.Optional(Company), // absent or null: offered to every company
  type: Type.String({ minLength: 1 }),
  name: Type.String({ minLength: 1 }),
  config: Type.Optional(Type.Union([Type.String(), Type.Null()]))
}, { additionalProperties: false })

// A named list of data ids of a company, the `dataset` of an export data history (docs/operations.md#bulk-operations);
// matched by name within its company, its data replaced on each seed.
export const SeedDataset = Type.Object({
  company: Type.String(),
  name: Type.String({ minLength: 1 }),
  data: Type.Array(Type.String({ minLength: 1 }))
}, { additionalProperties: false })

// Registration codes (docs/operations.md#csv-operations): the gateway products that need one, and a company's
// gateway inventory with serial numbers and codes, matched by serial number within its company.
export const SeedGatewayProduct = Type.Object({
  type: Type.String({ minLength: 1 }),
  registrationCode: Type.Boolean()
}, { additionalProperties: false })

export const SeedInventoryGateway = Type.Object({
  company: Type.String(),
  serialNumber: Type.String({ minLength: 1 }),
  imei: Type.Optional(Type.String()),
  type: Type.String({ minLength: 1 }),
  registrationCode: Type.Optional(Type.String())
}, { additionalProperties: false })

const AppRef = Type.Object({ type: Type.String(), revision: Type.String() })

export const SeedSystem = Type.Object({
  company: Type.String(),
  name: Type.String({ minLength: 1 }),
  type: Type.Optional(Type.String()),
  labels: Type.Optional(Type.Array(Type.String())),
  metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
  lifeCycleState: Type.Optional(Type.Enum([...LIFE_CYCLE_STATES])),
  gateway: Type.Optional(Type.Object({
    imei: Type.Optional(Type.String()), serialNumber: Type.Optional(Type.String()), macAddress: Type.Optional(Type.String()), type: Type.Optional(Type.String())
  })),
  subscription: Type.Optional(Type.Object({
    identifier: Type.String(),
    operator: Type.String(),
    operatorAccount: Type.Optional(Type.String()),
    mobileNumber: Type.Optional(Type.String()),
    networkIdentifier: Type.Optional(Type.String()),
    ipAddress: Type.Optional(Type.String())
  })),
  applications: Type.Optional(Type.Array(AppRef)),
  communication: Type.Optional(Type.Record(Type.String(), Type.Record(Type.String(), Type.String()))),
  offer: Type.Optional(Type.String()),
  options: Type.Optional(Type.Array(Type.Object({ type: Type.String(), name: Type.String() }))),
  heartbeat: Type.Optional(Type.Object({ state: Type.String(), period: Type.String(), sla: Type.Optional(Type.Object({ error: Type.String(), warning: Type.String() })), serverOnly: Type.Optional(Type.Boolean()) }))
}, { additionalProperties: false })

export const FleetSeedSections = {
  applications: Type.Optional(Type.Array(SeedApplication)),
  operatorAccounts: Type.Optional(Type.Array(SeedOperatorAccount)),
  offers: Type.Optional(Type.Array(SeedOffer)),
  templates: Type.Optional(Type.Array(SeedTemplate)),
  options: Type.Optional(Type.Array(SeedOption)),
  systems: Type.Optional(Type.Array(SeedSystem)),
  datasets: Type.Optional(Type.Array(SeedDataset)),
  gatewayProducts: Type.Optional(Type.Array(SeedGatewayProduct)),
  gatewayInventory: Type.Optional(Type.Array(SeedInventoryGateway))
}

export interface FleetSeed {
  applications?: Array<Static<typeof SeedApplication>>
  operatorAccounts?: Array<Static<typeof SeedOperatorAccount>>
  offers?: Array<Static<typeof SeedOffer>>
  templates?: Array<Static<typeof SeedTemplate>>
  options?: Array<Static<typeof SeedOption>>
  systems?: Array<Static<typeof SeedSystem>>
  datasets?: Array<Static<typeof SeedDataset>>
  gatewayProducts?: Array<Static<typeof SeedGatewayProduct>>
  gatewayInventory?: Array<Static<typeof SeedInventoryGateway>>
}

type CompanyOf = (name: string) => Promise<string>

/**
 * The shortest walk along LIFE_CYCLE_MOVES from one life-cycle state to another, through ACTIVE when there is a
 * choice (a seeded SUSPENDED system was in service, so it has an activation date). An unreachable target answers
 * the direct move, which updateSystem refuses with system.invalid.state.
 */
export function lifeCyclePath (from: LifeCycleState, to: LifeCycleState): LifeCycleState[] {
  const previous = new Map<LifeCycleState, LifeCycleState>()
  const queue: LifeCycleState[] = [from]
  for (let state = queue.shift(); state !== undefined && state !== to; state = queue.shift()) {
    for (const next of [...LIFE_CYCLE_MOVES[state]].sort((a, b) => Number(b === 'ACTIVE') - Number(a === 'ACTIVE'))) {
      if (next !== from && !previous.has(next)) { previous.set(next, state); queue.push(next) }
    }
  }
  if (from === to) return []
  if (!previous.has(to)) return [to]
  const path: LifeCycleState[] = []
  for (let s: LifeCycleState | undefined = to; s !== undefined && s !== from; s = previous.get(s)) path.unshift(s)
  return path
}

export async function seedFleet (repos: Repositories, doc: FleetSeed, companyOf: CompanyOf, now: number, fail: (m: string) => Error): Promise<void> {
  const company = async (name: string | null | undefined): Promise<string | null> => name == null ? null : await companyOf(name)
  for (const a of doc.applications ?? []) {
    const companyUid = await company(a.company)
    const communication = (a.communication ?? []) as CommunicationEntry[]
    const data = (a.data ?? []) as DataNode[]
    const problem = communicationProblem(communication, 'communication') ?? dataTreeProblem(data, 'data')
    if (problem !== undefined) throw fail(`application ${a.type} ${a.revision}: ${problem.field} ${problem.message}`)
    const fields = { name: a.name, revision: a.revision, type: a.type, category: applicationCategory(a.category), communication, data }
    await repos.applications.put({ uid: newUid(), companyUid, ...fields }, now)
  }
  for (const o of doc.operatorAccounts ?? []) {
    const companyUid = await companyOf(o.company)
    const found = await repos.catalogue.operatorAccountByName(companyUid, o.name)
    await repos.catalogue.putOperatorAccount({ uid: found?.uid ?? newUid(), companyUid, name: o.name, operator: o.operator, swapSupported: o.swapSupported ?? true })
  }
  for (const o of doc.offers ?? []) {
    const companyUid = await companyOf(o.company)
    const found = await repos.catalogue.offerByName(companyUid, o.name)
    const increments = { dataIncrementBytes: o.dataIncrementBytes ?? null, voiceIncrementSeconds: o.voiceIncrementSeconds ?? null }
    await repos.catalogue.putOffer({ uid: found?.uid ?? newUid(), companyUid, name: o.name, limit: o.limit ?? null, types: o.types ?? [], ...increments })
  }
  for (const t of doc.templates ?? []) {
    const companyUid = await companyOf(t.company)
    const found = await repos.catalogue.templateByName(companyUid, t.name)
    await repos.catalogue.putTemplate({ uid: found?.uid ?? newUid(), companyUid, name: t.name, settings: t.settings })
  }
  for (const o of doc.options ?? []) {
    const companyUid = await company(o.company)
    const found = await repos.catalogue.optionByName(companyUid, o.type, o.name)
    await repos.catalogue.putOption({ uid: found?.uid ?? newUid(), companyUid, type: o.type, name: o.name, ...(o.config == null ? {} : { config: o.config }) })
  }
  for (const p of doc.gatewayProducts ?? []) await repos.catalogue.putGatewayProduct(p)
  for (const g of doc.gatewayInventory ?? []) {
    const companyUid = await companyOf(g.company)
    await repos.catalogue.putInventoryGateway({ companyUid, serialNumber: g.serialNumber, imei: g.imei ?? null, type: g.type, registrationCode: g.registrationCode ?? null })
  }
  for (const s of doc.systems ?? []) {
    try {
      await seedSystem(repos, s, companyOf, now, fail)
    } catch (err) {
      if (!isFleetError(err)) throw err
      throw fail(`system "${s.name}": ${err.code} ${err.params.join(' ')}`.trim())
    }
  }
  for (const d of doc.datasets ?? []) {
    const companyUid = await companyOf(d.company)
    const found = await repos.operations.datasetByName(companyUid, d.name)
    await repos.operations.putDataset({ uid: found?.uid ?? newUid(), companyUid, name: d.name, data: [...new Set(d.data)] })
  }
}

async function seedSystem (repos: Repositories, s: Static<typeof SeedSystem>, companyOf: CompanyOf, now: number, fail: (m: string) => Error): Promise<void> {
  const companyUid = await companyOf(s.company)
  const appUids: string[] = []
  for (const ref of s.applications ?? []) {
    const app = await repos.applications.findByKey(companyUid, ref.type, ref.revision) ?? await repos.applications.findByKey(null, ref.type, ref.revision)
    if (app === undefined) throw fail(`unknown application ${ref.type} ${ref.revision} for system "${s.name}"`)
    appUids.push(app.uid)
  }
  let operatorAccount: { uid: string } | undefined
  if (s.subscription?.operatorAccount !== undefined) {
    const acc = await repos.catalogue.operatorAccountByName(companyUid, s.subscription.operatorAccount)
    if (acc === undefined) throw fail(`unknown operator account "${s.subscription.operatorAccount}"`)
    operatorAccount = { uid: acc.uid }
  }
  const input: SystemInput = {
    name: s.name,
    type: s.type ?? null,
    labels: s.labels ?? [],
    metadata: s.metadata ?? {},
    communication: (s.communication ?? {}) as SystemInput['communication'],
    gateway: s.gateway ?? null,
    subscription: s.subscription === undefined ? null : { ...s.subscription, operatorAccount },
    applications: appUids.map((uid) => ({ uid }))
  }
  // The name is the natural key of a seeded system: matched exactly (the oldest one when several share it).
  let [uid] = await repos.systems.findUids(companyUid, { identifiers: { name: [s.name] } }, 1)
  let current: LifeCycleState = 'INVENTORY'
  if (uid === undefined) {
    const company = await repos.companies.findByUid(companyUid)
    uid = await insertSystem(repos, { uid: companyUid, systemLimit: company?.systemLimit ?? null }, input, now)
  } else {
    await updateSystem(repos, companyUid, uid, input, now)
    current = (await repos.systems.findByUid(companyUid, uid))?.lifeCycleState ?? current
  }
  for (const state of lifeCyclePath(current, s.lifeCycleState ?? current)) {
    await updateSystem(repos, companyUid, uid, { lifeCycleState: state }, now)
  }
  const offer = s.offer === undefined ? undefined : await repos.catalogue.offerByName(companyUid, s.offer)
  if (s.offer !== undefined && offer === undefined) throw fail(`unknown offer "${s.offer}"`)
  const optionUids: string[] = []
  for (const o of s.options ?? []) {
    const opt = await repos.catalogue.optionByName(companyUid, o.type, o.name) ?? await repos.catalogue.optionByName(null, o.type, o.name)
    if (opt === undefined) throw fail(`unknown option ${o.type} "${o.name}"`)
    optionUids.push(opt.uid)
  }
  await repos.systems.update(uid, { ...(offer === undefined ? {} : { offerUid: offer.uid }), ...(s.heartbeat === undefined ? {} : { heartbeat: s.heartbeat }) })
  if (s.options !== undefined) await repos.systems.setOptions(uid, optionUids)
}
