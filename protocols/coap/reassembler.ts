// A bounded reassembler for a block-wise body (RFC 7959 §2.3 Block1 request bodies, §2.4 Block2 responses).
import { blockSize, type BlockValue } from './block.js'
import { CoapCode } from './codes.js'

/** One MiB: far above an LwM2M object's TLV or SenML body, far below what would hurt the process. */
export const DEFAULT_MAX_BODY = 1024 * 1024

export type ReassemblyRefusal = 'coap.block.incomplete' | 'coap.block.too.large' | 'coap.block.bad.size'

export type ReassemblyResult =
  | { status: 'continue' }
  | { status: 'complete', body: Buffer }
  | { status: 'refused', code: number, reason: ReassemblyRefusal }

const refused = (reason: ReassemblyRefusal): ReassemblyResult => ({
  status: 'refused',
  reason,
  code: reason === 'coap.block.too.large'
    ? CoapCode.RequestEntityTooLarge
    : reason === 'coap.block.incomplete' ? CoapCode.RequestEntityIncomplete : CoapCode.BadRequest
})

/**
 * Blocks are placed by byte offset (NUM × size), so a size change mid-transfer (§2.3, RFC 7959 figure 6: block 0
 * at 128 bytes, then block 4 at 32) is accepted; a gap or a block out of order is 4.08, a body over `maxSize` 4.13,
 * and a non-final block that is not exactly one block long 4.00. Repeating the last accepted block is harmless.
 */
export class BlockReassembler {
  readonly maxSize: number
  private readonly chunks: Buffer[] = []
  private size = 0
  private last: { offset: number, length: number } | undefined

  constructor (options: { maxSize?: number } = {}) {
    this.maxSize = options.maxSize ?? DEFAULT_MAX_BODY
  }

  /** Bytes accepted so far. */
  get received (): number { return this.size }

  add (block: BlockValue, data: Buffer): ReassemblyResult {
    const offset = block.num * blockSize(block.szx)
    if (this.last !== undefined && offset === this.last.offset && data.length === this.last.length && block.more) {
      return { status: 'continue' }
    }
    if (offset !== this.size) return refused('coap.block.incomplete')
    if (block.more ? data.length !== blockSize(block.szx) : data.length > blockSize(block.szx)) return refused('coap.block.bad.size')
    if (this.size + data.length > this.maxSize) return refused('coap.block.too.large')
    this.chunks.push(Buffer.from(data))
    this.size += data.length
    this.last = { offset, length: data.length }
    if (block.more) return { status: 'continue' }
    return { status: 'complete', body: Buffer.concat(this.chunks, this.size) }
  }
}
