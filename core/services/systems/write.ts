// Creating and changing a system inside a caller's transaction: used by the API, the seed and the CSV operations.
import { FleetError } from '../../errors.js'
import type { Repositories, SystemRow } from '../../ports/repositories.js'
import type { Company } from '../../domain/company.js'
import { LIFE_CYCLE_MOVES, type Communication, type Gateway, type Subscription } from '../../domain/system.js'
import { initialSystemData } from '../../domain/system-data.js'
import { newUid } from '../../security/secrets.js'
import type { SystemInput } from './input.js'
import { NEVER_COMMUNICATED } from '../../domain/comm-status.js'
import {
  bindCommIdentifiers, checkAssignment, checkCommunication, checkCompatibility, checkDevicePasswords, resolveApplications, resolveGateway,
  resolveSubscription
} from './compose.js'

type Tx = Pick<Repositories, 'systems' | 'gateways' | 'subscriptions' | 'applications' | 'catalogue'>

/** docs/api.md#systems: when empty, the name comes from the serial number, then IMEI, then MAC address. */
function defaultName (name: string | null | undefined, g: Gateway | null): string {
  if (name != null && name.trim() !== '') return name.trim()
  const fromGateway = g?.serialNumber ?? g?.imei ?? g?.macAddress
  if (fromGateway == null || fromGateway === '') throw new FleetError('system.missing.fields', ['name'])
  return fromGateway
}

export function mergeCommunication (current: Communication, patch: Communication | null | undefined): Communication {
  if (patch == null) return current
  const out: Communication = { ...current }
  for (const key of ['msci', 'm3da', 'rest', 'mqtt', 'lwm2m'] as const) {
    const p = patch[key]
    if (p === undefined) continue
    out[key] = p === null ? null : { ...(current[key] ?? {}), ...p } as never
  }
  return out
}

/**
 * Creates a system in INVENTORY (docs/api.md#systems: create system) with its gateway, subscription and
 * applications. Answers its uid. The caller's transaction makes it all or nothing.
 * @throws sets G and C, unknown.enum.value, application.missing, application.unknown, system.missing.fields,
 *   subscription.missing.identifier, subscription.missing.operator, operator.account.unknown,
 *   subscription.operator.and.operator.account.incompatible, system.limit.exceeded
 */
export async function insertSystem (tx: Tx, company: Pick<Company, 'uid' | 'systemLimit'>, input: SystemInput, now: number): Promise<string> {
  const companyUid = company.uid
  // The company row lock serialises concurrent creations, so the limit cannot be overrun.
  await tx.systems.lockCompany(companyUid)
  if (company.systemLimit !== null && await tx.systems.count(companyUid) >= company.systemLimit) {
    throw new FleetError('system.limit.exceeded', [String(company.systemLimit)])
  }
  const gateway = input.gateway == null ? null : await resolveGateway(tx, companyUid, input.gateway, now)
  const subscription = input.subscription == null ? null : await resolveSubscription(tx, companyUid, input.subscription, now)
  const applications = await resolveApplications(tx, companyUid, input.applications ?? [])
  const communication = mergeCommunication({}, input.communication)
  checkCommunication(communication)
  checkDevicePasswords(input.communication)
  checkCompatibility(gateway, subscription)
  await checkAssignment(tx, null, gateway, subscription)
  const row: SystemRow = {
    uid: newUid(),
    companyUid,
    name: defaultName(input.name, gateway),
    type: input.type ?? null,
    lifeCycleState: 'INVENTORY',
    state: 'INVENTORY',
    activityState: 'ACTIVATED',
    creationDate: now,
    activationDate: null,
    lastStateChangeDate: now,
    lastCommDate: null,
    commStatus: NEVER_COMMUNICATED,
    lastSyncDate: null,
    syncStatus: 'NOT_SYNC',
    labels: [...new Set(input.labels ?? [])],
    gatewayUid: gateway?.uid ?? null,
    subscriptionUid: subscription?.uid ?? null,
    metadata: input.metadata ?? {},
    communication,
    data: initialSystemData() as unknown as Record<string, unknown>,
    heartbeat: null,
    statusReport: null,
    reports: [],
    offerUid: null,
    lastAppliedTemplate: null,
    lastConfigName: null,
    monthBytesTotal: 0,
    monthBytesTime: null,
    usageStatus: 'WITHIN_PLAN'
  }
  await tx.systems.insert(row)
  await tx.systems.setApplications(row.uid, applications.map((a) => a.uid))
  await bindCommIdentifiers(tx, row.uid, gateway)
  return row.uid
}

/**
 * Partial update; gateway, subscription and applications by uid (gateway and subscription may be made on the fly,
 * null unlinks them). A life-cycle change follows LIFE_CYCLE_MOVES and stamps lastStateChangeDate, and
 * activationDate on the first ACTIVE.
 * @throws system.unknown, sets G and C, gateway.being.transferred, application.missing, application.unknown,
 *   system.missing.fields, subscription.unknown, system.invalid.state
 */
export async function updateSystem (tx: Tx, companyUid: string, uid: string, input: SystemInput, now: number): Promise<void> {
  // Gateways and subscriptions are matched or made per company: the same lock as insertSystem keeps two requests
  // from making one identifier twice or taking one part for two systems (a 400 of set C instead of a conflict).
  if (input.gateway !== undefined || input.subscription !== undefined) await tx.systems.lockCompany(companyUid)
  const current = await tx.systems.findByUid(companyUid, uid)
  if (current === undefined) throw new FleetError('system.unknown', [uid])
  let gateway: Gateway | null = current.gateway
  if (input.gateway !== undefined) gateway = input.gateway === null ? null : await resolveGateway(tx, companyUid, input.gateway, now)
  let subscription: Subscription | null = current.subscription
  if (input.subscription !== undefined) subscription = input.subscription === null ? null : await resolveSubscription(tx, companyUid, input.subscription, now)
  const patch: Partial<SystemRow> = { gatewayUid: gateway?.uid ?? null, subscriptionUid: subscription?.uid ?? null }
  if (input.applications !== undefined) {
    const apps = await resolveApplications(tx, companyUid, input.applications ?? [])
    await tx.systems.setApplications(uid, apps.map((a) => a.uid))
  }
  if (input.name !== undefined) {
    if (input.name === null || input.name.trim() === '') throw new FleetError('system.missing.fields', ['name'])
    patch.name = input.name.trim()
  }
  if (input.type !== undefined) patch.type = input.type
  if (input.labels !== undefined) patch.labels = [...new Set(input.labels ?? [])]
  if (input.metadata !== undefined) patch.metadata = input.metadata ?? {}
  if (input.communication !== undefined) {
    patch.communication = mergeCommunication(current.communication, input.communication)
    checkCommunication(patch.communication)
    checkDevicePasswords(input.communication)
  }
  if (input.state !== undefined) patch.state = input.state
  if (input.lifeCycleState !== undefined && input.lifeCycleState !== current.lifeCycleState) {
    if (!LIFE_CYCLE_MOVES[current.lifeCycleState].includes(input.lifeCycleState)) {
      throw new FleetError('system.invalid.state', [current.lifeCycleState, input.lifeCycleState])
    }
    patch.lifeCycleState = input.lifeCycleState
    patch.lastStateChangeDate = now
    if (input.lifeCycleState === 'ACTIVE' && current.activationDate === null) patch.activationDate = now
  }
  checkCompatibility(gateway, subscription)
  await checkAssignment(tx, uid, gateway, subscription)
  await tx.systems.update(uid, patch)
  if (gateway?.uid !== current.gateway?.uid || input.gateway != null) await bindCommIdentifiers(tx, uid, gateway)
}
