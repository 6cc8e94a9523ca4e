// The MSCI poller: one tick is one run of the repeatable job `msci.poll` (bin/serve.ts, so one tick at a
// time across every process). A tick keeps the poll rows in step with the systems (every SYNC_MS), makes the
// gateways with waiting tasks due, then claims due polls as long as this process has free slots
// (MSCI_POLL_CONCURRENCY) and polls are due, within about one tick. A claimed poll is held under a lease in the store,
// so a gateway is polled by one process at a time; polls still running when the tick ends finish on their own.
// Schedule: period × [0.9, 1.1] after the poll was due (the first one anywhere in the first period, which spreads a
// fleet added at once); a failed poll backs off: period × 2^failures (at most an hour past the period) × [0.8, 1.2].
import { randomUUID } from 'node:crypto'
import type { MetricsRegistry } from '../../core/metrics.js'
import type { MsciPolls, PollTarget } from './msci-polls.js'
import { pollGateway, type PollDeps } from './poll.js'

/** How often the repeatable job runs. */
export const TICK_MS = 1000
/** How often the poll rows are brought in step with the systems' communication.msci.host. */
const SYNC_MS = 5000
/** The period of a gateway whose configuration is unusable (it is tried again after this, backing off). */
const UNUSABLE_PERIOD_MS = 300_000
const MAX_BACKOFF_EXTRA_MS = 3_600_000
/** A poll started at most this late is on time (two ticks). */
export const ON_TIME_MS = 2 * TICK_MS

export interface PollerStats { polls: number, ok: number, failed: number, onTime: number, latenessMs: number[] }

export interface PollerDeps extends PollDeps {
  polls: MsciPolls
  concurrency: number
  metrics: MetricsRegistry
  random?: () => number
}

/**
 * When a gateway is polled next: a steady period counts from when the poll was due (a poll started late or slow does
 * not push the next ones back), but never less than half a period after this one ended.
 */
export function nextPollAt (dueAt: number, at: number, ok: boolean, periodMs: number | undefined, failures: number, polledBefore: boolean, random: () => number): number {
  const period = periodMs ?? UNUSABLE_PERIOD_MS
  if (ok && !polledBefore) return at + Math.round(period * random())
  if (ok) return Math.max(dueAt + Math.round(period * (0.9 + 0.2 * random())), at + Math.round(period / 2))
  const backoff = Math.min(period * 2 ** Math.min(failures, 20), period + MAX_BACKOFF_EXTRA_MS)
  return at + Math.round(backoff * (0.8 + 0.4 * random()))
}

function pollMetrics (metrics: MetricsRegistry) {
  return {
    polls: metrics.counter<'outcome'>({ name: 'fleet_msci_polls_total', help: 'Polls of AirLink gateways (MSCI), by outcome', labels: ['outcome'] }),
    lateness: metrics.histogram({ name: 'fleet_msci_poll_lateness_seconds', help: 'How late polls of AirLink gateways started after they were due', buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 300] })
  }
}

/** Counts one poll's end in this process's stats (the bench reads them). */
function count (stats: PollerStats, lateness: number, ok: boolean): void {
  stats.polls++
  if (ok) stats.ok++; else stats.failed++
  if (lateness <= ON_TIME_MS) stats.onTime++
  if (stats.latenessMs.length < 100_000) stats.latenessMs.push(lateness)
}

export function createPoller (deps: PollerDeps) {
  const { polls, log } = deps
  const random = deps.random ?? Math.random
  const token = randomUUID()
  // A claim holds until every request of a poll and its tasks could have timed out, with room to spare.
  const leaseMs = Math.max(60_000, 20 * deps.timeoutMs)
  const running = new Set<Promise<void>>()
  let slotFreed: (() => void) | undefined
  let lastSync = -Infinity
  let closing = false
  const stats: PollerStats = { polls: 0, ok: 0, failed: 0, onTime: 0, latenessMs: [] }
  const m = pollMetrics(deps.metrics)

  async function pollOne (target: PollTarget): Promise<void> {
    const started = deps.now()
    const lateness = Math.max(0, started - target.dueAt)
    m.lateness.observe({}, lateness / 1000)
    const result = await pollGateway(target, deps)
    count(stats, lateness, result.ok)
    m.polls.inc({ outcome: result.ok ? 'ok' : result.reason ?? 'failed' })
    const at = deps.now()
    await polls.finish({
      systemUid: target.systemUid, token, ok: result.ok, at, nextPollAt: nextPollAt(target.dueAt, at, result.ok, result.periodMs, target.failures, target.polledBefore, random)
    })
  }

  function start (target: PollTarget): void {
    const done: Promise<void> = pollOne(target)
      .catch((err: unknown) => { log.warn({ err, systemUid: target.systemUid }, 'MSCI poll outcome not recorded; the poll is claimed again once its lease passes') })
      .finally(() => { running.delete(done); slotFreed?.() })
    running.add(done)
  }

  async function slotOrDeadline (deadline: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(finish, Math.max(0, deadline - deps.now()))
      function finish (): void { clearTimeout(timer); slotFreed = undefined; resolve() }
      slotFreed = finish
    })
  }

  async function tick (): Promise<void> {
    if (closing) return
    const now = deps.now()
    if (now - lastSync >= SYNC_MS) {
      await polls.sync()
      lastSync = now
    }
    await polls.hurry()
    const deadline = now + TICK_MS
    for (;;) {
      if (closing) return
      const free = deps.concurrency - running.size
      if (free > 0) {
        const targets = await polls.claim(free, leaseMs, token)
        // Claimed while close() began: handed back untouched, for the other processes (or the next start).
        if (closing) { await polls.release([token]); return }
        for (const t of targets) start(t)
        if (targets.length < free) return // nothing more is due
      }
      if (deps.now() >= deadline) return
      await slotOrDeadline(deadline)
    }
  }

  return {
    tick,
    stats: (): PollerStats => ({ ...stats, latenessMs: [...stats.latenessMs] }),
    running: () => running.size,
    /** Stops claiming, lets the polls in flight end (each is bounded by its timeouts), hands back what is left. */
    async close (): Promise<void> {
      closing = true
      slotFreed?.()
      await Promise.allSettled([...running])
      await polls.drain().catch(() => {})
      await polls.release([token]).catch((err: unknown) => { log.warn({ err }, 'MSCI polls not handed back; they are claimed again once their lease passes') })
    }
  }
}

export type Poller = ReturnType<typeof createPoller>
