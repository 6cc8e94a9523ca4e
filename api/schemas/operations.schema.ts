import { Type } from 'typebox'
import { CompanyParam, listParam, PageQuery } from './common.schema.js'
import { EpochTimeInt } from './numbers.schema.js'
export { Common, Criteria, DependsOn, Selection } from '../../core/operations/body.schema.js'
import { OPERATION_STATES, OPERATION_TYPES, TASK_STATES } from '../../core/domain/operation.js'

export { OperationRef, OperationView, TaskView } from './operation-view.schema.js'

/** docs/operations.md#bulk-operations: the filters of GET /operations; sorted newest first. */
export const OperationListQuery = Type.Object({
  company: Type.Optional(CompanyParam),
  uid: Type.Optional(listParam('Operations with these uids')),
  states: Type.Optional(listParam('Operation state', OPERATION_STATES)),
  operationTypes: Type.Optional(listParam('Kind of operation', OPERATION_TYPES)),
  entities: Type.Optional(listParam('What the operation works on: SYSTEM, or APPLICATION (release, publish)', ['SYSTEM', 'APPLICATION'])),
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
