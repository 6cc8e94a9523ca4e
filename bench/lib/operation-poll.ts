// Waiting for an operation to finish through the API, as a client does (bench operations, register): each poll's
// latency is kept, since how the API answers while the operation runs is part of what those benchmarks show.

/** What the benchmarks read of an operation (docs/operations.md#bulk-operations). */
export interface OperationState { state: string, total: number, startDate: number | null, endDate: number | null, counters: Array<{ state: string, count: number }> }

/** Polls GET /api/v1/operations/{uid} every pollMs until FINISHED; answers the last state and each poll's latency (ms). */
export async function pollUntilFinished (origin: string, uid: string, headers: Record<string, string>, pollMs: number): Promise<{ op: OperationState, latencies: number[] }> {
  const latencies: number[] = []
  for (;;) {
    const t = performance.now()
    const op = await (await fetch(`${origin}/api/v1/operations/${uid}`, { headers })).json() as OperationState
    latencies.push(performance.now() - t)
    if (op.state === 'FINISHED') return { op, latencies }
    await new Promise((resolve) => setTimeout(resolve, pollMs))
  }
}
