// Serving a large response block by block (RFC 7959 §2.4, Block2): the block asked for, and the bodies kept so the
// following blocks come from the same representation without calling the handler again.
import { encodeBlock, sliceBlock, type BlockValue } from './block.js'
import type { Parts } from './exchanges.js'
import { OptionNumber, getOptions, withOption } from './options.js'
import type { CoapMessage } from './types.js'

/** The options that name a representation (§2.4: the next blocks are asked with the same ones). */
const KEY_OPTIONS = [OptionNumber.UriHost, OptionNumber.UriPort, OptionNumber.UriPath, OptionNumber.UriQuery, OptionNumber.Accept]

export function representationKey (req: Pick<CoapMessage, 'code' | 'options'>): string {
  const parts = [String(req.code)]
  for (const n of KEY_OPTIONS) parts.push(getOptions(req, n).map((v) => v.toString('hex')).join('.'))
  return parts.join('/')
}

/**
 * Block `requested.num` (block 0 when absent) of a response, at the requested size or our smaller one (§2.2: "the
 * block size indicated or a smaller size"); Size2 gives the total on block 0 (§4). A body of one block goes whole,
 * with a Block2 option only when one was asked for. Undefined when NUM is past the end.
 */
export function blockOfResponse (res: Parts, requested: BlockValue | undefined, ourSzx: number): Parts | undefined {
  const szx = Math.min(requested?.szx ?? ourSzx, ourSzx)
  const num = requested?.num ?? 0
  const slice = sliceBlock(res.payload, num, szx)
  if (slice === undefined) return undefined
  if (num === 0 && !slice.more && requested === undefined) return res
  let options = withOption(res.options, OptionNumber.Block2, encodeBlock({ num, more: slice.more, szx }))
  if (num === 0 && slice.more) options = withOption(options, OptionNumber.Size2, res.payload.length)
  return { code: res.code, options, payload: slice.data }
}

interface Kept { peer: string, parts: Parts, expires: number }

export interface ServedBodiesOptions { maxPerPeer: number, maxBytes: number, lifetimeMs: number, now: () => number }

/** Bodies kept for their next blocks: per peer and in bytes, the oldest forgotten first (then recomputed). */
export class ServedBodies {
  private readonly kept = new Map<string, Kept>()
  private readonly perPeer = new Map<string, number>()
  private bytes = 0

  constructor (private readonly o: ServedBodiesOptions) {}

  get (peer: string, key: string): Parts | undefined {
    const k = this.kept.get(`${key} ${peer}`)
    if (k === undefined) return undefined
    if (k.expires <= this.o.now()) {
      this.forget(`${key} ${peer}`, k)
      return undefined
    }
    return k.parts
  }

  put (peer: string, key: string, parts: Parts): void {
    if (this.o.maxPerPeer <= 0 || parts.payload.length > this.o.maxBytes) return
    const now = this.o.now()
    for (const [id, k] of this.kept) {
      if (k.expires > now) break
      this.forget(id, k)
    }
    const id = `${key} ${peer}`
    const old = this.kept.get(id)
    if (old !== undefined) this.forget(id, old)
    if ((this.perPeer.get(peer) ?? 0) >= this.o.maxPerPeer) this.forgetOldestOf(peer)
    while (this.kept.size > 0 && this.bytes + parts.payload.length > this.o.maxBytes) this.forgetOldest()
    this.kept.set(id, { peer, parts, expires: now + this.o.lifetimeMs })
    this.perPeer.set(peer, (this.perPeer.get(peer) ?? 0) + 1)
    this.bytes += parts.payload.length
  }

  private forgetOldest (): void {
    const first = this.kept.entries().next()
    if (first.done !== true) this.forget(first.value[0], first.value[1])
  }

  private forgetOldestOf (peer: string): void {
    for (const [id, k] of this.kept) {
      if (k.peer === peer) return this.forget(id, k)
    }
  }

  private forget (id: string, k: Kept): void {
    this.kept.delete(id)
    this.bytes -= k.parts.payload.length
    const n = (this.perPeer.get(k.peer) ?? 1) - 1
    if (n === 0) this.perPeer.delete(k.peer)
    else this.perPeer.set(k.peer, n)
  }
}
