// A CoAP endpoint over any datagram transport (RFC 7252 §4–§5, RFC 7641, RFC 7959): it serves the peers' requests
// and sends its own over the same transport, both ways at once, as an LwM2M server does over one UDP socket or one
// DTLS session per device. No socket here: the transport calls receive() and is given datagrams through send().
import { MAX_SZX, blockSize } from './block.js'
import { Block1Receiver } from './block1-receiver.js'
import { pullBlock2, sendBlock1, type Exchanger } from './block-transfer.js'
import { createCounters, type CoapCounters } from './counters.js'
import { CoapError } from './errors.js'
import { toParts, toSendParts, type OutgoingRequest, type OutgoingResponse, type RequestHandler } from './exchanges.js'
import { IncomingRequests } from './incoming-requests.js'
import { MessageLayer, emptyMessage, type SendFn } from './message-layer.js'
import { sendNotification, type NotifyOutcome } from './notifier.js'
import { Observations, type Observation, type ObserveCallbacks } from './observations.js'
import { randomPool } from './random-pool.js'
import { Requester } from './outgoing-requests.js'
import { DEFAULT_LIMITS, DEFAULT_PARAMS, type EndpointLimits, type TransmissionParams } from './params.js'
import { dispatchDatagram, type DispatchParts } from './receive.js'
import { ServedBodies } from './response-blocks.js'
import { ServedObservers, type ObserverGoneReason, type ServedObserver } from './served-observers.js'
import { realTimers, type Timers } from './timers.js'
import { MessageType, type CoapMessage } from './types.js'

export interface EndpointOptions {
  /** Hands a datagram to the transport; `peer` is the key receive() was given. Errors are counted, not thrown. */
  send: SendFn
  /** Answers the peers' requests; without one every request is answered 4.04. */
  handler?: RequestHandler
  params?: Partial<TransmissionParams>
  limits?: Partial<EndpointLimits>
  timers?: Timers
  /** For retransmission jitter and first message ids (tests pass () => 0). */
  random?: () => number
  /** For tokens (default: node:crypto's CSPRNG, drawn in batches). */
  randomBytes?: (n: number) => Buffer
  /** A peer's observation of us ended (deregistered, RST, unacknowledged CON notification, closed). */
  onObserverGone?: (observer: ServedObserver, reason: ObserverGoneReason) => void
}

export interface RequestOptions {
  /** Until the response (default MAX_TRANSMIT_WAIT, 93 s): covers retransmissions and a separate response. */
  timeoutMs?: number
}

/** Gauges: what the endpoint holds right now (all bounded by the limits). */
export interface EndpointGauges { peersRemembered: number, unacknowledged: number, pendingRequests: number, observations: number, observers: number, transferBytes: number }

/** @throws RangeError for settings the protocol cannot carry (they are the caller's bug, found at construction). */
function checkSettings (p: TransmissionParams, l: EndpointLimits): void {
  if (!Number.isInteger(l.blockSzx) || l.blockSzx < 0 || l.blockSzx > MAX_SZX) throw new RangeError(`blockSzx ${l.blockSzx} (0–6)`)
  if (!Number.isInteger(l.tokenLength) || l.tokenLength < 1 || l.tokenLength > 8) throw new RangeError(`tokenLength ${l.tokenLength} (1–8)`)
  if (!(p.nstart >= 1) || !(p.ackTimeoutMs > 0) || !(p.ackRandomFactor >= 1) || !(p.maxRetransmit >= 0)) throw new RangeError('transmission parameters out of range')
}

export class CoapEndpoint {
  readonly counters: CoapCounters = createCounters()
  readonly params: Readonly<TransmissionParams>
  readonly limits: Readonly<EndpointLimits>
  private readonly layer: MessageLayer
  private readonly requester: Requester
  private readonly observations: Observations
  private readonly observers: ServedObservers
  private readonly bodies: ServedBodies
  private readonly block1: Block1Receiver
  private readonly incoming: IncomingRequests
  private readonly route: DispatchParts
  private readonly timeoutMs: number
  private closed = false

  constructor (o: EndpointOptions) {
    const params = this.params = Object.freeze({ ...DEFAULT_PARAMS, ...o.params })
    const limits = this.limits = Object.freeze({ ...DEFAULT_LIMITS, ...o.limits })
    checkSettings(params, limits)
    const timers = o.timers ?? realTimers
    const now = (): number => timers.now()
    const counters = this.counters
    const layer = this.layer = new MessageLayer({ send: o.send, timers, params, limits, random: o.random ?? Math.random, counters })
    const lifetimeMs = layer.times.exchangeLifetimeMs
    this.timeoutMs = layer.times.maxTransmitWaitMs
    this.requester = new Requester({ layer, params, limits, counters, timers, randomBytes: o.randomBytes ?? randomPool() })
    this.observations = new Observations({ requester: this.requester, limits, counters, timers, timeoutMs: this.timeoutMs })
    this.observers = new ServedObservers({ maxPerPeer: limits.maxObserversPerPeer, max: limits.maxObservers, counters, onGone: o.onObserverGone })
    this.bodies = new ServedBodies({ maxPerPeer: limits.maxServedBodiesPerPeer, maxBytes: limits.maxTransferBytes, lifetimeMs, now })
    this.block1 = new Block1Receiver({ maxBodySize: limits.maxBodySize, maxPerPeer: limits.maxTransfersPerPeer, maxBytes: limits.maxTransferBytes, ourSzx: limits.blockSzx, lifetimeMs, now })
    this.incoming = new IncomingRequests({ layer, limits, counters, timers, handler: o.handler, observers: this.observers, bodies: this.bodies, block1: this.block1 })
    this.route = { layer, counters, requester: this.requester, observations: this.observations, observers: this.observers, incoming: this.incoming }
  }

  /** A datagram from `peer`. Never throws, whatever the bytes. */
  receive (peer: string, datagram: Uint8Array): void {
    if (this.closed) return
    this.counters.received++
    try {
      dispatchDatagram(this.route, peer, datagram)
    } catch {
      this.counters.internalErrors++
    }
  }

  /**
   * Sends a request and resolves with the response (any code; the whole body, Block2 pulled). A payload over one
   * block (limits.blockSzx) goes block-wise (Block1). Requests to one peer run NSTART at a time, the rest queued.
   * @throws CoapError coap.timeout, coap.reset, coap.peer.busy, coap.block.too.large, coap.block.incomplete,
   * coap.block.etag.changed, coap.closed
   */
  async request (peer: string, req: OutgoingRequest, options: RequestOptions = {}): Promise<CoapMessage> {
    if (this.closed) throw new CoapError('coap.closed')
    const parts = toSendParts(req)
    const timeoutMs = options.timeoutMs ?? this.timeoutMs
    const exchange: Exchanger = async (p) => await this.requester.exchange(peer, p, this.requester.newToken(peer), timeoutMs)
    await this.requester.acquire(peer)
    try {
      const szx = this.limits.blockSzx
      const first = parts.payload.length > blockSize(szx) ? await sendBlock1(exchange, parts, szx) : await exchange(parts)
      return await pullBlock2(exchange, parts, first, this.limits.maxBodySize)
    } finally {
      this.requester.release(peer)
    }
  }

  /**
   * Registers an observation (a GET or FETCH with Observe 0). Resolves once the peer answered; notifications then
   * go to `callbacks.onNotification` (CON ones are ACKed, stale ones dropped) until cancelled or ended by the peer.
   * @throws CoapError coap.observe.limit, and those of request()
   */
  async observe (peer: string, req: OutgoingRequest, callbacks: ObserveCallbacks, options: RequestOptions = {}): Promise<Observation> {
    if (this.closed) throw new CoapError('coap.closed')
    const parts = toSendParts(req)
    return await this.observations.observe(peer, parts, callbacks, options.timeoutMs ?? this.timeoutMs)
  }

  /** Notifies a peer observing us (the one whose registration had this token). NON unless `confirmable`. */
  async notify (peer: string, token: Buffer, response: OutgoingResponse, options: { confirmable?: boolean } = {}): Promise<NotifyOutcome> {
    if (this.closed) return 'unknown'
    const d = { layer: this.layer, observers: this.observers, bodies: this.bodies, ourSzx: this.limits.blockSzx, counters: this.counters }
    return await sendNotification(d, peer, token, toParts(response), options.confirmable ?? false)
  }

  /** The peers observing us. */
  servedObservers (): ServedObserver[] { return this.observers.list() }

  /** CoAP ping (§4.3): an empty CON, answered by a RST from a live peer. False after MAX_RETRANSMIT. */
  async ping (peer: string): Promise<boolean> {
    if (this.closed) return false
    return await new Promise((resolve) => {
      const msg = emptyMessage(MessageType.CON, this.layer.nextMessageId(peer))
      this.layer.sendConfirmable(peer, msg, { onAck: () => { resolve(true) }, onReset: () => { resolve(true) }, onTimeout: () => { resolve(false) } })
    })
  }

  gauges (): EndpointGauges {
    return {
      peersRemembered: this.layer.dedup.size,
      unacknowledged: this.layer.transmitter.size,
      pendingRequests: this.requester.inFlight,
      observations: this.observations.size,
      observers: this.observers.size,
      transferBytes: this.block1.bytesHeld
    }
  }

  /**
   * Forgets a peer whose transport session ended (a DTLS session closed; RFC 7252 §9.1 scopes message ids and tokens
   * to it): its pending requests fail with coap.peer.gone, observations end ('gone') both ways, its CONs stop, and
   * its message ids are forgotten. Block-wise state left for it expires on its own.
   */
  forgetPeer (peer: string): void {
    this.requester.forget(peer)
    this.observations.close('gone', peer)
    this.observers.clear('gone', peer)
    this.layer.forget(peer)
  }

  /** Stops timers; pending requests fail with coap.closed, observations end ('closed'); receive() ignores input. */
  close (): void {
    if (this.closed) return
    this.closed = true
    this.incoming.close()
    this.requester.close()
    this.observations.close()
    this.layer.transmitter.clear()
    this.observers.clear()
  }
}
