// core/services/ingest/group-commit.ts (docs/architecture.md#how-data-flows): items arriving during a write are written
// together next, in order; a bad item fails alone; a full buffer makes submitters wait.
import { describe, expect, it } from 'vitest'
import { createGroupCommit, type GroupCommitOptions } from '../../../core/services/ingest/group-commit.js'
import { eventually } from '../../helpers/eventually.js'

/** A write whose batches wait until the test releases them. */
function gatedWriter<T> (decide: (item: T) => Error | undefined = () => undefined, throwIf?: (batch: T[]) => boolean) {
  const batches: T[][] = []
  const gates: Array<() => void> = []
  const write: GroupCommitOptions<T>['write'] = async (items) => {
    batches.push([...items])
    await new Promise<void>((resolve) => gates.push(resolve))
    if (throwIf?.(items) === true) throw new Error('batch failed')
    return items.map(decide)
  }
  /** Lets the oldest waiting write finish. */
  const release = async (): Promise<void> => {
    await until(() => gates.length > 0)
    gates.shift()?.()
  }
  /** Releases writes one after the other until `cond` holds. */
  const releaseUntil = async (cond: () => boolean): Promise<void> => {
    const deadline = Date.now() + 2000
    while (!cond()) {
      if (Date.now() > deadline) throw new Error('timed out')
      if (gates.length > 0) gates.shift()?.()
      await new Promise((resolve) => setImmediate(resolve))
    }
  }
  return { write, batches, release, releaseUntil, waiting: () => gates.length }
}

/** Waits for a condition the writer reaches within a few turns of the event loop (its batches are in memory). */
async function until (cond: () => boolean, ms = 2000): Promise<void> {
  await eventually(cond, { timeoutMs: ms, intervalMs: 0, what: 'the writer' })
}

/** Settles a promise into a value to assert on. */
function track (p: Promise<void>): { state: 'pending' | 'ok' | 'failed', error?: unknown } {
  const t: { state: 'pending' | 'ok' | 'failed', error?: unknown } = { state: 'pending' }
  p.then(() => { t.state = 'ok' }, (error: unknown) => { t.state = 'failed'; t.error = error })
  return t
}

describe('group commit', () => {
  it('writes an idle item at once; items arriving during a write are batched next, order kept', async () => {
    const w = gatedWriter<number>()
    const gc = createGroupCommit({ write: w.write, maxBatch: 100, maxPending: 1000, parallel: 1 })
    const first = track(gc.submit(1))
    await until(() => w.batches.length === 1)
    const rest = [2, 3, 4, 5].map((n) => track(gc.submit(n)))
    expect(gc.pending()).toBe(5)
    expect(first.state).toBe('pending') // resolves only after its write
    await w.release()
    await until(() => first.state === 'ok')
    expect(rest.every((t) => t.state === 'pending')).toBe(true)
    await w.release()
    await until(() => rest.every((t) => t.state === 'ok'))
    expect(w.batches).toEqual([[1], [2, 3, 4, 5]])
    await gc.drain()
    expect(gc.pending()).toBe(0)
  })

  it('splits at maxBatch, keeping order', async () => {
    const w = gatedWriter<number>()
    const gc = createGroupCommit({ write: w.write, maxBatch: 2, maxPending: 1000, parallel: 1 })
    const all = [1, 2, 3, 4, 5, 6].map((n) => track(gc.submit(n)))
    await w.releaseUntil(() => all.every((t) => t.state === 'ok'))
    expect(w.batches).toEqual([[1], [2, 3], [4, 5], [6]]) // the first one is written at once, alone
  })

  it('an item the write refuses fails alone', async () => {
    const w = gatedWriter<string>((item) => item === 'bad' ? new Error('refused: bad') : undefined)
    const gc = createGroupCommit({ write: w.write, maxBatch: 100, maxPending: 1000, parallel: 1 })
    const first = track(gc.submit('first'))
    await until(() => w.batches.length === 1)
    const t = ['a', 'bad', 'b'].map((x) => track(gc.submit(x)))
    await w.releaseUntil(() => t.every((x) => x.state !== 'pending'))
    expect(first.state).toBe('ok')
    expect(t.map((x) => x.state)).toEqual(['ok', 'failed', 'ok'])
    expect((t[1]?.error as Error).message).toBe('refused: bad')
    expect(w.batches).toEqual([['first'], ['a', 'bad', 'b']])
  })

  it('a batch whose write throws is written again one by one: only the bad item fails', async () => {
    const w = gatedWriter<string>(() => undefined, (batch) => batch.includes('bad'))
    const gc = createGroupCommit({ write: w.write, maxBatch: 100, maxPending: 1000, parallel: 1 })
    const first = track(gc.submit('first'))
    await until(() => w.batches.length === 1)
    const t = ['a', 'bad', 'b'].map((x) => track(gc.submit(x)))
    await w.releaseUntil(() => t.every((x) => x.state !== 'pending'))
    expect(first.state).toBe('ok')
    expect(t.map((x) => x.state)).toEqual(['ok', 'failed', 'ok'])
    expect(w.batches).toEqual([['first'], ['a', 'bad', 'b'], ['a'], ['bad'], ['b']])
  })

  it('a batch error that is no item\'s fault (failsWhole: the store is unavailable) fails every item at once, none written one by one', async () => {
    const w = gatedWriter<string>(() => undefined, (batch) => batch.includes('a'))
    const gc = createGroupCommit({ write: w.write, maxBatch: 100, maxPending: 1000, parallel: 1, failsWhole: (err) => err instanceof Error && err.message === 'batch failed' })
    const first = track(gc.submit('first'))
    await until(() => w.batches.length === 1)
    const t = ['a', 'b'].map((x) => track(gc.submit(x)))
    await w.releaseUntil(() => t.every((x) => x.state !== 'pending'))
    expect(first.state).toBe('ok')
    expect(t.map((x) => x.state)).toEqual(['failed', 'failed'])
    expect(w.batches).toEqual([['first'], ['a', 'b']])
  })

  it('maxPending: submitters wait, without being queued, until space frees', async () => {
    const w = gatedWriter<number>()
    const gc = createGroupCommit({ write: w.write, maxBatch: 100, maxPending: 3, parallel: 1 })
    const a = track(gc.submit(1))
    await until(() => w.batches.length === 1)
    const queued = [2, 3].map((n) => track(gc.submit(n)))
    const blocked = [4, 5, 6].map((n) => track(gc.submit(n)))
    // Nothing but the writer's release lets a blocked submitter in (no timer): once the event loop has turned, every
    // step they could take without it has been taken.
    await new Promise((resolve) => setImmediate(resolve))
    expect(gc.pending()).toBe(3) // 4, 5 and 6 are not in the buffer
    await w.release() // [1] done: two places free
    await until(() => a.state === 'ok')
    await until(() => w.batches.length === 2)
    // [2, 3] is being written; 4 could not enter until then, and the buffer never exceeds maxPending.
    expect(w.batches[1]).toEqual([2, 3])
    expect(gc.pending()).toBeLessThanOrEqual(3)
    await w.releaseUntil(() => [...queued, ...blocked].every((t) => t.state === 'ok'))
    expect(w.batches.flat()).toEqual([1, 2, 3, 4, 5, 6])
    expect(Math.max(...w.batches.map((b) => b.length))).toBeLessThanOrEqual(3)
  })

  it('drain resolves once every submitted item is written', async () => {
    const w = gatedWriter<number>()
    const gc = createGroupCommit({ write: w.write, maxBatch: 100, maxPending: 1000, parallel: 1 })
    await gc.drain() // idle: at once
    const items = [1, 2, 3].map((n) => track(gc.submit(n)))
    const drained = track(gc.drain())
    await w.release()
    expect(drained.state).toBe('pending')
    await w.releaseUntil(() => drained.state === 'ok')
    expect(items.every((t) => t.state === 'ok')).toBe(true)
  })

  it('parallel: up to that many batches are written at the same time', async () => {
    const w = gatedWriter<number>()
    const gc = createGroupCommit({ write: w.write, maxBatch: 1, maxPending: 1000, parallel: 2 })
    const t = [1, 2, 3].map((n) => track(gc.submit(n)))
    await until(() => w.waiting() === 2)
    expect(w.batches).toEqual([[1], [2]])
    await w.releaseUntil(() => t.every((x) => x.state === 'ok'))
  })
})
