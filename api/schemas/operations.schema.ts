import { Type } from 'typebox'
import { CompanyParam, listParam, PageQuery } from './common.schema.js'
import { EpochTimeInt } from './numbers.schema.js'
import { OPERATION_STATES, OPERATION_TYPES, TASK_STATES } from '../../core/domain/operation.js'
import { APPLICATION_KEYS, DATA_KEYS, DATE_BOUNDS, GATEWAY_KEYS, SUBSCRIPTION_KEYS } from '../../core/domain/system-criteria.js'

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([Type.Null(), t])
const Flag = Type.Optional(Type.Union([Type.Null(), Type.Boolean()]))
const Time = Type.Optional(Type.Union([Type.Null(), EpochTimeInt()]))

/** fleet-api.md §Common operation parameters. */
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
}, {
  description: 'Add or remove labels on the systems chosen by criteria, dependsOn or identifiers (all the company\'s systems when none is set)',
  examples: [{ labels: { add: ['north'], remove: ['south'] }, criteria: { lifeCycleStates: ['ACTIVE'] }, notify: false }]
})

export const DeleteBody = Type.Object({
  ...Common,
  systems: Type.Optional(Type.Union([Type.Null(), Selection])),
  deleteGateways: Flag,
  deleteSubscriptions: Flag
}, {
  description: 'Delete the selected systems, and their gateways and subscriptions when asked',
  examples: [{ systems: { uids: ['3f9c2b7a1d4e4f6a8b0c2d4e6f8a0b1c'] }, deleteGateways: false, deleteSubscriptions: false }]
})

/** fleet-api.md §Export data history. */
export const ExportBody = Type.Object({
  notify: Flag,
  callback: Type.Optional(Nullable(Type.String())),
  dataset: Type.Optional(Nullable(Type.String())),
  data: Type.Optional(Type.Union([Type.Null(), Type.Array(Type.String())])),
  fromDate: Time,
  toDate: Time
}, {
  description: 'Export the data history of the system to a CSV file: a dataset or data ids (at most 200)',
  examples: [{ data: ['machine.temperature', '_RSSI'], fromDate: 1767225600000, toDate: 1767830400000 }]
})

/** fleet-api.md §Transfer: notify, callback, destination, systems, offerId. */
export const TransferBody = Type.Object({
  notify: Flag,
  callback: Type.Optional(Nullable(Type.String())),
  destination: Type.Optional(Nullable(Type.String())),
  systems: Type.Optional(Type.Union([Type.Null(), Selection])),
  offerId: Type.Optional(Nullable(Type.String()))
}, {
  description: 'Move the selected systems to a partner company',
  examples: [{ destination: '1c3f9c2b7a1d4e4f6a8b0c2d4e6f8a0b', systems: { label: 'north' } }]
})

/** fleet-api.md §Swap SIM: systems maps a source identifier to a target identifier. */
export const SwapSimBody = Type.Object({
  notify: Flag,
  callback: Type.Optional(Nullable(Type.String())),
  identifierType: Type.Optional(Nullable(Type.String())),
  systems: Type.Optional(Type.Union([Type.Null(), Type.Record(Type.String(), Type.String())]))
}, {
  description: 'Move the SIM of each source system (key) to its target system (value)',
  examples: [{ identifierType: 'uid', systems: { '3f9c2b7a1d4e4f6a8b0c2d4e6f8a0b1c': '6f8a0b1c3f9c2b7a1d4e4f6a8b0c2d4e' } }]
})

export { OperationRef, OperationView, TaskView } from './operation-view.schema.js'

/** conventions.md §Operations: the filters of GET /operations; sorted newest first. */
export const OperationListQuery = Type.Object({
  company: Type.Optional(CompanyParam),
  uid: Type.Optional(listParam('Operations with these uids')),
  states: Type.Optional(listParam('Operation state', OPERATION_STATES)),
  operationTypes: Type.Optional(listParam('Kind of operation', OPERATION_TYPES)),
  entities: Type.Optional(listParam('What the operation works on', ['SYSTEM'])),
  target: Type.Optional(Type.String({ description: 'uid of a system: operations on that system alone (export)' })),
  user: Type.Optional(Type.String({ description: 'E-mail of the user who created the operation' })),
  createdAfter: Type.Optional(EpochTimeInt({ description: 'Created at or after this time (epoch ms; seconds and microseconds are converted)' })),
  createdBefore: Type.Optional(EpochTimeInt({ description: 'Created at or before this time (epoch ms; seconds and microseconds are converted)' })),
  offset: PageQuery.offset,
  size: PageQuery.size
})

export const TaskListQuery = Type.Object({
  company: Type.Optional(CompanyParam),
  states: Type.Optional(listParam('Task state', TASK_STATES)),
  offset: PageQuery.offset,
  size: PageQuery.size
})

/** The file of GET /operations/{uid}/file: sent as is, never serialized (a Buffer skips the serializer). */
export const FileResponse = Type.Unsafe<Buffer>({
  description: 'The CSV file (attachment)',
  content: { 'text/csv': { schema: { type: 'string', format: 'binary' } } }
})
