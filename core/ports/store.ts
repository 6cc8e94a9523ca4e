// Interfaces that storage/ implements (docs/architecture.md#layers). core/ never imports storage/.
import type { Repositories } from './repositories.js'

export interface QueryResult<R> { rows: R[], rowCount: number }

/** Something that runs one SQL statement with $n parameters: the pool, a transaction, PGlite. */
export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>>
}

/** The store: PGlite in-process or a PostgreSQL pool. The same SQL runs on both (docs/architecture.md#storage). */
export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres'
  /** Runs several statements without parameters (migrations). */
  exec (sql: string): Promise<void>
  /** Runs fn in one transaction: committed when fn resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>
  /** How busy the store's connections are, for metrics (absent on a store that cannot tell). */
  poolStats? (): PoolStats
  close (): Promise<void>
}

/**
 * A PostgreSQL pool: its connections (total, idle) and the callers waiting for one; `inFlight` the statements or
 * transactions running. PGlite has one connection: inFlight is what was sent to it and not answered yet.
 */
export interface PoolStats { total: number, idle: number, waiting: number, inFlight: number }

export interface Clock { now (): number }

/** Runs fn with repositories bound to one transaction. */
export type UnitOfWork = <T>(fn: (repos: Repositories) => Promise<T>) => Promise<T>

/** When failed attempts under one key must wait: from the `after`-th failure, baseMs doubled per failure, at most maxMs. */
export interface ThrottleRule { after: number, baseMs: number, maxMs: number, /** failures are forgotten this long after the last attempt */ forgetMs: number }

/**
 * Counters of a fixed-window rate limit, and of failed attempts (sign-in throttling); in process by default, in
 * Redis when REDIS_URL is set, so that every process shares them.
 */
export interface RateCounter {
  /** Adds one hit to key's current window; answers the hits so far and the ms left in the window. */
  hit (key: string, windowMs: number): Promise<{ count: number, resetMs: number }>
  /**
   * Starts an attempt under key at `now`. During a wait it is refused: answers the ms left. Otherwise it is counted
   * as a failure at once, and from the rule's `after`-th the next wait starts with it, so that concurrent attempts
   * cannot slip through before their failures are known; answers 0. One atomic step.
   */
  attempt (key: string, now: number, rule: ThrottleRule): Promise<number>
  /** The ms left of key's wait at `now` (0: none), counting nothing: for failures counted once known (attempt). */
  waiting (key: string, now: number): Promise<number>
  /** Takes back one attempt that did not fail (a success, or refused elsewhere): one failure less, no wait. */
  forgive (key: string): Promise<void>
  /** Forgets key's failures. */
  reset (key: string): Promise<void>
  close (): Promise<void>
}
