// The system filters of docs/api.md#systems, which are also the `criteria` of a bulk-operation selection
// (docs/operations.md#bulk-operations). One type, one SQL translation (storage/repositories/system-criteria.sql.ts).
import { FleetError } from '../errors.js'

export const GATEWAY_KEYS = ['uid', 'type', 'imei', 'macAddress', 'serialNumber'] as const
export const SUBSCRIPTION_KEYS = ['uid', 'operator', 'identifier', 'mobileNumber', 'networkIdentifier', 'ipAddress',
  'requestedIp', 'eid', 'appletGeneration', 'formFactor', 'confType', 'technology', 'productRefName'] as const
export const APPLICATION_KEYS = ['uid', 'name', 'revision', 'type'] as const
export const DATA_KEYS = ['rssiLevel', 'ecioLevel', 'networkServiceType', 'roamingStatus', 'signalStrength',
  'rsrpLevel', 'rsrqLevel'] as const
/** docs/operations.md#bulk-operations, Label: the identifier lists of the label operation. */
export const IDENTIFIER_KINDS = ['name', 'gatewaySerialNumber', 'gatewayImei', 'gatewayMacAddress',
  'subscriptionIdentifier', 'subscriptionNetworkIdentifier', 'subscriptionIpAddress', 'subscriptionEid'] as const

export type GatewayKey = typeof GATEWAY_KEYS[number]
export type SubscriptionKey = typeof SUBSCRIPTION_KEYS[number]
export type ApplicationKey = typeof APPLICATION_KEYS[number]
export type DataKey = typeof DATA_KEYS[number]
export type IdentifierKind = typeof IDENTIFIER_KINDS[number]

/**
 * A keyed criterion (gateway, subscription, application, data) holds only its documented keys: an unknown one
 * (`constructor`, `__proto__`, a typo) would otherwise be dropped and silently widen the selection.
 * @throws FleetError request.invalid [where, the key, the keys there are]
 */
export function knownKeys<K extends string> (where: string, v: Record<string, string | undefined> | undefined, keys: readonly K[]): Partial<Record<K, string>> | undefined {
  for (const k of Object.keys(v ?? {})) {
    if (!(keys as readonly string[]).includes(k)) throw new FleetError('request.invalid', [where, k, `keys: ${keys.join(', ')}`])
  }
  return v as Partial<Record<K, string>> | undefined
}

export const DATE_BOUNDS = ['lastCommAfter', 'lastCommBefore', 'creationAfter', 'creationBefore', 'activationAfter',
  'activationBefore', 'lastStateChangeAfter', 'lastStateChangeBefore', 'lastSyncAfter', 'lastSyncBefore'] as const
export type DateBound = typeof DATE_BOUNDS[number]

export interface SystemCriteria extends Partial<Record<DateBound, number>> {
  uids?: string[]
  labels?: string[]
  name?: string
  states?: string[]
  lifeCycleStates?: string[]
  activityStates?: string[]
  type?: string
  lastAppliedTemplate?: string
  lastConfigName?: string
  commStatus?: string[]
  syncStatus?: string[]
  metadata?: Record<string, string>
  application?: Partial<Record<ApplicationKey, string>>
  gateway?: Partial<Record<GatewayKey, string>>
  subscription?: Partial<Record<SubscriptionKey, string>>
  data?: Partial<Record<DataKey, string>>
  usageStatus?: string
  offer?: string
  notOffer?: string
  options?: string[]
  notOptions?: string[]
  identifiers?: Partial<Record<IdentifierKind, string[]>>
}
