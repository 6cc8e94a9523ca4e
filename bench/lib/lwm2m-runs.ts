// What the LwM2M device process times: one step (a registration, a DTLS handshake) over devices from..from+count-1,
// `concurrency` at a time, each started as soon as one ends (a closed loop: the rate is what the service answers),
// and the figures of such a run, merged over the device processes.
import { percentile } from './stats.js'

export interface StepRun {
  ok: number
  failed: number
  /** From the first start to the last end, in this process. */
  seconds: number
  /** ms of each successful step, sorted (merged runs keep them to compute their percentiles). */
  latencies: number[]
  lastError: string | undefined
}

/** Runs `step(i)` for each device number, `concurrency` at a time; `progress` after each. Never throws. */
export async function timedSteps (from: number, count: number, concurrency: number, step: (i: number) => Promise<void>, progress: (done: number) => void = () => {}): Promise<StepRun> {
  const run: StepRun = { ok: 0, failed: 0, seconds: 0, latencies: [], lastError: undefined }
  const t0 = performance.now()
  let next = from
  const worker = async (): Promise<void> => {
    while (next < from + count) {
      const i = next++
      const t = performance.now()
      try {
        await step(i)
        run.ok++
        run.latencies.push(performance.now() - t)
      } catch (err) {
        run.failed++
        run.lastError = err instanceof Error ? err.message : String(err)
      }
      progress(run.ok + run.failed)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker))
  run.seconds = (performance.now() - t0) / 1000
  run.latencies.sort((a, b) => a - b)
  return run
}

/** The processes' runs as one: they started together, so the run lasted as long as the longest. */
export function mergeSteps (runs: readonly StepRun[]): StepRun {
  const latencies = runs.flatMap((r) => r.latencies).sort((a, b) => a - b)
  return {
    ok: runs.reduce((n, r) => n + r.ok, 0),
    failed: runs.reduce((n, r) => n + r.failed, 0),
    seconds: Math.max(0, ...runs.map((r) => r.seconds)),
    latencies,
    lastError: runs.map((r) => r.lastError).find((e) => e !== undefined)
  }
}

/** Steps per second, and the latency percentiles (ms). */
export function stepFigures (r: StepRun): { perS: number, p50: number, p99: number } {
  return { perS: r.seconds > 0 ? r.ok / r.seconds : Number.NaN, p50: percentile(r.latencies, 50), p99: percentile(r.latencies, 99) }
}
