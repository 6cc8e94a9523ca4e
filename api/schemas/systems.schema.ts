import { Type } from 'typebox'
import {
  ACTIVITY_STATES, APPLET_GENERATIONS, COMM_STATUSES, CONF_TYPES, FORM_FACTORS, LIFE_CYCLE_STATES,
  SUBSCRIPTION_STATES, SYNC_STATUSES, SYSTEM_FIELDS, SYSTEM_SORTS, SYSTEM_STATES, TECHNOLOGIES
} from '../../core/domain/system.js'
import { APPLICATION_KEYS, DATA_KEYS, DATE_BOUNDS, GATEWAY_KEYS, SUBSCRIPTION_KEYS } from '../../core/domain/system-criteria.js'
import { CompanyParam, documented, listParam, PageQuery, Uid } from './common.schema.js'
import { EpochTimeInt } from './numbers.schema.js'

const Str = Type.Union([Type.String(), Type.Null()])
// An enum answers unknown.enum.value when the value is not one of the list (api/plugins/error-handler.ts).
const NullableEnum = (values: readonly string[]) => Type.Union([Type.Enum([...values]), Type.Null()])

const GatewayInput = Type.Object({
  uid: Type.Optional(Uid),
  imei: Type.Optional(Str),
  serialNumber: Type.Optional(Str),
  macAddress: Type.Optional(Str),
  esn: Type.Optional(Str),
  meid: Type.Optional(Str),
  type: Type.Optional(Str)
})

const SubscriptionInput = Type.Object({
  uid: Type.Optional(Uid),
  identifier: Type.Optional(Str),
  operator: Type.Optional(Str),
  operatorAccount: Type.Optional(Type.Union([Type.Object({ uid: Type.Optional(Type.String()) }), Type.Null()])),
  mobileNumber: Type.Optional(Str),
  networkIdentifier: Type.Optional(Str),
  ipAddress: Type.Optional(Str),
  requestedIp: Type.Optional(Str),
  eid: Type.Optional(Str),
  state: Type.Optional(NullableEnum(SUBSCRIPTION_STATES)),
  appletGeneration: Type.Optional(NullableEnum(APPLET_GENERATIONS)),
  formFactor: Type.Optional(NullableEnum(FORM_FACTORS)),
  confType: Type.Optional(NullableEnum(CONF_TYPES)),
  technology: Type.Optional(NullableEnum(TECHNOLOGIES)),
  orderId: Type.Optional(Str),
  productRefName: Type.Optional(Str),
  activationImei: Type.Optional(Str),
  imeiLock: Type.Optional(Type.Union([Type.Object({
    imeiLock: Type.Optional(Type.Union([Type.Boolean(), Type.String(), Type.Null()])),
    imeiLockDate: Type.Optional(Type.Union([EpochTimeInt(), Type.Null()])),
    imeiUnlockedDate: Type.Optional(Type.Union([EpochTimeInt(), Type.Null()]))
  }), Type.Null()]))
})

const Communication = Type.Object({
  msci: Type.Optional(Type.Union([Type.Object({ host: Type.Optional(Str), user: Type.Optional(Str), password: Type.Optional(Str) }), Type.Null()])),
  m3da: Type.Optional(Type.Union([Type.Object({ registrationPassword: Type.Optional(Str), password: Type.Optional(Str) }), Type.Null()])),
  rest: Type.Optional(Type.Union([Type.Object({ password: Type.Optional(Str) }), Type.Null()])),
  mqtt: Type.Optional(Type.Union([Type.Object({ password: Type.Optional(Str) }), Type.Null()])),
  lwm2m: Type.Optional(Type.Union([Type.Object({ pskIdentity: Type.Optional(Str), pskSecretHex: Type.Optional(Str) }), Type.Null()]))
})

/** A System fragment (docs/api.md#systems); read-only fields are accepted and ignored. */
export const SystemBody = Type.Object({
  name: Type.Optional(Str),
  type: Type.Optional(Str),
  labels: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()])),
  metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()])),
  communication: Type.Optional(Type.Union([Communication, Type.Null()])),
  lifeCycleState: Type.Optional(Type.Enum([...LIFE_CYCLE_STATES])),
  state: Type.Optional(Type.Enum([...SYSTEM_STATES])),
  gateway: Type.Optional(Type.Union([GatewayInput, Type.Null()])),
  subscription: Type.Optional(Type.Union([SubscriptionInput, Type.Null()])),
  applications: Type.Optional(Type.Union([Type.Array(Type.Object({ uid: Type.Optional(Type.String()) })), Type.Null()]))
}, {
  description: 'The fields to set: a gateway or subscription by uid links an existing one, with other fields creates it',
  examples: [{ name: 'Truck 12', type: 'tracker', labels: ['north'], gateway: { imei: '359377060000001', serialNumber: 'LL0000000001' }, subscription: { identifier: '89330123456789012345', operator: 'UNKNOWN' }, communication: { mqtt: { password: 'device-secret' } } }]
})

export { SystemListItem, SystemView } from './system-view.schema.js'

// lastCommAfter → "Last communication at or after this time": the bounds of docs/api.md#systems, inclusive.
const BOUND_NAMES: Record<string, string> = { lastComm: 'Last communication', creation: 'Creation', activation: 'Activation', lastStateChange: 'Last change of life cycle state', lastSync: 'Last synchronisation' }
const boundDescription = (b: string): string => {
  const m = /^(.*)(After|Before)$/.exec(b) ?? ['', b, 'After']
  return `${BOUND_NAMES[m[1] ?? ''] ?? m[1]} at or ${m[2] === 'After' ? 'after' : 'before'} this time (epoch ms; seconds and microseconds are converted)`
}
const dateBounds = Object.fromEntries(DATE_BOUNDS.map((b) => [b, Type.Optional(EpochTimeInt({ description: boundDescription(b) }))]))

export const SystemFindQuery = Type.Object({
  company: Type.Optional(CompanyParam),
  uid: Type.Optional(listParam('Systems with these uids')),
  labels: Type.Optional(listParam('Systems with any of these labels')),
  name: Type.Optional(Type.String({ description: 'Name contains this text' })),
  states: Type.Optional(listParam('Deprecated state in this list', SYSTEM_STATES)),
  lifeCycleStates: Type.Optional(listParam('Life cycle state in this list', LIFE_CYCLE_STATES)),
  activityStates: Type.Optional(listParam('Deprecated activity state in this list', ACTIVITY_STATES)),
  metadata: Type.Optional(listParam('Metadata: name:value pairs; the name is equal, the value contains the text')),
  commStatus: Type.Optional(listParam('Communication status', COMM_STATUSES)),
  syncStatus: Type.Optional(listParam('Synchronisation status', SYNC_STATUSES)),
  lastAppliedTemplate: Type.Optional(Type.String({ description: 'Name of the last template applied' })),
  lastConfigName: Type.Optional(Type.String({ description: 'Name of the last configuration' })),
  type: Type.Optional(Type.String({ description: 'Type contains this text' })),
  application: Type.Optional(listParam(`Has an application matching key:value pairs; keys ${APPLICATION_KEYS.join(', ')} (uid equal, others contain)`)),
  gateway: Type.Optional(listParam(`Gateway matching key:value pairs; keys ${GATEWAY_KEYS.join(', ')} (uid equal, others contain)`)),
  subscription: Type.Optional(listParam(`Subscription matching key:value pairs; keys ${SUBSCRIPTION_KEYS.join(', ')}`)),
  data: Type.Optional(listParam(`System data equal to key:value pairs; keys ${DATA_KEYS.join(', ')}`)),
  usageStatus: Type.Optional(Type.Enum(['WITHIN_PLAN', 'NEARING_PLAN', 'EXCEEDING_PLAN'], { description: 'Data usage of the month against the offer' })),
  offer: Type.Optional(Type.String({ description: 'uid of the offer of the system' })),
  notOffer: Type.Optional(Type.String({ description: 'Systems without this offer (uid)' })),
  options: Type.Optional(listParam('Systems with at least one active option of these (uids)')),
  notOptions: Type.Optional(listParam('Systems with no active option of these (uids)')),
  ...dateBounds,
  ...PageQuery,
  fields: Type.Optional(listParam('Attributes to return (all when absent)', SYSTEM_FIELDS)),
  orderBy: Type.Optional(listParam('Sort order <field>[:asc|:desc] (default creationDate); fields: ' + SYSTEM_SORTS.join(', ')))
})

export const DeleteQuery = Type.Object({
  company: Type.Optional(CompanyParam),
  deleteGateway: Type.Optional(Type.Boolean({ description: 'Also delete the gateway of the system', ...documented({ default: false }) })),
  deleteSubscription: Type.Optional(Type.Boolean({ description: 'Also delete the subscription of the system', ...documented({ default: false }) }))
})

export const SystemOptionView = Type.Object({
  type: Type.String({ description: 'ROAMING, GENERAL, SERVICE...' }),
  uid: Type.String({ description: 'uid of the option' }),
  name: Type.String({ description: 'Name' }),
  config: Type.Optional(Type.String({ description: 'DATA_ONLY on an LTE option, STATIC_IP on an APN option' }))
}, { description: 'A network option of the system' })
