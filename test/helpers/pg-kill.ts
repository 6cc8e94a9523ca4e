// Terminates the service's PostgreSQL sessions, as an operator's pg_terminate_backend or a server restart would
// (a lost connection must not end the process). Only sessions of the test's own database and of the
// service's application_name are touched, so other test files and other users of the server are left alone.
import pg from 'pg'
import type { Db } from '../../core/ports/store.js'
import { TEST_DATABASE_URL, databaseUrl } from './env.js'

export interface Killer {
  /** Terminates the service's sessions; answers how many were terminated and how many of those were busy. */
  terminate (): Promise<{ killed: number, busy: number }>
  close (): Promise<void>
}

/**
 * A separate session on the database `target` is connected to (or at that URL); it terminates the sessions named
 * applicationName there, or every other session when null (a database only the service uses).
 */
export async function openKiller (target: Db | string, applicationName: string | null = 'fleet'): Promise<Killer> {
  if (TEST_DATABASE_URL === undefined) throw new Error('TEST_DATABASE_URL is not set')
  const name = async (db: Db): Promise<string> => (await db.query<{ name: string }>('SELECT current_database() AS name')).rows[0]?.name ?? ''
  const url = typeof target === 'string' ? target : databaseUrl(TEST_DATABASE_URL, await name(target))
  const client = new pg.Client({ connectionString: url, application_name: 'fleet-test-killer' })
  await client.connect()
  return {
    async terminate () {
      // busy: running a statement or inside a transaction ('idle in transaction'), not waiting idle in the pool.
      const res = await client.query<{ killed: number, busy: number }>(
        `SELECT count(*)::int AS killed, count(*) FILTER (WHERE state <> 'idle')::int AS busy
           FROM (SELECT state, pg_terminate_backend(pid) FROM pg_stat_activity
                  WHERE datname = current_database() AND ($1::text IS NULL OR application_name = $1)
                    AND pid <> pg_backend_pid()) AS t`,
        [applicationName])
      return res.rows[0] ?? { killed: 0, busy: 0 }
    },
    async close () { await client.end() }
  }
}
