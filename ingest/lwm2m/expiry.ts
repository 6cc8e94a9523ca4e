// Registrations end when their lifetime passes without an Update (OMA LwM2M Core §6.2.1: the server removes the
// registration). The lifetime is the device's expected communication period (docs/protocols/lwm2m.md), so
// a registration that expires is a missed communication: its system turns WARNING at once, as a failed MSCI poll
// does (ingest/comm-failures.sql.ts), and traffic sets it OK again.
import type { PeriodicJob } from '../../core/operations/jobs.js'
import type { Logger } from '../../core/logger.js'
import type { Lwm2mRepository } from './lwm2m.port.js'
import type { LiveRegistrations } from './live.js'

/** Every 30 s: a registration outlives its lifetime by at most that much (and by the sweep's own delay). */
export const EXPIRE_EVERY_MS = 30_000
const BATCH = 1000

export interface ExpiryDeps {
  store: Pick<Lwm2mRepository, 'expire'>
  /** Marks the systems' missed communication (ingest/comm-failures.sql.ts over the module's pool). */
  missed: (systems: ReadonlyArray<{ systemUid: string, at: number }>) => Promise<void>
  live: Pick<LiveRegistrations, 'end'>
  now: () => number
  log: Pick<Logger, 'info'>
}

export function createExpiry (deps: ExpiryDeps): PeriodicJob {
  return {
    everyMs: EXPIRE_EVERY_MS,
    async run () {
      for (;;) {
        const ended = await deps.store.expire(deps.now(), BATCH)
        if (ended.length === 0) return
        await deps.missed(ended.map((r) => ({ systemUid: r.systemUid, at: r.expiresAt })))
        // This process's link to the device goes too; another process's is found expired by its own clock (live.ts).
        for (const r of ended) deps.live.end(r.systemUid, r.id)
        deps.log.info({ ended: ended.length }, 'LwM2M registrations expired')
        if (ended.length < BATCH) return
      }
    }
  }
}
