import pg from 'pg'
import type { Db, Queryable, QueryResult } from '../core/ports/store.js'
import { StoreUnavailableError, isStoreUnavailable } from '../core/store-errors.js'
import { isFleetError } from '../core/errors.js'

const NUMBER_OIDS = new Set([20, 1700]) // int8, numeric: see storage/pglite-db.ts

function getTypeParser (oid: number, format?: string): (v: string) => unknown {
  if (NUMBER_OIDS.has(oid)) return Number
  return pg.types.getTypeParser(oid, format as 'text')
}

// A lost or refused connection, as opposed to an error of the statement (PostgreSQL Appendix A: class 08 connection
// exception; 57P01-57P03 the server shuts down or cannot take connections yet). pg reports a socket that closed
// under it without a SQLSTATE ("Connection terminated unexpectedly", "... is not queryable").
const LOST_STATES = new Set(['57P01', '57P02', '57P03'])
const SOCKET_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ENOTCONN', 'EHOSTUNREACH', 'ENETUNREACH'])
const LOST_MESSAGE = /connection terminated|not queryable|connection error/i

function isConnectionLoss (err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  if (typeof code === 'string' && (code.startsWith('08') || LOST_STATES.has(code) || SOCKET_CODES.has(code))) return true
  return typeof code !== 'string' && err instanceof Error && LOST_MESSAGE.test(err.message)
}

/** StoreUnavailableError for a lost connection (or any failure on a connection known lost), else err unchanged. */
function storeError (err: unknown, connectionLost = false): unknown {
  if (isStoreUnavailable(err) || isFleetError(err)) return err
  return connectionLost || isConnectionLoss(err) ? new StoreUnavailableError(err) : err
}

async function run<R> (q: pg.Pool | pg.PoolClient, sql: string, params: readonly unknown[]): Promise<QueryResult<R>> {
  try {
    const res = await q.query(sql, params as unknown[])
    return { rows: res.rows as R[], rowCount: res.rowCount ?? res.rows.length }
  } catch (err) { throw storeError(err) }
}

function wrap (q: pg.Pool): Queryable {
  return { query: async <R>(sql: string, params: readonly unknown[] = []) => await run<R>(q, sql, params) }
}

/**
 * A transaction's client, whose statements may be sent without waiting for the previous one's answer (core/settled.ts):
 * each goes to pg once the one before it is answered, in the order sent (pg's own queue of a busy client is
 * deprecated).
 */
function wrapClient (client: pg.PoolClient): Queryable {
  let tail: Promise<unknown> = Promise.resolve()
  return {
    async query<R>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
      const result = tail.then(async () => await run<R>(client, sql, params))
      tail = result.catch(() => {})
      return await result
    }
  }
}

/**
 * The `options` parameter of a connection URL, if any, and the URL without it: pg would take the URL's in place of
 * the service's, where they must come after them (a URL that does not parse as one has none).
 */
function splitOptions (url: string): { url: string, options: string | null } {
  try {
    const u = new URL(url)
    const options = u.searchParams.get('options')
    if (options === null) return { url, options }
    u.searchParams.delete('options')
    return { url: u.toString(), options }
  } catch { return { url, options: null } }
}

/** The service's session settings, before those of the URL's `options` (openPostgresDb). */
const SESSION_OPTIONS = '-c jit=off -c max_parallel_workers_per_gather=0'

/** A pool on a PostgreSQL server. */
export async function openPostgresDb (url: string, max = 10): Promise<Db> {
  // application_name (overridden by one in the URL) names the service's sessions in pg_stat_activity. JIT off: the
  // service's statements are short and their plans cheap, but the raw and aggregated reads of many series pass the
  // server's jit_above_cost and spent more compiling than running (bench query, raw 5 × 10 × 500: 103 ms with JIT,
  // 33 ms without). No parallel workers, for the same reason: the server starts them for each statement, and the
  // aggregated read of 50 systems × 10 ids over 30 days took 270–320 ms with two against 75–90 ms without (bench
  // query, PostgreSQL on 2 cores): the service's statements read indexes and rollups, small work that many callers
  // run at once, where a worker costs more than it shares. An `options` in the URL comes after, so that a
  // deployment can turn either back on.
  const own = splitOptions(url)
  const options = `${SESSION_OPTIONS}${own.options === null ? '' : ` ${own.options}`}`
  const pool = new pg.Pool({ connectionString: own.url, max, application_name: 'fleet', options, types: { getTypeParser } as pg.CustomTypesConfig })
  // An idle client that loses its connection must not crash the process: the pool drops it and opens another.
  pool.on('error', () => {})
  // Nor may a client between owners. The pool listens to a client only while it is idle, and each owner (pool.query,
  // transaction below) while it holds it; a server's termination notice that reaches a client outside those windows
  // was an uncaught exception (seen once in CI, the server-backed store-connection-loss test, PostgreSQL 57P01). The
  // owners' listeners still see every error; this one only keeps an unheard one from ending the process, and the
  // client's next statement fails as a lost connection, which the callers retry.
  pool.on('connect', (client) => { client.on('error', () => {}) })
  await pool.query('SELECT 1')
  const base = wrap(pool)
  let closed = false
  return {
    kind: 'postgres',
    query: base.query,
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, inFlight: pool.totalCount - pool.idleCount }),
    async exec (sql) { try { await pool.query(sql) } catch (err) { throw storeError(err) } },
    async transaction (fn) {
      let client: pg.PoolClient
      try { client = await pool.connect() } catch (err) { throw storeError(err) }
      // A checked-out client has no listener of the pool's: a connection lost now (the server restarts, the backend
      // is terminated) emits 'error' on it, which without this listener is an uncaught exception that ends the
      // process. Noted instead: the statement running fails, the transaction rejects and the client leaves the pool.
      let lost: Error | undefined
      const onError = (err: Error): void => { lost ??= err }
      client.on('error', onError)
      try {
        await client.query('BEGIN')
        const out = await fn(wrapClient(client))
        await client.query('COMMIT')
        return out
      } catch (err) {
        if (lost === undefined) await client.query('ROLLBACK').catch(() => {})
        throw storeError(err, lost !== undefined)
      } finally {
        // release(err) closes a broken connection instead of handing it to the next caller; the pool then has the
        // idle listener on the client again, so this one can go.
        client.release(lost)
        client.off('error', onError)
      }
    },
    async close () { if (!closed) { closed = true; await pool.end() } }
  }
}
