// The request bodies shared by the operation types (docs/operations.md#bulk-operations);
// each type declares its own body in its file (core/operations/kinds/).
import { Type } from 'typebox'
import { EpochTimeInt } from '../schemas/numbers.schema.js'
import { APPLICATION_KEYS, DATA_KEYS, DATE_BOUNDS, GATEWAY_KEYS, SUBSCRIPTION_KEYS } from '../domain/system-criteria.js'

export const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([Type.Null(), t])
export const Flag = Type.Optional(Type.Union([Type.Null(), Type.Boolean()]))
export const Time = Type.Optional(Type.Union([Type.Null(), EpochTimeInt()]))

/** docs/operations.md#bulk-operations. */
export const Common = {
  notify: Type.Optional(Type.Union([Type.Null(), Type.Boolean()], { description: 'E-mail the caller when the operation finishes (default false)' })),
  callback: Type.Optional(Type.Union([Type.Null(), Type.String()], { description: 'URL POSTed on every change of the operation state; user:password@ in it becomes HTTP Basic' })),
  scheduledTime: Type.Optional(Type.Union([Type.Null(), EpochTimeInt()], { description: 'Start time, less than 90 days ahead (epoch ms); null starts at once' })),
  timeout: Type.Optional(Type.Union([Type.Null(), EpochTimeInt()], { description: 'Tasks not finished by then fail (epoch ms, not before scheduledTime); null: 7 days' })),
  requestConnection: Type.Optional(Type.Union([Type.Null(), Type.Boolean()], { description: 'Ask the devices to connect (SMS shoulder tap) when possible (default false)' }))
}

const Strings = Type.Optional(Type.Array(Type.String()))
const Str = Type.Optional(Type.String())
const keyed = (keys: readonly string[]) => Type.Optional(Type.Object(Object.fromEntries(keys.map((k) => [k, Str]))))
const bounds = Object.fromEntries(DATE_BOUNDS.map((b) => [b, Type.Optional(EpochTimeInt())]))

/** docs/operations.md#bulk-operations: criteria fields and nested criteria. */
export const Criteria = Type.Object({
  uids: Strings,
  labels: Strings,
  name: Str,
  states: Strings,
  lifeCycleStates: Strings,
  activityStates: Strings,
  type: Str,
  lastAppliedTemplate: Str,
  lastConfigName: Str,
  commStatus: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
  syncStatus: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
  metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
  application: keyed(APPLICATION_KEYS),
  gateway: keyed(GATEWAY_KEYS),
  subscription: keyed(SUBSCRIPTION_KEYS),
  data: keyed(DATA_KEYS),
  ...bounds
})
export const DependsOn = Type.Object({
  operation: Type.Optional(Nullable(Type.String())),
  states: Type.Optional(Type.Union([Type.Null(), Type.Array(Type.String())]))
})

/** docs/operations.md#bulk-operations. */
export const Selection = Type.Object({
  label: Type.Optional(Nullable(Type.String())),
  uids: Type.Optional(Type.Union([Type.Null(), Type.Array(Type.String())])),
  dependsOn: Type.Optional(Type.Union([Type.Null(), DependsOn])),
  criteria: Type.Optional(Type.Union([Type.Null(), Criteria]))
})
