// GET /api/v1/gateways and GET /api/v1/subscriptions (docs/api.md#systems; docs/api.md#using-the-api).
import { Type } from 'typebox'
import { GATEWAY_SORTS, SUBSCRIPTION_SORTS } from '../../core/domain/parts.js'

const company = Type.Optional(Type.String({ minLength: 1, description: 'Context company: the uid of the caller\'s company (the default) or of a partner company' }))
const exact = (what: string) => Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], {
  description: `${what}, exact match; several values (comma separated or repeated keys) find any of them`
}))
const listOf = (description: string) => Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], { description }))
const paging = (fields: string, sortable: readonly string[]) => ({
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'Index of the first item of the page' })),
  size: Type.Optional(Type.Integer({ minimum: 0, default: 100, description: 'Items per page, at most 500 (a larger size is clamped to 500)' })),
  fields: listOf(`Attributes to return (${fields}); all when absent`),
  orderBy: listOf(`Sort order: <field>[:asc|:desc] with field one of ${sortable.join(', ')} (others answer sort.invalid.field); default creationDate ascending`),
  asc: listOf('Sort ascending by these fields (alias of orderBy=<field>:asc)'),
  desc: listOf('Sort descending by these fields (alias of orderBy=<field>:desc)')
})

export const GatewayFindQuery = Type.Object({
  company,
  uid: exact('Gateway uid'),
  imei: exact('IMEI'),
  serialNumber: exact('Serial number'),
  macAddress: exact('MAC address'),
  ...paging('uid, imei, macAddress, serialNumber, type, creationDate', GATEWAY_SORTS)
})

export const SubscriptionFindQuery = Type.Object({
  company,
  uid: exact('Subscription uid'),
  identifier: exact('Identifier (ICCID or ESN)'),
  mobileNumber: exact('Mobile number (MSISDN)'),
  networkIdentifier: exact('Network identifier (IMSI or MIN)'),
  operator: exact('Operator (UNKNOWN when not known)'),
  ...paging('any field of the subscription', SUBSCRIPTION_SORTS)
})

const Text = (description: string) => Type.Optional(Type.Union([Type.String(), Type.Null()], { description }))

/** docs/api.md#systems; with `fields`, only the chosen attributes are present. */
export const GatewayView = Type.Object({
  uid: Type.Optional(Type.String({ description: 'Gateway uid' })),
  imei: Text('IMEI'),
  macAddress: Text('MAC address'),
  serialNumber: Text('Serial number'),
  type: Text('Kind of gateway'),
  creationDate: Type.Optional(Type.Integer({ description: 'Creation time, epoch milliseconds' }))
}, { description: 'A gateway' })

/** docs/api.md#systems; with `fields`, only the chosen attributes are present. */
export const SubscriptionView = Type.Object({
  uid: Type.Optional(Type.String({ description: 'Subscription uid' })),
  identifier: Type.Optional(Type.String({ description: 'ICCID or ESN' })),
  mobileNumber: Text('Mobile number'),
  networkIdentifier: Text('IMSI or MIN'),
  ipAddress: Text('IP address'),
  requestedIp: Text('Requested IP address'),
  eid: Text('eUICC identifier'),
  operator: Type.Optional(Type.String({ description: 'Operator' })),
  state: Type.Optional(Type.String({ description: 'State of the SIM' })),
  appletGeneration: Text('V1, V2, V3, V4'),
  formFactor: Text('2FF, 3FF, 4FF, MFF, COMBO, WLCSP, DFN6'),
  confType: Text('Configuration type'),
  technology: Text('2G/3G or 4G'),
  orderId: Text('Order id'),
  productRefName: Text('Product reference name'),
  activationImei: Text('IMEI the SIM was activated with'),
  imeiLock: Type.Optional(Type.Union([Type.Object({
    imeiLock: Type.Union([Type.Boolean(), Type.String(), Type.Null()]),
    imeiLockDate: Type.Union([Type.Integer(), Type.Null()]),
    imeiUnlockedDate: Type.Union([Type.Integer(), Type.Null()])
  }), Type.Null()], { description: 'IMEI lock of the SIM' }))
}, { description: 'A subscription (SIM)' })
