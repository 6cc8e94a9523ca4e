// A scratch database on a PostgreSQL server, created for one benchmark and dropped after it.
import { randomBytes } from 'node:crypto'
import pg from 'pg'

export interface ScratchDatabase { url: string, drop (): Promise<void> }

async function admin (serverUrl: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: serverUrl })
  await c.connect()
  try { await c.query(sql) } finally { await c.end() }
}

export async function createScratchDatabase (serverUrl: string, prefix: string): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`
  await admin(serverUrl, `CREATE DATABASE ${name}`)
  const u = new URL(serverUrl)
  u.pathname = '/' + name
  return {
    url: u.toString(),
    async drop () { await admin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) }
  }
}
