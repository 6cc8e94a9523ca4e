import { Type } from 'typebox'
import { ListParam, Uid } from './common.schema.js'
import { APPLICATION_KEYS, DATA_KEYS, DATE_BOUNDS, GATEWAY_KEYS, SUBSCRIPTION_KEYS } from '../../core/domain/system-criteria.js'

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([Type.Null(), t])
const Flag = Type.Optional(Type.Union([Type.Null(), Type.Boolean()]))
const Time = Type.Optional(Type.Union([Type.Null(), Type.Integer()]))

/** fleet-api.md §Common operation parameters. */
export const Common = {
  notify: Flag,
  callback: Type.Optional(Nullable(Type.String())),
  scheduledTime: Time,
  timeout: Time,
  requestConnection: Flag
}

const Strings = Type.Optional(Type.Array(Type.String()))
const Str = Type.Optional(Type.String())
const keyed = (keys: readonly string[]) => Type.Optional(Type.Object(Object.fromEntries(keys.map((k) => [k, Str]))))
const bounds = Object.fromEntries(DATE_BOUNDS.map((b) => [b, Type.Optional(Type.Integer())]))

/** fleet-api.md §System selection: criteria fields and nested criteria. */
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

/** fleet-api.md §System selection. */
export const Selection = Type.Object({
  label: Type.Optional(Nullable(Type.String())),
  uids: Type.Optional(Type.Union([Type.Null(), Type.Array(Type.String())])),
  dependsOn: Type.Optional(Type.Union([Type.Null(), DependsOn])),
  criteria: Type.Optional(Type.Union([Type.Null(), Criteria]))
})

export const LabelBody = Type.Object({
  ...Common,
  labels: Type.Optional(Type.Union([Type.Null(), Type.Object({
    add: Type.Optional(Type.Union([Type.Null(), Type.Array(Type.String())])),
    remove: Type.Optional(Type.Union([Type.Null(), Type.Array(Type.String())]))
  })])),
  criteria: Type.Optional(Type.Union([Type.Null(), Criteria])),
  dependsOn: Type.Optional(Type.Union([Type.Null(), DependsOn])),
  identifiers: Type.Optional(Type.Union([Type.Null(), Type.Record(Type.String(), Type.Array(Type.String()))]))
})

export const DeleteBody = Type.Object({
  ...Common,
  systems: Type.Optional(Type.Union([Type.Null(), Selection])),
  deleteGateways: Flag,
  deleteSubscriptions: Flag
})

/** fleet-api.md §Export data history. */
export const ExportBody = Type.Object({
  notify: Flag,
  callback: Type.Optional(Nullable(Type.String())),
  dataset: Type.Optional(Nullable(Type.String())),
  data: Type.Optional(Type.Union([Type.Null(), Type.Array(Type.String())])),
  fromDate: Time,
  toDate: Time
})

/** fleet-api.md §Transfer: notify, callback, destination, systems, offerId. */
export const TransferBody = Type.Object({
  notify: Flag,
  callback: Type.Optional(Nullable(Type.String())),
  destination: Type.Optional(Nullable(Type.String())),
  systems: Type.Optional(Type.Union([Type.Null(), Selection])),
  offerId: Type.Optional(Nullable(Type.String()))
})

/** fleet-api.md §Swap SIM: systems maps a source identifier to a target identifier. */
export const SwapSimBody = Type.Object({
  notify: Flag,
  callback: Type.Optional(Nullable(Type.String())),
  identifierType: Type.Optional(Nullable(Type.String())),
  systems: Type.Optional(Type.Union([Type.Null(), Type.Record(Type.String(), Type.String())]))
})

export const OperationRef = Type.Object({ operation: Type.String() })
export const OperationView = Type.Object({}, { additionalProperties: true, description: 'conventions.md §Operations: the operation JSON' })

export const OperationListQuery = Type.Object({
  company: Type.Optional(Uid),
  uid: Type.Optional(ListParam),
  states: Type.Optional(ListParam),
  operationTypes: Type.Optional(ListParam),
  entities: Type.Optional(ListParam),
  target: Type.Optional(Type.String()),
  user: Type.Optional(Type.String()),
  createdAfter: Type.Optional(Type.Integer()),
  createdBefore: Type.Optional(Type.Integer()),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  size: Type.Optional(Type.Integer({ minimum: 0 }))
})

export const TaskListQuery = Type.Object({
  company: Type.Optional(Uid),
  states: Type.Optional(ListParam),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  size: Type.Optional(Type.Integer({ minimum: 0 }))
})
