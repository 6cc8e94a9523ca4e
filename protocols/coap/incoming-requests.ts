// Requests from peers (RFC 7252 §5.2, §5.4.1): screening, Block1 reassembly, Block2 serving, observe registration,
// the handler call, and the answer: piggybacked in the ACK, or separate after an empty ACK when the handler is slow.
import { encodeBlock, readBlock, type BlockValue } from './block.js'
import type { Block1Receiver } from './block1-receiver.js'
import { CoapCode, isSuccessCode } from './codes.js'
import { countRefusal, type CoapCounters } from './counters.js'
import { toParts, type Parts, type RequestHandler } from './exchanges.js'
import type { MessageLayer } from './message-layer.js'
import { OBSERVE_DEREGISTER, OBSERVE_REGISTER } from './observe.js'
import { OptionNumber, findBadCriticalOption, getUintOption, hasOption, withOption, withoutOption } from './options.js'
import type { EndpointLimits } from './params.js'
import { blockOfResponse, representationKey, type ServedBodies } from './response-blocks.js'
import type { ServedObservers } from './served-observers.js'
import type { TimerHandle, Timers } from './timers.js'
import { MessageType, coapMessage, type CoapMessage } from './types.js'

export interface IncomingDeps {
  layer: MessageLayer
  limits: EndpointLimits
  counters: CoapCounters
  timers: Timers
  handler: RequestHandler | undefined
  observers: ServedObservers
  bodies: ServedBodies
  block1: Block1Receiver
}

interface Exchange { peer: string, req: CoapMessage, acked: boolean, timer: TimerHandle | undefined, observing: boolean }
interface Plan { key: string, block2: BlockValue | undefined, echo: BlockValue | undefined }

const EMPTY = Buffer.alloc(0)
const noop = (): void => {}
const idOf = (peer: string, messageId: number): string => `${messageId} ${peer}`

export class IncomingRequests {
  private readonly open = new Map<string, Exchange>()
  private readonly running = new Map<string, number>()
  private closed = false

  constructor (private readonly d: IncomingDeps) {}

  /** A CON or NON request seen for the first time (deduplication is done). */
  handle (peer: string, req: CoapMessage): void {
    const ex: Exchange = { peer, req, acked: false, timer: undefined, observing: false }
    const bad = findBadCriticalOption(req)
    if (bad !== undefined) return this.refuseOption(ex)
    // §5.7.2: we are no proxy.
    if (hasOption(req, OptionNumber.ProxyUri) || hasOption(req, OptionNumber.ProxyScheme)) return this.refuse(ex, CoapCode.ProxyingNotSupported, 'coap.proxy')
    const block1 = readBlock(req, OptionNumber.Block1)
    const block2 = readBlock(req, OptionNumber.Block2)
    // RFC 7959 §2.2: a malformed Block option (SZX 7, over 3 bytes) is 4.00.
    if (block1 === 'invalid' || block2 === 'invalid') return this.refuse(ex, CoapCode.BadRequest, 'coap.block.invalid')
    if (getUintOption(req, OptionNumber.Observe) === OBSERVE_DEREGISTER) this.d.observers.remove(peer, req.token, 'deregistered')
    const key = representationKey(req)
    const kept = block2 !== undefined && block2.num > 0 ? this.d.bodies.get(peer, key) : undefined
    if (kept !== undefined) return this.respondBlock(ex, kept, { key, block2, echo: undefined })
    let echo: BlockValue | undefined
    if (block1 !== undefined) {
      const out = this.d.block1.accept(peer, req, block1)
      if (out.kind === 'reply') {
        if (out.refusal !== undefined) countRefusal(this.d.counters, out.refusal)
        return this.respond(ex, out.response)
      }
      ex.req = out.request
      echo = out.echo
    }
    if ((this.running.get(peer) ?? 0) >= this.d.limits.maxIncomingPerPeer) return this.refuse(ex, CoapCode.ServiceUnavailable, 'coap.peer.busy')
    this.run(ex, { key, block2, echo }).catch(() => { this.d.counters.internalErrors++ })
  }

  /** A duplicate of a CON still being handled: §4.5, acknowledge it now, the response will come separately. */
  duplicate (peer: string, messageId: number): void {
    const ex = this.open.get(idOf(peer, messageId))
    if (ex !== undefined && !ex.acked) this.goSeparate(ex)
  }

  close (): void {
    this.closed = true
    for (const ex of this.open.values()) this.d.timers.clearTimeout(ex.timer)
    this.open.clear()
  }

  private async run (ex: Exchange, plan: Plan): Promise<void> {
    const { peer, req } = ex
    this.running.set(peer, (this.running.get(peer) ?? 0) + 1)
    if (req.type === MessageType.CON) {
      this.open.set(idOf(peer, req.messageId), ex)
      ex.timer = this.d.timers.setTimeout(() => { this.goSeparate(ex) }, this.d.limits.separateAfterMs)
    }
    let res: Parts
    try {
      res = await this.call(req, peer)
    } finally {
      const n = (this.running.get(peer) ?? 1) - 1
      if (n === 0) this.running.delete(peer)
      else this.running.set(peer, n)
    }
    if (this.closed) return
    try {
      res = this.withObserve(ex, res)
      if (plan.echo !== undefined) res = { ...res, options: withOption(res.options, OptionNumber.Block1, encodeBlock(plan.echo)) }
      this.respondBlock(ex, res, plan)
    } catch {
      // A response that cannot be written (an option value over 65,804 bytes…) is the handler's bug: 5.00.
      this.d.counters.callbackErrors++
      this.respond(ex, { code: CoapCode.InternalServerError, options: [], payload: EMPTY })
    }
  }

  private async call (req: CoapMessage, peer: string): Promise<Parts> {
    if (this.d.handler === undefined) return { code: CoapCode.NotFound, options: [], payload: EMPTY }
    try {
      return toParts(await this.d.handler(req, peer))
    } catch {
      this.d.counters.callbackErrors++
      return { code: CoapCode.InternalServerError, options: [], payload: EMPTY }
    }
  }

  /**
   * RFC 7641 §4.1: a GET or FETCH with Observe 0 answered 2.xx with an Observe option registers the peer; any other
   * answer leaves it (or takes it) off the list, and loses its Observe option.
   */
  private withObserve (ex: Exchange, res: Parts): Parts {
    const { peer, req } = ex
    const asks = (req.code === CoapCode.GET || req.code === CoapCode.FETCH) && getUintOption(req, OptionNumber.Observe) === OBSERVE_REGISTER
    const offers = isSuccessCode(res.code) && hasOption(res, OptionNumber.Observe)
    const observer = asks && offers ? this.d.observers.register(peer, req) : undefined
    if (observer === undefined) {
      if (asks) this.d.observers.remove(peer, req.token, 'deregistered')
      return hasOption(res, OptionNumber.Observe) ? { ...res, options: withoutOption(res.options, OptionNumber.Observe) } : res
    }
    ex.observing = true
    return { ...res, options: withOption(res.options, OptionNumber.Observe, observer.seq) }
  }

  private respondBlock (ex: Exchange, res: Parts, plan: Plan): void {
    const shaped = blockOfResponse(res, plan.block2, this.d.limits.blockSzx)
    // RFC 7959 §2.2: a block past the end of the representation.
    if (shaped === undefined) return this.refuse(ex, CoapCode.BadOption, 'coap.block.past.end')
    if (shaped.payload.length < res.payload.length) {
      this.d.bodies.put(ex.peer, plan.key, { ...res, options: withoutOption(res.options, OptionNumber.Observe) })
    }
    this.respond(ex, shaped)
  }

  private refuse (ex: Exchange, code: number, reason: string): void {
    countRefusal(this.d.counters, reason)
    this.respond(ex, { code, options: [], payload: EMPTY })
  }

  /** §5.4.1: an unrecognized critical option is 4.02 in a CON, a reject (RST) in a NON. */
  private refuseOption (ex: Exchange): void {
    countRefusal(this.d.counters, 'coap.bad.option')
    if (ex.req.type === MessageType.CON) this.respond(ex, { code: CoapCode.BadOption, options: [], payload: EMPTY })
    else this.d.layer.reset(ex.peer, ex.req.messageId)
  }

  private respond (ex: Exchange, parts: Parts): void {
    const { peer, req } = ex
    this.d.timers.clearTimeout(ex.timer)
    this.open.delete(idOf(peer, req.messageId))
    if (req.type === MessageType.CON && !ex.acked) {
      this.d.layer.answer(peer, coapMessage(MessageType.ACK, parts.code, req.messageId, req.token, parts.options, parts.payload))
      return
    }
    const type = req.type === MessageType.CON ? MessageType.CON : MessageType.NON
    const msg = coapMessage(type, parts.code, this.d.layer.nextMessageId(peer), req.token, parts.options, parts.payload)
    if (type === MessageType.NON) return this.d.layer.send(peer, msg)
    // §5.2.2: a separate response is a CON of its own; lost, it ends an observation it registered.
    const lost = (): void => { if (ex.observing) this.d.observers.remove(peer, req.token, 'timeout') }
    this.d.layer.sendConfirmable(peer, msg, { onAck: noop, onReset: lost, onTimeout: lost })
  }

  private goSeparate (ex: Exchange): void {
    if (ex.acked || !this.open.has(idOf(ex.peer, ex.req.messageId))) return
    this.d.timers.clearTimeout(ex.timer)
    ex.timer = undefined
    ex.acked = true
    this.d.layer.emptyAck(ex.peer, ex.req.messageId)
  }
}
