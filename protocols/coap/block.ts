// The Block1 and Block2 option values and block slicing (RFC 7959 §2.2).
import { decodeUint, getOptions } from './options.js'
import type { CoapMessage } from './types.js'

/** NUM (up to 20 bits), M (more blocks follow) and SZX (block size 2^(SZX+4), 0–6). */
export interface BlockValue { num: number, more: boolean, szx: number }

export const MAX_BLOCK_NUM = 0xfffff
/** SZX 6 = 1024 bytes; 7 is reserved (RFC 8323 gives it BERT on TCP only). */
export const MAX_SZX = 6

export const blockSize = (szx: number): number => 1 << (szx + 4)

/** The largest SZX whose block fits in `bytes` (at least 0, i.e. 16 bytes; at most 6). */
export function szxFor (bytes: number): number {
  let szx = 0
  while (szx < MAX_SZX && blockSize(szx + 1) <= bytes) szx++
  return szx
}

/**
 * The option's uint value: NUM << 4 | M << 3 | SZX.
 * @throws RangeError for a NUM over 2^20 - 1 or an SZX outside 0–6.
 */
export function encodeBlock (b: BlockValue): number {
  if (!Number.isInteger(b.num) || b.num < 0 || b.num > MAX_BLOCK_NUM) throw new RangeError(`block number ${b.num}`)
  if (!Number.isInteger(b.szx) || b.szx < 0 || b.szx > MAX_SZX) throw new RangeError(`block SZX ${b.szx}`)
  return b.num * 16 + (b.more ? 8 : 0) + b.szx
}

/** The value of a Block option; undefined when longer than 3 bytes or with the reserved SZX 7 (§2.2: 4.00). */
export function decodeBlock (value: Buffer): BlockValue | undefined {
  if (value.length > 3) return undefined
  const v = decodeUint(value)
  const szx = v & 7
  if (szx > MAX_SZX) return undefined
  return { num: Math.floor(v / 16), more: (v & 8) === 8, szx }
}

/** The Block option `n` of a message: absent, valid, or 'invalid' (repeated, too long, SZX 7). */
export function readBlock (msg: Pick<CoapMessage, 'options'>, n: number): BlockValue | undefined | 'invalid' {
  const values = getOptions(msg, n)
  if (values.length === 0) return undefined
  if (values.length > 1) return 'invalid'
  return decodeBlock(values[0] as Buffer) ?? 'invalid'
}

/** Block `num` of a body at size 2^(szx+4); undefined past the end (block 0 of an empty body is empty). */
export function sliceBlock (body: Buffer, num: number, szx: number): { data: Buffer, more: boolean } | undefined {
  const size = blockSize(szx)
  const start = num * size
  if (start > body.length || (start === body.length && num > 0)) return undefined
  const end = Math.min(start + size, body.length)
  return { data: body.subarray(start, end), more: end < body.length }
}

/** The blocks of a body, in order (one empty block for an empty body). */
export function splitPayload (body: Buffer, szx: number): Buffer[] {
  const blocks: Buffer[] = []
  for (let num = 0; ; num++) {
    const b = sliceBlock(body, num, szx)
    if (b === undefined) return blocks
    blocks.push(b.data)
    if (!b.more) return blocks
  }
}
