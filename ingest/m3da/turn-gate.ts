// Envelopes that arrive in one turn of the event loop are handled together (docs/protocols/m3da.md). Each connection's
// data is a callback of its own, and the microtasks of one callback run to the end before the next: with a store that
// writes within those microtasks (PGlite in the service's thread, before storage/pglite-worker.ts), every package was stored and answered alone, one connection
// after the other (no group commit). Released together from one callback, the packages of a turn interleave and
// reach the ingest group commit as one batch.

/** Resolves in the next turn, together with every other wait of this turn. */
export function createTurnGate (): () => Promise<void> {
  let waiting: Array<() => void> = []
  const release = (): void => {
    const now = waiting
    waiting = []
    for (const resume of now) resume()
  }
  return async () => await new Promise<void>((resolve) => {
    waiting.push(resolve)
    if (waiting.length === 1) setImmediate(release)
  })
}
