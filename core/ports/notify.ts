import { createHmac } from 'node:crypto'

// docs/operations.md#bulk-operations: the callback event, its retry schedule and signature, the
// "operation finished" e-mail, and the ports their adapters (storage/notify/*) implement. No I/O here.

export interface TaskCounter { state: string, count: number }

/** What the callback event and the e-mail need of an operation. */
export interface OperationSnapshot {
  uid: string
  operationType: string
  state: string
  counters: readonly TaskCounter[]
  total: number
}

export interface OperationStateEvent {
  name: 'event.operation.state.changed'
  date: number
  content: { operation: string, operationType: string, state: string, counters: TaskCounter[], total: number }
}

/** The body POSTed to the operation's callback URL on every change of its state. */
export function operationStateEvent (op: OperationSnapshot, now: number): OperationStateEvent {
  return {
    name: 'event.operation.state.changed',
    date: now,
    content: {
      operation: op.uid,
      operationType: op.operationType,
      state: op.state,
      counters: op.counters.map((c) => ({ state: c.state, count: c.count })),
      total: op.total
    }
  }
}

export const FIRST_RETRY_MS = 30_000

/** Tries in all: 1 + 6 retries after 30 s, 1, 2, 4, 8 and 16 min, ~31 min in total (spec: ≥ 5 tries over ≥ 10 min). */
export const MAX_CALLBACK_ATTEMPTS = 7

/**
 * Delay before the next try after try number `attempt` (1 = the first try) failed with a retryable result;
 * undefined once MAX_CALLBACK_ATTEMPTS tries were made (delivery is abandoned). `baseMs` is the first delay
 * (CALLBACK_RETRY_BASE_MS: 30 s in production, shorter in tests).
 */
export function callbackRetryDelay (attempt: number, baseMs = FIRST_RETRY_MS): number | undefined {
  if (!Number.isInteger(attempt) || attempt < 1 || attempt >= MAX_CALLBACK_ATTEMPTS) return undefined
  return baseMs * 2 ** (attempt - 1)
}

export const SIGNATURE_HEADER = 'X-Fleet-Signature'

/** Value of the X-Fleet-Signature header: `sha256=<hex HMAC-SHA256 of the exact body bytes>`. */
export function signBody (secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`
}

/**
 * How one delivery try ended. `retryable`: network error, timeout, 5xx, 429 or any other non-2xx answer.
 * `refused`: the URL can never be delivered to (unparsable, not http(s), forbidden address); never retried.
 */
export type CallbackResult =
  | { outcome: 'delivered', status: number }
  | { outcome: 'retryable', reason: string, status?: number }
  | { outcome: 'refused', reason: string }

/** Port: POSTs one callback body. Never throws: every failure is a CallbackResult. */
export interface CallbackSender {
  send (url: string, body: string): Promise<CallbackResult>
}

export interface OutgoingMail { to: string, subject: string, text: string }

/** Port: sends e-mail over SMTP or drops it as an .eml file in the outbox. */
export interface Mailer {
  /** @throws whatever the transport throws (SMTP refusal, disk error): the caller decides about retrying. */
  send (mail: OutgoingMail): Promise<void>
  close (): Promise<void>
}

export interface FinishedOperation extends OperationSnapshot {
  startDate: number | null
  endDate: number | null
}

function isoOrDash (ms: number | null): string {
  return ms === null ? '-' : new Date(ms).toISOString()
}

/** The e-mail sent to the caller when an operation with `notify: true` finishes. */
export function operationMail (op: FinishedOperation, email: string): OutgoingMail {
  const counters = op.counters.map((c) => `  ${c.state}: ${c.count}`)
  const text = [
    `Operation ${op.uid} has finished.`,
    '',
    `Operation: ${op.uid}`,
    `Type: ${op.operationType}`,
    `State: ${op.state}`,
    `Started: ${isoOrDash(op.startDate)}`,
    `Ended: ${isoOrDash(op.endDate)}`,
    `Tasks: ${op.total}`,
    ...counters,
    ''
  ].join('\n')
  return { to: email, subject: `Operation ${op.operationType} ${op.uid} finished`, text }
}
