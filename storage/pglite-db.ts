import { mkdir } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { Db, Queryable, QueryResult } from '../core/ports/store.js'
import { lockDir, type DirLock } from './dir-lock.js'
import type { WorkerInput } from './pglite-protocol.js'
import { startPgliteThread, type PgliteThread } from './pglite-thread.js'

// PGlite runs in a thread of its own (storage/pglite-worker.ts): its statements execute in WebAssembly, synchronously,
// and in the service's thread they held the event loop for as long as they ran. There the MQTT sessions, the HTTP
// requests and the store took turns on one core; in a worker the store has the other one (bench ingest on PGlite:
// see docs/benchmarks.md). The answers are the same: rows by structured clone, errors with their fields.

/** The embedded store, and the image of its files that another in-memory store can start from. */
export interface PgliteDb extends Db {
  /** A tarball of the store's files now (PGlite's dumpDataDir): tests start each store from a migrated one. */
  image (): Promise<Uint8Array>
}

export interface PgliteOptions {
  /** An in-memory store starts from these files (an image()) instead of an empty cluster: no initdb. */
  image?: Uint8Array
}

/** Statements sent to the thread, inside transaction `tx` when given. */
function queryableOf (call: PgliteThread['call'], tx?: number): Queryable {
  return {
    async query<R>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
      const a = await call({ op: 'query', sql, params, ...(tx === undefined ? {} : { tx }) })
      const rows = (a.rows ?? []) as Array<Record<string, unknown>>
      // Bytes cross as a Uint8Array; callers get the Buffer that pg answers.
      for (const column of a.bytea ?? []) {
        for (const row of rows) {
          const v = row[column]
          if (v instanceof Uint8Array) row[column] = Buffer.from(v.buffer, v.byteOffset, v.byteLength)
        }
      }
      return { rows: rows as R[], rowCount: a.rowCount ?? 0 }
    }
  }
}

/** PGlite in dataDir, or in memory when dataDir is undefined. */
export async function openPgliteDb (dataDir: string | undefined, opts: PgliteOptions = {}): Promise<PgliteDb> {
  if (dataDir !== undefined && opts.image !== undefined) throw new Error('an image starts an in-memory store only')
  let lock: DirLock | undefined
  if (dataDir !== undefined) {
    await mkdir(dataDir, { recursive: true })
    // Before PGlite touches a file: a second process on the same files corrupts them (storage/dir-lock.ts).
    lock = lockDir(`${dataDir}.lock`, dirname(dataDir))
  }
  const workerData: WorkerInput = { dataDir, ...(opts.image === undefined ? {} : { image: opts.image }) }
  let thread: PgliteThread
  try {
    thread = await startPgliteThread(workerData)
  } catch (err) {
    lock?.release()
    throw err
  }
  const call = thread.call

  let nextTx = 1
  // Statements and transactions sent and not answered yet (the store pool metric; PGlite runs one at a time).
  let inFlight = 0
  const track = async <T>(run: () => Promise<T>): Promise<T> => {
    inFlight++
    try { return await run() } finally { inFlight-- }
  }
  const base = queryableOf(call)
  let closing: Promise<void> | undefined
  return {
    kind: 'pglite',
    async query<R> (sql: string, params?: readonly unknown[]) { return await track(async () => await base.query<R>(sql, params)) },
    async exec (sql) { await track(async () => { await call({ op: 'exec', sql }) }) },
    async transaction (fn) {
      return await track(async () => {
        // The statements go at once, without waiting for BEGIN's answer: the thread runs them once BEGIN ran (in the
        // order sent), or fails them with BEGIN's error.
        const tx = nextTx++
        const begun = call({ op: 'begin', tx })
        begun.catch(() => {})
        let result
        try {
          result = await fn(queryableOf(call, tx))
          await begun
        } catch (err) {
          if (await begun.then(() => true, () => false)) await call({ op: 'end', tx, commit: false }).catch(() => {})
          throw err
        }
        await call({ op: 'end', tx, commit: true })
        return result
      })
    },
    async image () {
      const { image } = await call({ op: 'image' })
      if (image === undefined) throw new Error('the PGlite thread sent no image')
      return image
    },
    poolStats: () => ({ total: 1, idle: inFlight === 0 ? 1 : 0, waiting: Math.max(0, inFlight - 1), inFlight }),
    async close () {
      closing ??= (async () => {
        try {
          if (thread.gone() === undefined) await call({ op: 'close' })
        } finally {
          await thread.terminate()
          lock?.release()
        }
      })()
      await closing
    }
  }
}
