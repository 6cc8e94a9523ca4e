import pg from 'pg'
import type { Db, Queryable, QueryResult } from '../core/ports.js'

const NUMBER_OIDS = new Set([20, 1700]) // int8, numeric: see storage/pglite-db.ts

function getTypeParser (oid: number, format?: string): (v: string) => unknown {
  if (NUMBER_OIDS.has(oid)) return Number
  return pg.types.getTypeParser(oid, format as 'text')
}

function wrap (q: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query<R>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
      const res = await q.query(sql, params as unknown[])
      return { rows: res.rows as R[], rowCount: res.rowCount ?? res.rows.length }
    }
  }
}

/** A pool on a PostgreSQL server. */
export async function openPostgresDb (url: string, max = 10): Promise<Db> {
  const pool = new pg.Pool({ connectionString: url, max, types: { getTypeParser } as pg.CustomTypesConfig })
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => {})
  await pool.query('SELECT 1')
  const base = wrap(pool)
  let closed = false
  return {
    kind: 'postgres',
    query: base.query,
    async exec (sql) { await pool.query(sql) },
    async transaction (fn) {
      const client = await pool.connect()
      try {
        await client.query('BEGIN')
        const out = await fn(wrap(client))
        await client.query('COMMIT')
        return out
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {})
        throw err
      } finally {
        client.release()
      }
    },
    async close () { if (!closed) { closed = true; await pool.end() } }
  }
}
