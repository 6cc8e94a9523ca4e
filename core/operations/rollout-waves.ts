// The waves of a safe rollout (docs/operations.md#safe-rollouts): `waves` are cumulative shares of the operation's
// tasks, e.g. [1, 10, 50, 100]. Wave n+1 may start once `successPercent` of the tasks of waves 1..n have SUCCEEDED.
// A list whose last share is under 100 is read as if it ended with 100: once its last wave has passed, the rest of
// the tasks go out (the user named how carefully to start, not to leave devices out; docs/operations.md says so).
// Pure rules on counts the caller reads from the store under the operation's lock (./rollout-gate.ts).

export interface Waves {
  /** Cumulative percents, increasing, each 1 to 100, as the request gave them. */
  at: readonly number[]
  /** Share of the tasks of the waves so far that must have SUCCEEDED before the next wave starts. */
  successPercent: number
}

/** The effective list of shares: the request's, with 100 added when its last is under 100. */
export function effectiveWaves (at: readonly number[]): number[] {
  const last = at[at.length - 1]
  return last === undefined || last < 100 ? [...at, 100] : [...at]
}

/**
 * How many tasks the waves 1..n hold, for each n: the share of `total` rounded up, so that a small share of a small
 * fleet is one device rather than none; the last wave holds them all.
 */
export function waveSizes (total: number, at: readonly number[]): number[] {
  const shares = effectiveWaves(at)
  return shares.map((p, i) => i === shares.length - 1 ? total : Math.min(total, Math.ceil(total * p / 100 - 1e-9)))
}

/** Successes needed among `size` tasks for the next wave to start. */
export function successesNeeded (size: number, successPercent: number): number {
  return Math.ceil(size * successPercent / 100 - 1e-9)
}

/**
 * The wave open now (0-based `index`), and how many tasks may have left by its end (`allowed`): the first wave
 * whose successes are not yet enough, or the last one.
 */
export function openWave (total: number, waves: Waves, succeeded: number): { index: number, allowed: number } {
  const sizes = waveSizes(total, waves.at)
  for (const [index, size] of sizes.entries()) {
    if (index === sizes.length - 1 || succeeded < successesNeeded(size, waves.successPercent)) return { index, allowed: size }
  }
  return { index: 0, allowed: total } // no wave at all: unreachable, effectiveWaves always gives one
}

/**
 * The open wave when it can no longer start the next one: more of its tasks failed than its share allows, so that
 * even if every other task of the waves so far succeeded the share would not be reached. Never the last wave (there
 * is no next one to hold back). Every task that left belongs to the waves so far, so the operation's own counts
 * are the waves'.
 */
export function waveFailed (total: number, waves: Waves, succeeded: number, failed: number): { index: number, size: number, needed: number } | undefined {
  const sizes = waveSizes(total, waves.at)
  const { index, allowed } = openWave(total, waves, succeeded)
  if (index === sizes.length - 1) return undefined
  const needed = successesNeeded(allowed, waves.successPercent)
  return failed > allowed - needed ? { index, size: allowed, needed } : undefined
}
