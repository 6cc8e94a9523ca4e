// A store whose next transactions fail as if their connection were lost (StoreUnavailableError), for the embedded
// store, which has no connection to lose: "rollback" loses it before COMMIT (nothing committed), "commit-lost"
// after COMMIT (committed, but the caller hears of a failure, as when the COMMIT's answer is lost). The PostgreSQL
// runs of the same tests terminate real backends instead (test/helpers/pg-kill.ts).
import type { Db } from '../../core/ports/store.js'
import { StoreUnavailableError } from '../../core/store-errors.js'

export type Fault = 'rollback' | 'commit-lost'

export interface FaultyDb {
  db: Db
  /** The next transactions, one fault each, in order. */
  inject (...faults: Fault[]): void
  /** The next n single statements (outside transactions) whose SQL matches fail as on a lost connection. */
  failQueries (match: RegExp, n?: number): void
  /** Faults injected and not used yet. */
  pending (): number
  /** Time since a fault last hit a transaction (Infinity before the first). */
  sinceLastHitMs (): number
  /** Drops the faults not used yet; answers how many hit a transaction since the last calm(). */
  calm (): number
}

export function withFaults (inner: Db): FaultyDb {
  const queue: Fault[] = []
  let hits = 0
  let lastHitAt = -Infinity
  const lost = (what: string): StoreUnavailableError => new StoreUnavailableError(new Error(`injected: ${what}`))
  const queryFaults: Array<{ match: RegExp, left: number }> = []
  const db: Db = {
    ...inner,
    async query (sql, params) {
      const fault = queryFaults.find((f) => f.left > 0 && f.match.test(sql))
      if (fault === undefined) return await inner.query(sql, params)
      fault.left--
      throw lost('connection lost during a statement')
    },
    async transaction (fn) {
      const fault = queue.shift()
      if (fault === undefined) return await inner.transaction(fn)
      hits++
      lastHitAt = Date.now()
      if (fault === 'rollback') {
        return await inner.transaction(async (tx) => {
          await fn(tx)
          throw lost('connection lost before COMMIT')
        })
      }
      await inner.transaction(fn)
      throw lost('answer to COMMIT lost')
    }
  }
  return {
    db,
    inject: (...faults) => { queue.push(...faults) },
    failQueries: (match, n = 1) => { queryFaults.push({ match, left: n }) },
    pending: () => queue.length,
    sinceLastHitMs: () => Date.now() - lastHitAt,
    calm: () => { const n = hits; hits = 0; queue.length = 0; return n }
  }
}
