// A store that cannot answer for a reason outside the statement (its connection was lost, the server restarts or
// refuses connections) is a passing fault: the same work succeeds a moment later on a new connection. The storage
// adapters throw StoreUnavailableError for it so that the core can retry what is safe to retry (an ingest batch,
// an operation chunk) and wait meanwhile, instead of failing work a device or a user was promised.

/**
 * The store lost or could not open its connection. The statement (and its transaction) did not take effect, except
 * in one case: a COMMIT whose answer was lost may have committed, so a writer that retries must be idempotent.
 */
export class StoreUnavailableError extends Error {
  constructor (cause: unknown) {
    super(`store unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
    this.name = 'StoreUnavailableError'
  }
}

export function isStoreUnavailable (err: unknown): err is StoreUnavailableError {
  return err instanceof StoreUnavailableError
}

export interface RetryOptions {
  /** Gives up (throws the last error) once this long has passed since the first try. */
  maxMs: number
  /** First pause between tries, doubled each time up to maxDelayMs. */
  firstDelayMs?: number
  maxDelayMs?: number
  onRetry?: (err: StoreUnavailableError, attempt: number) => void
}

/**
 * Runs fn again while it fails with StoreUnavailableError, pausing between tries, for at most maxMs; any other
 * error is thrown at once. fn must be safe to run again (see StoreUnavailableError on a lost COMMIT).
 */
export async function retryWhileUnavailable<T> (fn: () => Promise<T>, opts: RetryOptions): Promise<T> {
  const started = Date.now()
  let delay = opts.firstDelayMs ?? 50
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn()
    } catch (err) {
      if (!isStoreUnavailable(err) || Date.now() - started + delay > opts.maxMs) throw err
      opts.onRetry?.(err, attempt)
      await new Promise((resolve) => setTimeout(resolve, delay))
      delay = Math.min(delay * 2, opts.maxDelayMs ?? 1000)
    }
  }
}
