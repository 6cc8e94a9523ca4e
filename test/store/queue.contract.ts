// The conformance suite of the JobQueue port (core/ports/queue.ts), run against every adapter (docs/testing.md,
// BullMQ's adapter-conformance idea): the local queue on PGlite and on PostgreSQL, BullMQ on Redis.
import { afterAll, beforeAll, describe, it } from 'vitest'
import type { QueueBackend, QueueHarness } from './queue-harness.js'
import { JOB_CASES } from './queue-jobs.cases.js'
import { REPEAT_CASES } from './queue-repeat.cases.js'

export { until, type QueueBackend, type QueueHarness } from './queue-harness.js'

export function describeQueueContract (name: string, openBackend: () => Promise<QueueBackend>): void {
  describe(`JobQueue contract: ${name}`, () => {
    let backend: QueueBackend | undefined
    beforeAll(async () => { backend = await openBackend() })
    afterAll(async () => { await backend?.close() })

    function harness (): QueueHarness {
      if (backend === undefined) throw new Error('the backend did not open')
      return backend.namespace()
    }

    for (const [title, run] of Object.entries({ ...JOB_CASES, ...REPEAT_CASES })) it(title, async () => { await run(harness) })
  })
}
