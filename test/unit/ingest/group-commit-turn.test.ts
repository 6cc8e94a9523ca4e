// core/services/ingest/group-commit.ts with a store that answers without the event loop turning (as PGlite did
// in the service's thread): what arrived meanwhile is read before the next batch is formed, so batches stay large.
import { describe, expect, it } from 'vitest'
import { createGroupCommit } from '../../../core/services/ingest/group-commit.js'

describe('group commit on a store that never yields', () => {
  it('gives the event loop a turn before the next batch, so arrivals of that turn join it', async () => {
    const batches: number[][] = []
    const done: Array<Promise<void>> = []
    const gc = createGroupCommit<number>({
      // Resolves through microtasks only, like an in-thread store.
      write: async (items) => {
        batches.push([...items])
        // Devices whose publishes are read on the next turn of the loop (socket data arrives as I/O callbacks).
        if (batches.length === 1) setImmediate(() => { for (const n of [3, 4, 5]) done.push(gc.submit(n)) })
        return items.map(() => undefined)
      },
      maxBatch: 100,
      maxPending: 1000,
      parallel: 1
    })
    done.push(gc.submit(1), gc.submit(2))
    await new Promise((resolve) => setImmediate(resolve))
    await new Promise((resolve) => setImmediate(resolve))
    await gc.drain()
    await Promise.all(done)
    // Without the turn: [[1], [2], [3], [4, 5]] — a batch per message or two.
    expect(batches).toEqual([[1], [2, 3, 4, 5]])
  })
})
