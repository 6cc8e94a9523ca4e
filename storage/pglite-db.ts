import { mkdir } from 'node:fs/promises'
import { dirname } from 'node:path'
import { PGlite, types } from '@electric-sql/pglite'
import { pg_trgm as pgTrgm } from '@electric-sql/pglite/contrib/pg_trgm'
import type { Db, Queryable, QueryResult } from '../core/ports/store.js'
import { lockDir, type DirLock } from './dir-lock.js'

// int8 and numeric come back as JS numbers on both adapters: timestamps are epoch ms in bigint columns,
// well inside Number's safe range (shared/spec/conventions.md §HTTP basics: timestamps are epoch ms).
// bytea comes back as a Buffer, as pg answers it (text format '\\x<hex>').
const parsers = {
  [types.INT8]: Number,
  [types.NUMERIC]: Number,
  [types.BYTEA]: (x: string) => Buffer.from(x.slice(2), 'hex')
}

function wrap (q: Pick<PGlite, 'query'>): Queryable {
  return {
    async query<R>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
      const res = await q.query<R>(sql, params as unknown[], { parsers })
      // PGlite reports affectedRows 0 for a SELECT; pg's rowCount is the rows answered (test/contracts/db.contract.ts).
      const returnsRows = res.fields.length > 0
      return { rows: res.rows, rowCount: returnsRows ? res.rows.length : res.affectedRows ?? 0 }
    }
  }
}

/** PGlite in dataDir, or in memory when dataDir is undefined. */
export async function openPgliteDb (dataDir: string | undefined): Promise<Db> {
  let lock: DirLock | undefined
  if (dataDir !== undefined) {
    await mkdir(dataDir, { recursive: true })
    // Before PGlite touches a file: a second process on the same files corrupts them (storage/dir-lock.ts).
    lock = lockDir(`${dataDir}.lock`, dirname(dataDir))
  }
  let pg: PGlite
  try {
    // pg_trgm: the trigram indexes of the find filters (storage/migrations/0003_find_indexes.sql).
    pg = await PGlite.create({ ...(dataDir === undefined ? {} : { dataDir }), extensions: { pg_trgm: pgTrgm } })
  } catch (err) {
    lock?.release()
    throw err
  }
  const base = wrap(pg)
  // Statements and transactions sent and not answered yet (the store pool metric; PGlite runs one at a time).
  let inFlight = 0
  const track = async <T>(run: () => Promise<T>): Promise<T> => {
    inFlight++
    try { return await run() } finally { inFlight-- }
  }
  return {
    kind: 'pglite',
    async query<R> (sql: string, params?: readonly unknown[]) { return await track(async () => await base.query<R>(sql, params)) },
    async exec (sql) { await track(async () => { await pg.exec(sql) }) },
    async transaction (fn) { return await track(async () => await pg.transaction(async (tx) => await fn(wrap(tx)))) },
    poolStats: () => ({ total: 1, idle: inFlight === 0 ? 1 : 0, waiting: Math.max(0, inFlight - 1), inFlight }),
    async close () {
      if (!pg.closed) await pg.close()
      lock?.release()
    }
  }
}
