// The JobQueue contract (queue.contract.ts) against every adapter. The PostgreSQL and Redis runs need
// TEST_DATABASE_URL / TEST_REDIS_URL; without them they are skipped locally, but with CI=true they run and
// fail (a CI run never passes by skipping the servers: docs/testing.md).
import { randomUUID } from 'node:crypto'
import { Queue, Worker } from 'bullmq'
import { createLocalQueue } from '../../storage/queue/local-queue.js'
import { createBullmqQueue } from '../../storage/queue/bullmq-queue.js'
import { createTestDb } from '../helpers/test-db.js'
import { EMBEDDED_RUN, TEST_DATABASE_URL, TEST_REDIS_URL } from '../helpers/env.js'
import { describeQueueContract, type QueueBackend } from './queue.contract.js'

// The one environment read of this file: whether this is a CI run (test/helpers/env.ts holds the server URLs).
const CI = process.env.CI === 'true'

const LEASE_MS = 1000
const BACKOFF_MS = 50
const POLL_MS = 20

async function localBackend (kind: 'pglite' | 'postgres'): Promise<QueueBackend> {
  const { db, drop } = await createTestDb(kind) // 'postgres' throws without TEST_DATABASE_URL
  return {
    namespace () {
      const queue = `q-${randomUUID()}`
      return {
        leaseMs: LEASE_MS,
        backoffMs: BACKOFF_MS,
        async open () {
          return createLocalQueue(db, { queue, leaseMs: LEASE_MS, pollMs: POLL_MS, backoffMs: BACKOFF_MS, onError: () => {} })
        },
        async claimAsDeadWorker (name, payload, jobId, attempts = 5) {
          // The row a claim leaves behind (attempt 1 started, leased), never renewed nor finished.
          const leaseEnd = Date.now() + LEASE_MS
          await db.query(
            `INSERT INTO jobs (queue, id, name, payload, run_at, attempt, max_attempts, locked_until, locked_by, created_at)
             VALUES ($1, $2, $3, $4::jsonb, $5, 1, $7, $6, 'dead-worker', $5)`,
            [queue, jobId, name, JSON.stringify(payload), Date.now(), leaseEnd, attempts])
          return leaseEnd
        }
      }
    },
    close: drop
  }
}

async function bullmqBackend (): Promise<QueueBackend> {
  if (TEST_REDIS_URL === undefined) throw new Error('TEST_REDIS_URL is not set: the BullMQ contract cannot run')
  const url = TEST_REDIS_URL
  const prefix = `test-${randomUUID()}` // one per file, obliterated after (docs/testing.md)
  const names: string[] = []
  return {
    namespace () {
      const name = `q-${randomUUID()}`
      names.push(name)
      const options = { url, prefix, name, leaseMs: LEASE_MS, backoffMs: BACKOFF_MS, onError: () => {} }
      return {
        leaseMs: LEASE_MS,
        backoffMs: BACKOFF_MS,
        async open () { return await createBullmqQueue(options) },
        async claimAsDeadWorker (jobName, payload, jobId, attempts = 5) {
          const producer = await createBullmqQueue(options)
          try { await producer.enqueue(jobName, payload, { jobId, attempts }) } finally { await producer.close() }
          // A worker that takes the job by hand and is gone: its lock is never renewed nor released.
          const dead = new Worker(name, null, { connection: { url }, prefix, lockDuration: LEASE_MS, autorun: false })
          const before = Date.now()
          try {
            const job = await dead.getNextJob('dead-worker-token')
            if (job === undefined) throw new Error('the dead worker found no job')
          } finally { await dead.close() }
          return before + LEASE_MS
        }
      }
    },
    async close () {
      for (const name of names) {
        const q = new Queue(name, { connection: { url }, prefix })
        try { await q.obliterate({ force: true }) } finally { await q.close() }
      }
    }
  }
}

if (EMBEDDED_RUN) describeQueueContract('local queue on PGlite', async () => await localBackend('pglite'))
if (TEST_DATABASE_URL !== undefined || CI) {
  describeQueueContract('local queue on PostgreSQL', async () => await localBackend('postgres'))
}
if (TEST_REDIS_URL !== undefined || CI) {
  describeQueueContract('BullMQ on Redis', bullmqBackend)
}
