// core/store-errors.ts: what the ingest and the operations engine do while the store is unavailable.
import { describe, expect, it } from 'vitest'
import { StoreUnavailableError, isStoreUnavailable, retryWhileUnavailable } from '../../core/store-errors.js'

const lost = (): StoreUnavailableError => new StoreUnavailableError(new Error('Connection terminated unexpectedly'))

describe('retryWhileUnavailable', () => {
  it('runs again while the store is unavailable, then answers', async () => {
    let tries = 0
    const retried: number[] = []
    const out = await retryWhileUnavailable(async () => { if (++tries < 4) throw lost(); return 'stored' },
      { maxMs: 5000, firstDelayMs: 1, onRetry: (_err, attempt) => { retried.push(attempt) } })
    expect(out).toBe('stored')
    expect(tries).toBe(4)
    expect(retried).toEqual([1, 2, 3])
  })

  it('throws any other error at once', async () => {
    let tries = 0
    const err = await retryWhileUnavailable(async () => { tries++; throw new Error('duplicate key') }, { maxMs: 5000 }).catch((e: unknown) => e)
    expect(err).toMatchObject({ message: 'duplicate key' })
    expect(tries).toBe(1)
  })

  it('gives up after maxMs with the last StoreUnavailableError', async () => {
    let tries = 0
    const started = Date.now()
    const err = await retryWhileUnavailable(async () => { tries++; throw lost() }, { maxMs: 200, firstDelayMs: 20, maxDelayMs: 40 }).catch((e: unknown) => e)
    expect(isStoreUnavailable(err)).toBe(true)
    expect(tries).toBeGreaterThan(2)
    expect(Date.now() - started).toBeLessThan(2000)
  })

  it('keeps the cause and names it', () => {
    const err = lost()
    expect(err.message).toBe('store unavailable: Connection terminated unexpectedly')
    expect((err.cause as Error).message).toBe('Connection terminated unexpectedly')
    expect(isStoreUnavailable(new Error('x'))).toBe(false)
  })
})
