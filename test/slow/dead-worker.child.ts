// A worker process for queue-on-servers.test.ts: works the local queue on a PostgreSQL database, says
// "started <job id>" when its handler begins, and never finishes, until the test kills it with SIGKILL.
// argv: <database url> <queue namespace> <lease ms>
import { openPostgresDb } from '../../storage/postgres-db.js'
import { createLocalQueue } from '../../storage/queue/local-queue.js'

const [url, queue, lease] = process.argv.slice(2)
if (url === undefined || queue === undefined || lease === undefined) throw new Error('usage: <db url> <queue> <lease ms>')
const db = await openPostgresDb(url, 2)
const q = createLocalQueue(db, { queue, leaseMs: Number(lease), pollMs: 20 })
await q.work({
  hang: async (_payload, job) => {
    process.stdout.write(`started ${job.id} ${job.attempt}\n`)
    await new Promise(() => {})
  }
}, { concurrency: 1 })
process.stdout.write('ready\n')
