// Receiving a request body block by block (RFC 7959 §2.3, Block1): 2.31 Continue for each block, the whole request
// to the handler after the last. Bounded per peer and in bytes held across peers.
import { encodeBlock, type BlockValue } from './block.js'
import { CoapCode } from './codes.js'
import type { Parts } from './exchanges.js'
import { OptionNumber, getUintOption, withOption, withoutOption } from './options.js'
import { BlockReassembler } from './reassembler.js'
import { representationKey } from './response-blocks.js'
import type { CoapMessage } from './types.js'

export type Block1Outcome =
  | { kind: 'reply', response: Parts, refusal?: string }
  | { kind: 'complete', request: CoapMessage, echo: BlockValue }

export interface Block1Options {
  maxBodySize: number
  maxPerPeer: number
  maxBytes: number
  ourSzx: number
  lifetimeMs: number
  now: () => number
}

interface Transfer { peer: string, readonly reassembler: BlockReassembler, expires: number }

const EMPTY = Buffer.alloc(0)
const reply = (code: number, refusal?: string, options: Parts['options'] = []): Block1Outcome =>
  ({ kind: 'reply', response: { code, options, payload: EMPTY }, refusal })

/**
 * Transfers are keyed by peer and request (method, Uri-Path, Uri-Query…: §2.3 "the same options"), not by token.
 * Block 0 starts (or restarts) one; any other block without one, or out of place, is 4.08; over maxBodySize (or a
 * Size1 announcing it) is 4.13 with Size1 = our maximum (§4); no room (per peer, or bytes in all) is 5.03.
 */
export class Block1Receiver {
  private readonly transfers = new Map<string, Transfer>()
  private readonly perPeer = new Map<string, number>()
  private held = 0

  constructor (private readonly o: Block1Options) {}

  get bytesHeld (): number { return this.held }

  accept (peer: string, req: CoapMessage, block: BlockValue): Block1Outcome {
    this.dropExpired()
    const id = `${representationKey(req)} ${peer}`
    let t = this.transfers.get(id)
    if (block.num === 0) {
      if (t !== undefined) this.end(id, t)
      const refusal = this.refuseStart(peer, req)
      if (refusal !== undefined) return refusal
      t = { peer, reassembler: new BlockReassembler({ maxSize: this.o.maxBodySize }), expires: 0 }
      this.perPeer.set(peer, (this.perPeer.get(peer) ?? 0) + 1)
    } else if (t === undefined) {
      return reply(CoapCode.RequestEntityIncomplete, 'coap.block.incomplete')
    }
    this.transfers.delete(id) // re-inserted last: the map stays in expiry order
    const before = t.reassembler.received
    const r = t.reassembler.add(block, req.payload)
    this.held += t.reassembler.received - before
    if (r.status === 'refused') {
      this.end(id, t)
      return reply(r.code, r.reason, r.code === CoapCode.RequestEntityTooLarge ? this.size1() : [])
    }
    if (r.status === 'continue') {
      t.expires = this.o.now() + this.o.lifetimeMs
      this.transfers.set(id, t)
      // §2.3: the server may ask for smaller blocks; the client goes on from the same byte offset.
      const echo = { num: block.num, more: true, szx: Math.min(block.szx, this.o.ourSzx) }
      return reply(CoapCode.Continue, undefined, withOption([], OptionNumber.Block1, encodeBlock(echo)))
    }
    this.end(id, t)
    const options = withoutOption(withoutOption(req.options, OptionNumber.Block1), OptionNumber.Size1)
    return { kind: 'complete', request: { ...req, options, payload: r.body }, echo: { ...block, more: false } }
  }

  private refuseStart (peer: string, req: CoapMessage): Block1Outcome | undefined {
    const announced = getUintOption(req, OptionNumber.Size1)
    if (announced !== undefined && announced > this.o.maxBodySize) return reply(CoapCode.RequestEntityTooLarge, 'coap.block.too.large', this.size1())
    if ((this.perPeer.get(peer) ?? 0) >= this.o.maxPerPeer) return reply(CoapCode.ServiceUnavailable, 'coap.block.transfers.peer')
    if (this.held + req.payload.length > this.o.maxBytes) return reply(CoapCode.ServiceUnavailable, 'coap.block.transfers.bytes')
    return undefined
  }

  private size1 (): Parts['options'] {
    return withOption([], OptionNumber.Size1, this.o.maxBodySize)
  }

  private dropExpired (): void {
    const now = this.o.now()
    for (const [id, t] of this.transfers) {
      if (t.expires > now) return
      this.end(id, t)
    }
  }

  private end (id: string, t: Transfer): void {
    if (this.transfers.get(id) === t) this.transfers.delete(id)
    this.held -= t.reassembler.received
    const n = (this.perPeer.get(t.peer) ?? 1) - 1
    if (n === 0) this.perPeer.delete(t.peer)
    else this.perPeer.set(t.peer, n)
  }
}
