// Why a datagram, a record or a handshake was refused: the names of the counters (README §Refusals). A refusal is
// data, never an exception, and never carries a secret.

export const REFUSAL_REASONS = [
  /** Bytes that are not DTLS records, a content type or version not spoken here, application data in epoch 0. */
  'bad.record',
  /** A record of an epoch with no keys (a future epoch, or the previous one after a ChangeCipherSpec). */
  'unknown.epoch',
  /** A protected record whose AES-CCM tag does not verify. */
  'bad.auth',
  /** A record whose sequence number was already seen or is behind the 64-record window (RFC 6347 §4.1.2.6). */
  'replay',
  /** A handshake message that is malformed, unexpected here, or past the reassembly bounds. */
  'bad.handshake',
  /** A ClientHello whose cookie was not issued for this client (answered by a new HelloVerifyRequest). */
  'bad.cookie',
  /** Records from an address and port without a session that are not a ClientHello. */
  'no.session',
  /** No common suite, compression or version (a handshake_failure or protocol_version alert). */
  'handshake.failure',
  /** A PSK identity that pskFor did not know. */
  'unknown.identity',
  /** pskFor threw or rejected (internal_error alert). */
  'psk.lookup.failed',
  /** A Finished whose verify_data is wrong: the peer has another key (decrypt_error alert). */
  'bad.finished',
  /** A fatal alert received from the peer during the handshake. */
  'alert.received',
  /** A handshake that did not finish in time, or whose flights went unanswered past the retransmissions allowed. */
  'handshake.timeout',
  'too.many.sessions',
  'too.many.handshakes',
  /** A ClientHello with a good cookie from an address that spent its handshake budget (handshakesPerS). */
  'handshake.rate.limited',
  /** A fault of ours met on some input: that connection is dropped, the server goes on. Zero unless there is a bug. */
  'internal.error'
] as const

export type RefusalReason = typeof REFUSAL_REASONS[number]

export type DtlsCounters = Record<RefusalReason, number>

export function newCounters (): DtlsCounters {
  return Object.fromEntries(REFUSAL_REASONS.map((r) => [r, 0])) as DtlsCounters
}
