// docs/operations.md#bulk-operations: callbacks to loopback, link-local and private addresses are refused
// unless configured (CALLBACK_ALLOW_PRIVATE). The refusal is answered when the operation is created, not found out
// later by a delivery that is silently dropped. storage/notify/http-callback.ts implements this port with
// the same address rules its deliveries obey.

export type CallbackCheck =
  | { ok: true }
  /** callback.invalid: not an http(s) URL; callback.forbidden: the host is, or resolves to, a forbidden address. */
  | { ok: false, code: 'callback.invalid' | 'callback.forbidden', params: string[] }

export interface CallbackGuard {
  /** Checks a callback URL before an operation is created with it. Never throws; never reveals the URL's password. */
  check (url: string): Promise<CallbackCheck>
}

/** What the service answers about the callbacks of an operation (docs/operations.md#bulk-operations: the operation
 * JSON). */
export interface CallbackDelivery {
  /** Tries made, every state change's event together. */
  attempts: number
  /** HTTP status of the last try; null before any try and when no answer came (network error, refused address). */
  lastStatus: number | null
  /** Why the last try failed (`http 500`, `ECONNREFUSED`, `timeout`, ...); null when it was delivered. */
  lastError: string | null
  lastAttemptAt: number | null
  /** Whether the last try was answered 2xx. */
  delivered: boolean
}

/** One try, as the engine records it. */
export interface CallbackAttempt { at: number, status: number | null, error: string | null, delivered: boolean }
