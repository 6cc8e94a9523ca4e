// How many tasks of an operation may leave now (docs/operations.md#safe-rollouts), judged in the chunk's own
// transaction with the operation's row locked: a second worker, or the same one restarted, counts the tasks the
// first one released once it has committed them, so no budget, wave or pause is spent twice or overlooked. A pause
// (POST .../pause) updates the same row, so once it has answered no chunk claims a task.
import type { Repositories } from '../ports/repositories.js'
import { ROLLOUT_WINDOW_MS, type RolloutPlan } from './rollout.js'
import { openWave, type Waves } from './rollout-waves.js'
import { insideWindow, nextOpening } from './rollout-window.js'

/**
 * `left`: tasks that may leave now. When none: `nextAt`, the time that frees some (the engine queues a run for it);
 * absent when only an event frees them (a resume, the successes that open the next wave, which queue their own run).
 */
export interface Gate { left: number, nextAt?: number }

/** At most `want`, and no more than maxPerMinute within any ROLLOUT_WINDOW_MS (counted from the tasks' start dates). */
async function budget (tx: Repositories, uid: string, maxPerMinute: number, now: number): Promise<Gate> {
  const started = await tx.operations.startedSince(uid, now - ROLLOUT_WINDOW_MS)
  const left = maxPerMinute - started.count
  if (left > 0) return { left }
  return { left: 0, nextAt: (started.oldest ?? now) + ROLLOUT_WINDOW_MS }
}

/** The tasks the open wave still lets leave (its size less those that left already). */
async function waveRoom (tx: Repositories, uid: string, total: number, waves: Waves): Promise<number> {
  const counts = (await tx.operations.counts([uid])).get(uid) ?? {}
  const sent = (await tx.operations.started([uid])).get(uid) ?? 0
  return Math.max(0, openWave(total, waves, counts.SUCCESS ?? 0).allowed - sent)
}

async function judge (tx: Repositories, uid: string, total: number, plan: RolloutPlan | undefined, want: number, now: number): Promise<Gate> {
  if (plan?.window !== undefined && !insideWindow(plan.window, now)) return { left: 0, nextAt: nextOpening(plan.window, now) }
  let left = want
  if (plan?.waves !== undefined) left = Math.min(left, await waveRoom(tx, uid, total, plan.waves))
  if (left > 0 && plan?.maxPerMinute !== undefined) {
    const b = await budget(tx, uid, plan.maxPerMinute, now)
    if (b.left <= 0) return b
    left = Math.min(left, b.left)
  }
  return { left }
}

/**
 * Locks the operation's row for the rest of the transaction and answers how many of `want` tasks may leave now:
 * none while it is paused or not IN_PROGRESS, outside its maintenance window (until it opens), beyond its open
 * wave, or beyond its maxPerMinute budget (until the oldest start of the minute leaves it). Records the time it
 * waits for (the JSON's rollout.nextAt) when that changed.
 */
export async function releaseGate (tx: Repositories, uid: string, plan: RolloutPlan | undefined, want: number, now: number): Promise<Gate> {
  const op = await tx.operations.lock(uid)
  if (op === undefined || op.state !== 'IN_PROGRESS') return { left: 0 }
  const gate = (op.pausedAt ?? null) !== null ? { left: 0 } : await judge(tx, uid, op.total, plan, want, now)
  const nextAt = gate.left > 0 ? null : gate.nextAt ?? null
  if (plan !== undefined && (op.rolloutNextAt ?? null) !== nextAt) await tx.operations.setRolloutNextAt(uid, nextAt)
  return gate
}
