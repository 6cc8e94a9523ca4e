// Transmission parameters (RFC 7252 §4.8) and the limits that keep one peer from hurting the others.
import { DEFAULT_MAX_BODY } from './reassembler.js'

/** §4.8: the defaults; tests shorten them. */
export interface TransmissionParams {
  ackTimeoutMs: number
  ackRandomFactor: number
  maxRetransmit: number
  /** §4.7: outstanding interactions per peer; more requests wait in a queue. */
  nstart: number
  maxLatencyMs: number
  processingDelayMs: number
}

export const DEFAULT_PARAMS: Readonly<TransmissionParams> = Object.freeze({
  ackTimeoutMs: 2000,
  ackRandomFactor: 1.5,
  maxRetransmit: 4,
  nstart: 1,
  maxLatencyMs: 100_000,
  processingDelayMs: 2000
})

/** §4.8.2 derived times: 45 s, 93 s, 247 s and 145 s with the defaults. */
export interface DerivedTimes { maxTransmitSpanMs: number, maxTransmitWaitMs: number, exchangeLifetimeMs: number, nonLifetimeMs: number }

export function derivedTimes (p: TransmissionParams): DerivedTimes {
  const maxTransmitSpanMs = p.ackTimeoutMs * (2 ** p.maxRetransmit - 1) * p.ackRandomFactor
  const maxTransmitWaitMs = p.ackTimeoutMs * (2 ** (p.maxRetransmit + 1) - 1) * p.ackRandomFactor
  return {
    maxTransmitSpanMs,
    maxTransmitWaitMs,
    exchangeLifetimeMs: maxTransmitSpanMs + 2 * p.maxLatencyMs + p.processingDelayMs,
    nonLifetimeMs: maxTransmitSpanMs + p.maxLatencyMs
  }
}

/** Bounds per peer and in all (README §Limits). */
export interface EndpointLimits {
  /** Peers whose message ids we remember (§4.5 deduplication); the least recently heard is forgotten first. */
  maxPeers: number
  /** Message ids remembered per peer for EXCHANGE_LIFETIME; the oldest is forgotten first. */
  maxDedupPerPeer: number
  /** Our requests to one peer, running or queued behind NSTART; more fail with coap.peer.busy. */
  maxPendingPerPeer: number
  /** Requests from one peer our handler is working on; more are answered 5.03. */
  maxIncomingPerPeer: number
  /** Our observations at one peer (RFC 7641, client side). */
  maxObservationsPerPeer: number
  /** Observations one peer holds on us (server side), and in all. */
  maxObserversPerPeer: number
  maxObservers: number
  /** A block-wise body (either direction): over it, 4.13 or coap.block.too.large. */
  maxBodySize: number
  /** Block1 bodies being received from one peer, and bytes held by all of them. */
  maxTransfersPerPeer: number
  maxTransferBytes: number
  /** Block2 bodies we keep to serve the next blocks of, per peer. */
  maxServedBodiesPerPeer: number
  /** The block size we send and accept, as SZX (6 = 1024 bytes). */
  blockSzx: number
  /** A CON request's handler slower than this gets an empty ACK and a separate response (§5.2.2). */
  separateAfterMs: number
  /** Token length of our requests (§5.3.1: 8 random bytes resist spoofed responses on plain UDP). */
  tokenLength: number
}

export const DEFAULT_LIMITS: Readonly<EndpointLimits> = Object.freeze({
  maxPeers: 10_000,
  maxDedupPerPeer: 512,
  maxPendingPerPeer: 32,
  maxIncomingPerPeer: 8,
  maxObservationsPerPeer: 64,
  maxObserversPerPeer: 8,
  maxObservers: 10_000,
  maxBodySize: DEFAULT_MAX_BODY,
  maxTransfersPerPeer: 4,
  maxTransferBytes: 64 * 1024 * 1024,
  maxServedBodiesPerPeer: 4,
  blockSzx: 6,
  separateAfterMs: 1000,
  tokenLength: 8
})
