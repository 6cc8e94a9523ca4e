// Block-wise transfer values (RFC 7959 §2.2) and the bounded reassembler (§2.3, §2.4).
import { describe, expect, it } from 'vitest'
import {
  BlockReassembler, CoapCode, blockSize, decodeBlock, encodeBlock, encodeUint, readBlock, sliceBlock, splitPayload, szxFor
} from '../../../protocols/coap/index.js'

describe('Block option values (§2.2)', () => {
  it.each([
    [{ num: 0, more: false, szx: 0 }, ''],
    [{ num: 0, more: true, szx: 3 }, '0b'], // 2:0/1/128, RFC 7959 figure 2's first response
    [{ num: 1, more: false, szx: 2 }, '12'],
    [{ num: 15, more: true, szx: 6 }, 'fe'],
    [{ num: 16, more: false, szx: 6 }, '0106'],
    [{ num: 4095, more: true, szx: 5 }, 'fffd'],
    [{ num: 4096, more: false, szx: 1 }, '010001'],
    [{ num: 0xfffff, more: true, szx: 6 }, 'fffffe']
  ])('%o is %s, and back', (value, hexValue) => {
    const bytes = encodeUint(encodeBlock(value))
    expect(bytes.toString('hex')).toBe(hexValue)
    expect(decodeBlock(bytes)).toEqual(value)
  })
  it('SZX 7 is reserved and a value over 3 bytes is invalid (4.00 for a receiver)', () => {
    expect(decodeBlock(Buffer.from([0x07]))).toBeUndefined()
    expect(decodeBlock(Buffer.from([0, 0, 0, 0x16]))).toBeUndefined()
    expect(() => encodeBlock({ num: 0, more: false, szx: 7 })).toThrow(RangeError)
    expect(() => encodeBlock({ num: 0x100000, more: false, szx: 0 })).toThrow(RangeError)
    expect(readBlock({ options: [{ number: 23, value: Buffer.from([1]) }, { number: 23, value: Buffer.from([2]) }] }, 23)).toBe('invalid')
    expect(readBlock({ options: [] }, 23)).toBeUndefined()
  })
  it('sizes: 16 × 2^SZX, and the largest SZX fitting a byte count', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map(blockSize)).toEqual([16, 32, 64, 128, 256, 512, 1024])
    expect([1, 16, 63, 64, 1000, 1024, 1152, 100_000].map(szxFor)).toEqual([0, 0, 1, 2, 5, 6, 6, 6])
  })
})

describe('slicing a body', () => {
  const body = Buffer.from('x'.repeat(100))
  it('blocks of the size, the last one shorter, M set on all but the last', () => {
    expect(splitPayload(body, 1).map((b) => b.length)).toEqual([32, 32, 32, 4])
    expect(sliceBlock(body, 3, 1)).toEqual({ data: body.subarray(96), more: false })
    expect(sliceBlock(body, 2, 1)?.more).toBe(true)
    expect(sliceBlock(body, 4, 1)).toBeUndefined()
  })
  it('a body of exactly N blocks has no empty trailing block; an empty body is one empty block', () => {
    expect(splitPayload(Buffer.alloc(64), 1).map((b) => b.length)).toEqual([32, 32])
    expect(sliceBlock(Buffer.alloc(64), 2, 1)).toBeUndefined()
    expect(splitPayload(Buffer.alloc(0), 6)).toEqual([Buffer.alloc(0)])
  })
})

describe('BlockReassembler', () => {
  const blocks = (body: Buffer, szx: number): Array<[{ num: number, more: boolean, szx: number }, Buffer]> =>
    splitPayload(body, szx).map((data, num, all) => [{ num, more: num < all.length - 1, szx }, data])

  it('reassembles in order', () => {
    const body = Buffer.from('0123456789'.repeat(20))
    const r = new BlockReassembler()
    const results = blocks(body, 2).map(([b, d]) => r.add(b, d))
    expect(results.slice(0, -1).every((x) => x.status === 'continue')).toBe(true)
    expect(results.at(-1)).toEqual({ status: 'complete', body })
  })
  it('follows a size change by byte offset (RFC 7959 figure 6: block 0 at 128 bytes, then 4 at 32)', () => {
    const body = Buffer.alloc(180, 1)
    const r = new BlockReassembler()
    expect(r.add({ num: 0, more: true, szx: 3 }, body.subarray(0, 128)).status).toBe('continue')
    expect(r.add({ num: 4, more: true, szx: 1 }, body.subarray(128, 160)).status).toBe('continue')
    expect(r.add({ num: 5, more: false, szx: 1 }, body.subarray(160))).toEqual({ status: 'complete', body })
  })
  it('a missing or out-of-order block is 4.08; the last block repeated is harmless', () => {
    const r = new BlockReassembler()
    expect(r.add({ num: 0, more: true, szx: 0 }, Buffer.alloc(16)).status).toBe('continue')
    expect(r.add({ num: 0, more: true, szx: 0 }, Buffer.alloc(16)).status).toBe('continue')
    expect(r.add({ num: 2, more: true, szx: 0 }, Buffer.alloc(16))).toEqual({ status: 'refused', reason: 'coap.block.incomplete', code: CoapCode.RequestEntityIncomplete })
    expect(new BlockReassembler().add({ num: 1, more: false, szx: 0 }, Buffer.alloc(3))).toMatchObject({ code: CoapCode.RequestEntityIncomplete })
  })
  it('a non-final block not exactly one block long, or a final one longer, is 4.00', () => {
    expect(new BlockReassembler().add({ num: 0, more: true, szx: 0 }, Buffer.alloc(15))).toMatchObject({ reason: 'coap.block.bad.size', code: CoapCode.BadRequest })
    expect(new BlockReassembler().add({ num: 0, more: false, szx: 0 }, Buffer.alloc(17))).toMatchObject({ code: CoapCode.BadRequest })
  })
  it('over the maximum total size is 4.13 (1 MiB by default)', () => {
    const r = new BlockReassembler({ maxSize: 40 })
    expect(r.add({ num: 0, more: true, szx: 0 }, Buffer.alloc(16)).status).toBe('continue')
    expect(r.add({ num: 1, more: true, szx: 0 }, Buffer.alloc(16)).status).toBe('continue')
    expect(r.add({ num: 2, more: true, szx: 0 }, Buffer.alloc(16))).toEqual({ status: 'refused', reason: 'coap.block.too.large', code: CoapCode.RequestEntityTooLarge })
    expect(new BlockReassembler().maxSize).toBe(1024 * 1024)
  })
})
