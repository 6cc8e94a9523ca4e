// The operations engine's metrics: tasks by the state the engine gave them, and the work still to do.
import { noMetrics, type MetricsRegistry } from '../../metrics.js'
import type { Repositories } from '../../ports/repositories.js'
import type { OperationType } from '../../domain/operation.js'
import type { TaskResult } from '../../ports/operations.js'

export function taskMetrics ({ repos, metrics = noMetrics }: { repos: Repositories, metrics?: MetricsRegistry }): {
  countTasks: (type: OperationType, results: readonly TaskResult[]) => void
} {
  // Tasks by the state the engine gave them (SUCCESS, FAILURE...), per operation type (docs/monitoring.md).
  const finishedTasks = metrics.counter<'type' | 'state'>({
    name: 'fleet_operation_tasks_total', help: 'Operation tasks that reached a state, by operation type and state', labels: ['type', 'state']
  })
  // The work still to do: tasks of the operations not FINISHED yet, read from the store at scrape time.
  metrics.gauge<'type' | 'state'>({
    name: 'fleet_operation_tasks_open',
    help: 'Tasks of the operations not finished yet, by operation type and task state',
    labels: ['type', 'state'],
    collect: async () => {
      const ops = await repos.operations.unfinished()
      const counts = await repos.operations.counts(ops.map((o) => o.uid))
      const sums = new Map<string, { type: string, state: string, value: number }>()
      for (const op of ops) {
        for (const [state, n] of Object.entries(counts.get(op.uid) ?? {})) {
          const key = `${op.type} ${state}`
          const s = sums.get(key) ?? { type: op.type, state, value: 0 }
          s.value += n ?? 0
          sums.set(key, s)
        }
      }
      return [...sums.values()].map(({ type, state, value }) => ({ labels: { type, state }, value }))
    }
  })
  return {
    countTasks: (type, results) => {
      for (const r of results) finishedTasks.inc({ type, state: r.state })
    }
  }
}
