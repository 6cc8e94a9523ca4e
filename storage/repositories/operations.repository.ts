// The operations repository over a Queryable: the operations, their tasks (reads and writes), their files, the
// state of their rollouts.
import type { Queryable } from '../../core/ports/store.js'
import type { OperationsRepository } from '../../core/ports/operations.js'
import { createOperationRecords } from './operations/records.js'
import { createTaskReads } from './operations/task-reads.js'
import { createTaskWrites } from './operations/task-writes.js'
import { createOperationFiles } from './operations/files.js'
import { createRolloutState } from './operations/rollout-state.js'

export function createOperationsRepository (q: Queryable): OperationsRepository {
  return { ...createOperationRecords(q), ...createTaskReads(q), ...createTaskWrites(q), ...createOperationFiles(q), ...createRolloutState(q) }
}
