// Latency figures of a benchmark run: requests per second and percentiles (nearest-rank).

export interface Summary { requests: number, errors: number, rps: number, p50: number, p99: number, max: number }

/** The p-th percentile (0..100) of ascending `sorted` values, nearest-rank; NaN when empty. */
export function percentile (sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] ?? Number.NaN
}

/** Latencies in ms measured over `seconds` of wall time. */
export function summarize (latencies: ArrayLike<number>, errors: number, seconds: number): Summary {
  const sorted = Float64Array.from(latencies).sort()
  return {
    requests: sorted.length,
    errors,
    rps: seconds > 0 ? sorted.length / seconds : 0,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.length === 0 ? Number.NaN : sorted[sorted.length - 1] ?? Number.NaN
  }
}
