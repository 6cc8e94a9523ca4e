// What GET /api/v1/gateways and GET /api/v1/subscriptions find, show and sort (docs/api.md#systems;
// docs/api.md#using-the-api). The finds are lookups: a client that knows an identifier asks whether the company already
// has that gateway or SIM (the Android client, before it creates its system), so every filter is an exact match, any of
// several values (repeated keys or comma separated).
import type { GatewayView, SubscriptionView } from './system.js'

export const GATEWAY_FILTERS = ['uid', 'imei', 'serialNumber', 'macAddress'] as const
export type GatewayFilterKey = typeof GATEWAY_FILTERS[number]
export type GatewayFilter = Partial<Record<GatewayFilterKey, string[]>>
/** docs/api.md#systems: the fields of a gateway, all shown by default. */
export const GATEWAY_FIELDS = ['uid', 'imei', 'macAddress', 'serialNumber', 'type', 'creationDate'] as const satisfies ReadonlyArray<keyof GatewayView>
export const GATEWAY_SORTS = ['creationDate', 'imei', 'serialNumber', 'macAddress', 'type'] as const
export type GatewaySort = typeof GATEWAY_SORTS[number]

export const SUBSCRIPTION_FILTERS = ['uid', 'identifier', 'mobileNumber', 'networkIdentifier', 'operator'] as const
export type SubscriptionFilterKey = typeof SUBSCRIPTION_FILTERS[number]
export type SubscriptionFilter = Partial<Record<SubscriptionFilterKey, string[]>>
/** docs/api.md#systems: the fields of a subscription, all shown by default. */
export const SUBSCRIPTION_FIELDS = ['uid', 'identifier', 'mobileNumber', 'networkIdentifier', 'ipAddress', 'requestedIp',
  'eid', 'operator', 'state', 'appletGeneration', 'formFactor', 'confType', 'technology', 'orderId', 'productRefName',
  'activationImei', 'imeiLock'] as const satisfies ReadonlyArray<keyof SubscriptionView>
export const SUBSCRIPTION_SORTS = ['creationDate', 'identifier', 'mobileNumber', 'networkIdentifier', 'operator', 'state'] as const
export type SubscriptionSort = typeof SUBSCRIPTION_SORTS[number]
