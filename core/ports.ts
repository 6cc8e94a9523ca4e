// Interfaces that storage/ implements (shared/style.md §2.5). core/ never imports storage/.
import type { Repositories } from './repositories.js'

export interface QueryResult<R> { rows: R[], rowCount: number }

/** Something that runs one SQL statement with $n parameters: the pool, a transaction, PGlite. */
export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>>
}

/** The store: PGlite in-process or a PostgreSQL pool. The same SQL runs on both (shared/design.md §Storage). */
export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres'
  /** Runs several statements without parameters (migrations). */
  exec (sql: string): Promise<void>
  /** Runs fn in one transaction: committed when fn resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>
  close (): Promise<void>
}

export interface Clock { now (): number }

/** Runs fn with repositories bound to one transaction. */
export type UnitOfWork = <T>(fn: (repos: Repositories) => Promise<T>) => Promise<T>

/** Counters of a fixed-window rate limit; in process by default, in Redis when REDIS_URL is set. */
export interface RateCounter {
  /** Adds one hit to key's current window; answers the hits so far and the ms left in the window. */
  hit (key: string, windowMs: number): Promise<{ count: number, resetMs: number }>
  close (): Promise<void>
}
