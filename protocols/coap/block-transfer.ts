// Block-wise transfers of our requests (RFC 7959): sending a large body (Block1, §2.3) and pulling a large response
// (Block2, §2.4). Each block is its own exchange, with a fresh token.
import { blockSize, encodeBlock, readBlock, type BlockValue } from './block.js'
import { CoapCode, formatCode, isSuccessCode } from './codes.js'
import { CoapError } from './errors.js'
import type { SendParts } from './exchanges.js'
import { OptionNumber, getOption, getUintOption, withOption, withoutOption } from './options.js'
import { BlockReassembler } from './reassembler.js'
import type { CoapMessage } from './types.js'

export type Exchanger = (parts: SendParts) => Promise<CoapMessage>

const EMPTY = Buffer.alloc(0)
const valid = (b: BlockValue | undefined | 'invalid'): BlockValue | undefined => (b === 'invalid' ? undefined : b)

/**
 * Sends `parts.payload` in blocks of 2^(szx+4) bytes, Size1 on the first (§4). Every block but the last expects
 * 2.31 Continue; its Block1 may ask for smaller blocks, and we go on from the same byte offset (§2.3). A 4.13 to
 * block 0 with a smaller SZX starts again at that size (§2.9.3). Any other answer ends the transfer and is returned.
 */
export async function sendBlock1 (exchange: Exchanger, parts: SendParts, szx: number): Promise<CoapMessage> {
  const body = parts.payload
  let offset = 0
  let size = szx
  for (;;) {
    const num = offset / blockSize(size)
    const data = body.subarray(offset, offset + blockSize(size))
    const more = offset + data.length < body.length
    let options = withOption(parts.options, OptionNumber.Block1, encodeBlock({ num, more, szx: size }))
    if (num === 0) options = withOption(options, OptionNumber.Size1, body.length)
    const res = await exchange({ ...parts, options, payload: data })
    const echo = valid(readBlock(res, OptionNumber.Block1))
    if (res.code === CoapCode.RequestEntityTooLarge && num === 0 && echo !== undefined && echo.szx < size) {
      size = echo.szx
      continue
    }
    if (!more || res.code !== CoapCode.Continue) return res
    offset += data.length
    if (echo !== undefined && echo.szx < size) size = echo.szx
  }
}

/**
 * When `first` carries Block2 with M set, asks for the following blocks with the request's options (§2.4; without
 * Observe, §2.6) until the last, and returns `first` with the whole body and no Block2 option.
 * @throws CoapError coap.block.too.large over `maxSize` (or a Size2 announcing it), coap.block.incomplete when a
 * block is missing, misplaced or refused, coap.block.etag.changed when the representation changed meanwhile.
 */
export async function pullBlock2 (exchange: Exchanger, parts: SendParts, first: CoapMessage, maxSize: number): Promise<CoapMessage> {
  let block = valid(readBlock(first, OptionNumber.Block2))
  if (block === undefined || (!block.more && block.num === 0)) return first
  if (block.num !== 0) throw new CoapError('coap.block.incomplete', `first block is ${block.num}`)
  if ((getUintOption(first, OptionNumber.Size2) ?? 0) > maxSize) throw new CoapError('coap.block.too.large')
  const etag = getOption(first, OptionNumber.ETag)
  const base = [OptionNumber.Observe, OptionNumber.Block1, OptionNumber.Size1, OptionNumber.Block2].reduce(withoutOption, parts.options)
  const r = new BlockReassembler({ maxSize })
  let res = first
  for (;;) {
    const out = r.add(block, res.payload)
    if (out.status === 'refused') throw new CoapError(out.reason === 'coap.block.too.large' ? 'coap.block.too.large' : 'coap.block.incomplete')
    if (out.status === 'complete') return { ...first, options: withoutOption(first.options, OptionNumber.Block2), payload: out.body }
    const next = { num: block.num + 1, more: false, szx: block.szx }
    // RFC 8132: a FETCH's body is part of what it asks, so it goes again; other methods ask without one.
    const payload = parts.code === CoapCode.FETCH ? parts.payload : EMPTY
    res = await exchange({ ...parts, options: withOption(base, OptionNumber.Block2, encodeBlock(next)), payload })
    if (!isSuccessCode(res.code)) throw new CoapError('coap.block.incomplete', `block ${next.num} answered ${formatCode(res.code)}`)
    const tag = getOption(res, OptionNumber.ETag)
    if (etag !== undefined && (tag === undefined || !tag.equals(etag))) throw new CoapError('coap.block.etag.changed')
    block = valid(readBlock(res, OptionNumber.Block2))
    if (block === undefined) throw new CoapError('coap.block.incomplete', `block ${next.num} without Block2`)
  }
}
