import { mkdir } from 'node:fs/promises'
import { dirname } from 'node:path'
import { Worker } from 'node:worker_threads'
import type { Db, Queryable, QueryResult } from '../core/ports/store.js'
import { lockDir, type DirLock } from './dir-lock.js'
import { errorOf, type Answer, type Ready, type Request, type WorkerInput } from './pglite-protocol.js'

// PGlite runs in a thread of its own (storage/pglite-worker.ts): its statements execute in WebAssembly, synchronously,
// and in the service's thread they held the event loop for as long as they ran. There the MQTT sessions, the HTTP
// requests and the store took turns on one core; in a worker the store has the other one (bench ingest on PGlite:
// see README §Benchmarks). The answers are the same: rows by structured clone, errors with their fields.

const ENTRY = new URL('./pglite-worker.mjs', import.meta.url)

type Pending = (a: Answer) => void
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never

/** The embedded store, and the image of its files that another in-memory store can start from. */
export interface PgliteDb extends Db {
  /** A tarball of the store's files now (PGlite's dumpDataDir): tests start each store from a migrated one. */
  image (): Promise<Uint8Array>
}

export interface PgliteOptions {
  /** An in-memory store starts from these files (an image()) instead of an empty cluster: no initdb. */
  image?: Uint8Array
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
  const worker = new Worker(ENTRY, { workerData })
  const pending = new Map<number, Pending>()
  let gone: Error | undefined
  const lost = (err: Error): void => {
    gone ??= err
    for (const settle of pending.values()) settle({ id: 0, ok: false, error: { message: gone.message, name: 'Error' } })
    pending.clear()
  }
  // Until the thread answers its first message, `opened` hears how the opening went; then the answers.
  let opened: ((err?: Error) => void) | undefined
  worker.on('message', (m: Answer | Ready) => {
    if ('ready' in m) { opened?.(m.ready ? undefined : errorOf(m.error)); return }
    const settle = pending.get(m.id)
    pending.delete(m.id)
    settle?.(m)
  })
  worker.on('error', (err) => { opened?.(err); lost(err) })
  worker.on('exit', (code) => {
    const err = new Error(`the PGlite thread exited (${code})`)
    opened?.(err)
    lost(err)
  })
  try {
    await new Promise<void>((resolve, reject) => { opened = (err) => { if (err === undefined) resolve(); else reject(err) } })
  } catch (err) {
    await worker.terminate()
    lock?.release()
    throw err
  } finally {
    opened = undefined
  }
  // The thread keeps the process alive only while a statement is waiting for it, as an in-thread store would.
  worker.unref()

  let nextId = 1
  let nextTx = 1
  // Statements and transactions sent and not answered yet (the store pool metric; PGlite runs one at a time).
  let inFlight = 0
  const call = async (r: WithoutId<Request>): Promise<Extract<Answer, { ok: true }>> => {
    if (gone !== undefined) throw gone
    const id = nextId++
    if (pending.size === 0) worker.ref()
    const answer = await new Promise<Answer>((resolve) => {
      pending.set(id, resolve)
      worker.postMessage({ ...r, id })
    })
    if (pending.size === 0) worker.unref()
    if (!answer.ok) throw errorOf(answer.error)
    return answer
  }
  const track = async <T>(run: () => Promise<T>): Promise<T> => {
    inFlight++
    try { return await run() } finally { inFlight-- }
  }
  const queryable = (tx?: number): Queryable => ({
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
  })
  const base = queryable()
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
          result = await fn(queryable(tx))
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
          if (gone === undefined) await call({ op: 'close' })
        } finally {
          await worker.terminate()
          lock?.release()
        }
      })()
      await closing
    }
  }
}
