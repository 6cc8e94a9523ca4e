// docs/api.md#systems and docs/api.md#systems.
import type { CommunicationEntry, DataNode } from './application-model.js'

export const LIFE_CYCLE_STATES = ['INVENTORY', 'ACTIVE', 'TEST_READY', 'SUSPENDED', 'RETIRED'] as const
export type LifeCycleState = typeof LIFE_CYCLE_STATES[number]
export const SYSTEM_STATES = ['INVENTORY', 'READY', 'DEPLOYED', 'MAINTENANCE'] as const
export type SystemState = typeof SYSTEM_STATES[number]
export const ACTIVITY_STATES = ['ACTIVATED', 'SUSPENDED', 'ARCHIVED', 'PURGED'] as const
export type ActivityState = typeof ACTIVITY_STATES[number]
export const COMM_STATUSES = ['OK', 'ERROR', 'WARNING', 'UNDEFINED'] as const
export type CommStatus = typeof COMM_STATUSES[number]
export const SYNC_STATUSES = ['OK', 'ERROR', 'WARNING', 'NOT_SYNC'] as const
export const USAGE_STATUSES = ['WITHIN_PLAN', 'NEARING_PLAN', 'EXCEEDING_PLAN'] as const
/** An application's category, as AirVantage and its clients say (docs/api.md#applications-and-templates). */
export const APPLICATION_CATEGORIES = ['APPLICATION', 'FIRMWARE'] as const
/** What a request or a seed file may say: SOFTWARE, the service's former name, is APPLICATION. */
export const APPLICATION_CATEGORY_INPUTS = ['APPLICATION', 'SOFTWARE', 'FIRMWARE'] as const
export const applicationCategory = (c: typeof APPLICATION_CATEGORY_INPUTS[number]): typeof APPLICATION_CATEGORIES[number] => c === 'SOFTWARE' ? 'APPLICATION' : c
export const PROTOCOLS = ['MQTT', 'REST', 'M3DA', 'MSCI'] as const
export type Protocol = typeof PROTOCOLS[number]

// Values docs/api.md lists for subscription fields.
export const APPLET_GENERATIONS = ['V1', 'V2', 'V3', 'V4'] as const
export const FORM_FACTORS = ['2FF', '3FF', '4FF', 'MFF', 'COMBO', 'WLCSP', 'DFN6'] as const
export const CONF_TYPES = ['LITE', 'ADVANCED', 'ADVANCED_NODATA', 'TAILORED', 'BROADBAND', 'PASSIVE', 'MBQT_V1',
  'MBQT_V2', 'MBQT_V3', 'LITE2', 'ADVANCED2', 'ADVANCED2_NODATA'] as const
export const TECHNOLOGIES = ['2G/3G', '4G'] as const
// Not shown by docs/api.md ("A value UNKNOWN exists for operator"): the operators this service knows.
export const OPERATORS = ['UNKNOWN', 'SIERRA_WIRELESS', 'ORANGE', 'SFR', 'BOUYGUES', 'VODAFONE', 'TELEFONICA',
  'DEUTSCHE_TELEKOM', 'KPN', 'TIM', 'EE', 'ATT', 'VERIZON', 'T_MOBILE', 'SPRINT', 'BELL', 'ROGERS', 'TELUS',
  'TELSTRA', 'NTT_DOCOMO'] as const
// Not shown either: subscription states, following the SIM life cycle.
export const SUBSCRIPTION_STATES = ['INVENTORY', 'TEST_READY', 'ACTIVE', 'SUSPENDED', 'RETIRED'] as const

/**
 * Life-cycle moves (docs/api.md shows only creation and swap SIM; the rest is ours and documented in docs/api.md):
 * a system leaves INVENTORY for testing or service, moves between ACTIVE and SUSPENDED, may go back to INVENTORY
 * from TEST_READY, and RETIRED is final. Any other change answers system.invalid.state.
 */
export const LIFE_CYCLE_MOVES: Record<LifeCycleState, readonly LifeCycleState[]> = {
  INVENTORY: ['TEST_READY', 'ACTIVE', 'RETIRED'],
  TEST_READY: ['INVENTORY', 'ACTIVE', 'SUSPENDED', 'RETIRED'],
  ACTIVE: ['SUSPENDED', 'RETIRED'],
  SUSPENDED: ['ACTIVE', 'RETIRED'],
  RETIRED: []
}

export interface GatewayView {
  uid: string
  imei: string | null
  macAddress: string | null
  serialNumber: string | null
  type: string | null
  creationDate: number
}

export interface Gateway extends GatewayView {
  companyUid: string
  esn: string | null
  meid: string | null
  state: string
  transferTo: string | null
}

export interface ImeiLock { imeiLock: boolean | string | null, imeiLockDate: number | null, imeiUnlockedDate: number | null }

export interface SubscriptionView {
  uid: string
  identifier: string
  mobileNumber: string | null
  networkIdentifier: string | null
  ipAddress: string | null
  requestedIp: string | null
  eid: string | null
  operator: string
  state: string
  appletGeneration: string | null
  formFactor: string | null
  confType: string | null
  technology: string | null
  orderId: string | null
  productRefName: string | null
  activationImei: string | null
  imeiLock: ImeiLock | null
}

export interface Subscription extends SubscriptionView {
  companyUid: string
  operatorAccountUid: string | null
  creationDate: number
}

/** An application of the catalogue in the AirVantage model (docs/api.md#applications-and-templates); public when companyUid
 * is null. */
export interface Application {
  uid: string
  companyUid: string | null
  name: string
  revision: string
  type: string
  category: typeof APPLICATION_CATEGORIES[number]
  /** The protocols it speaks (PUT /applications/{uid}/communication). */
  communication: CommunicationEntry[]
  /** What its device understands (PUT /applications/{uid}/data). */
  data: DataNode[]
}

/** An application inside a system (docs/api.md#applications-and-templates). */
export interface ApplicationRef { uid: string, name: string, revision: string, type: string, category: string }

export interface Communication {
  msci?: { host?: string | null, user?: string | null, password?: string | null } | null
  m3da?: { registrationPassword?: string | null, password?: string | null } | null
  rest?: { password?: string | null } | null
  mqtt?: { password?: string | null } | null
  /** LwM2M over DTLS (docs/protocols/lwm2m.md): the PSK identity (default: the endpoint name) and the key in hex. */
  lwm2m?: { pskIdentity?: string | null, pskSecretHex?: string | null } | null
}

export interface Offer {
  uid: string
  companyUid: string
  name: string
  limit: number | null
  types: string[]
  /** Billing increments of its usage records (core/domain/usage-billing.ts); null or absent: the defaults. */
  dataIncrementBytes?: number | null
  voiceIncrementSeconds?: number | null
}
export interface SystemOption { type: string, uid: string, name: string, config?: string }

/**
 * What a device operation reads of a system (core/operations/device/targets.ts): its login (gateway serial number or
 * IMEI) and its communication secrets, not the whole view with its parts.
 */
export interface DeviceSystem {
  uid: string
  name: string
  communication: System['communication']
  gateway: { serialNumber: string | null, imei: string | null } | null
}

/** A system row with its parts resolved: what the repository answers. */
export interface System {
  uid: string
  companyUid: string
  name: string
  type: string | null
  lifeCycleState: LifeCycleState
  state: SystemState
  activityState: ActivityState
  creationDate: number
  activationDate: number | null
  lastStateChangeDate: number
  lastCommDate: number | null
  commStatus: CommStatus
  lastSyncDate: number | null
  syncStatus: string
  labels: string[]
  gateway: Gateway | null
  subscription: Subscription | null
  applications: ApplicationRef[]
  metadata: Record<string, string>
  communication: Communication
  data: Record<string, unknown>
  heartbeat: unknown
  statusReport: unknown
  reports: unknown[]
  offer: Offer | null
  lastAppliedTemplate: string | null
  lastConfigName: string | null
  monthBytesTotal: number
  monthBytesTime: number | null
  usageStatus: string
}

export const SYSTEM_FIELDS = ['uid', 'name', 'state', 'lifeCycleState', 'activityState', 'creationDate', 'activationDate',
  'lastStateChangeDate', 'lastCommDate', 'commStatus', 'gateway', 'subscription', 'labels', 'applications', 'metadata',
  'communication', 'data', 'heartbeat', 'statusReport', 'reports', 'lastSyncDate', 'syncStatus', 'type', 'offer'] as const
export type SystemField = typeof SYSTEM_FIELDS[number]

export const SYSTEM_SORTS = ['name', 'creationDate', 'activationDate', 'lastStateChangeDate', 'lastCommDate',
  'serialNumber', 'imei', 'identifier', 'ipAddress', 'requestedIp', 'data.rssi', 'data.ecio', 'data.rsrp', 'data.rsrq',
  'data.bytesSent', 'data.bytesReceived', 'data.monthBytesTotal', 'dataUsage.bytesTotal', 'dataUsage.status'] as const
export type SystemSort = typeof SYSTEM_SORTS[number]

function startOfMonthUtc (now: number): number {
  const d = new Date(now)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)
}

/** docs/api.md#systems: the resource as answered (details, create, edit). */
export function systemView (s: System, now: number): Record<string, unknown> {
  const gateway = s.gateway === null ? null : gatewayView(s.gateway)
  const subscription = s.subscription === null ? null : subscriptionView(s.subscription)
  const monthStart = startOfMonthUtc(now)
  const bytesTotal = s.monthBytesTime !== null && s.monthBytesTime >= monthStart ? s.monthBytesTotal : 0
  return {
    uid: s.uid,
    type: s.type,
    name: s.name,
    lifeCycleState: s.lifeCycleState,
    state: s.state,
    activityState: s.activityState,
    creationDate: s.creationDate,
    activationDate: s.activationDate,
    lastStateChangeDate: s.lastStateChangeDate,
    lastCommDate: s.lastCommDate,
    commStatus: s.commStatus,
    lastSyncDate: s.lastSyncDate,
    syncStatus: s.syncStatus,
    labels: s.labels,
    gateway,
    applications: s.applications,
    subscription,
    subscriptions: subscription === null ? [] : [subscription],
    metadata: s.metadata,
    data: { ...s.data, monthBytesTotal: bytesTotal, monthBytesTotalTime: bytesTotal > 0 ? s.monthBytesTime : monthStart },
    communication: communicationView(s.communication),
    heartbeat: s.heartbeat ?? null,
    statusReport: s.statusReport ?? null,
    reports: s.reports,
    offer: s.offer === null ? null : { uid: s.offer.uid, name: s.offer.name, limit: s.offer.limit, types: s.offer.types },
    dataUsage: {
      bytesTotal,
      timestamp: bytesTotal > 0 && s.monthBytesTime !== null ? s.monthBytesTime : monthStart,
      // A status computed in a month that is over no longer holds (storage/repositories/data-usage.sql.ts).
      status: s.monthBytesTime !== null && s.monthBytesTime < monthStart ? 'WITHIN_PLAN' : s.usageStatus,
      pricePlan: s.offer?.name ?? null,
      limit: s.offer?.limit ?? null
    }
  }
}

/** docs/api.md#systems: the gateway as answered. */
export function gatewayView (g: GatewayView): GatewayView {
  return { uid: g.uid, imei: g.imei, macAddress: g.macAddress, serialNumber: g.serialNumber, type: g.type, creationDate: g.creationDate }
}

export function subscriptionView (s: Subscription): SubscriptionView {
  return {
    uid: s.uid,
    identifier: s.identifier,
    mobileNumber: s.mobileNumber,
    networkIdentifier: s.networkIdentifier,
    ipAddress: s.ipAddress,
    requestedIp: s.requestedIp,
    eid: s.eid,
    operator: s.operator,
    state: s.state,
    appletGeneration: s.appletGeneration,
    formFactor: s.formFactor,
    confType: s.confType,
    technology: s.technology,
    orderId: s.orderId,
    productRefName: s.productRefName,
    activationImei: s.activationImei,
    imeiLock: s.imeiLock
  }
}

export function communicationView (c: Communication): Required<{ [K in keyof Communication]: Record<string, string | null> | null }> {
  return {
    msci: c.msci == null ? null : { host: c.msci.host ?? null, user: c.msci.user ?? null, password: c.msci.password ?? null },
    m3da: c.m3da == null ? null : { registrationPassword: c.m3da.registrationPassword ?? null, password: c.m3da.password ?? null },
    rest: c.rest == null ? null : { password: c.rest.password ?? null },
    mqtt: c.mqtt == null ? null : { password: c.mqtt.password ?? null },
    lwm2m: c.lwm2m == null ? null : { pskIdentity: c.lwm2m.pskIdentity ?? null, pskSecretHex: c.lwm2m.pskSecretHex ?? null }
  }
}
