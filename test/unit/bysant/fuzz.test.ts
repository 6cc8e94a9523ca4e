// protocols/bysant: random, truncated and corrupted bytes never throw out of the decoders; they answer a value,
// 'more' or a refusal. Nesting and declared lengths are bounded (docs/protocols/m3da.md).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { BysantReader, Ctx, decodeAll, encode } from '../../../protocols/bysant/index.js'
import { caseOf, CLASSES } from './cases.js'

const contexts = fc.constantFrom<Ctx>(0, 1, 2, 3, 4, 5, 6)

/** Pushes `bytes` in `chunks`-sized pieces and reads until 'more' or a refusal; never throws. */
function drain (bytes: Uint8Array, chunk: number, opts = {}): Array<'more' | { ok: boolean }> {
  const reader = new BysantReader({ classes: CLASSES, ...opts })
  const seen: Array<'more' | { ok: boolean }> = []
  for (let at = 0; at < bytes.length; at += chunk) {
    reader.push(Buffer.from(bytes.subarray(at, at + chunk)))
    for (let r = reader.next(); ; r = reader.next()) {
      seen.push(r)
      if (r === 'more' || !r.ok) break
    }
  }
  return seen
}

describe('fuzz', () => {
  it('random bytes: decodeAll and the reader answer without throwing, in every context', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), contexts, fc.integer({ min: 1, max: 64 }), (bytes, ctx, chunk) => {
      const all = decodeAll(Buffer.from(bytes), ctx, CLASSES)
      expect(typeof all.ok).toBe('boolean')
      expect(() => drain(bytes, chunk, { ctx })).not.toThrow()
    }), { numRuns: 5000 })
  })

  it('truncated streams: decodeAll says truncated, the reader says more, neither throws', () => {
    fc.assert(fc.property(caseOf(Ctx.Global), fc.nat(), ({ input }, cut) => {
      const bytes = encode(input, Ctx.Global, CLASSES)
      const at = cut % bytes.length
      expect(decodeAll(bytes.subarray(0, at), Ctx.Global, CLASSES)).toEqual(at === 0 ? { ok: true, values: [] } : { ok: false, reason: 'bysant.truncated' })
      const reader = new BysantReader({ classes: CLASSES })
      reader.push(bytes.subarray(0, at))
      expect(reader.next()).toBe('more')
    }), { numRuns: 2000 })
  })

  it('corrupted streams (a byte changed, inserted or removed) never throw', () => {
    fc.assert(fc.property(caseOf(Ctx.Global), fc.nat(), fc.integer({ min: 0, max: 255 }), fc.constantFrom('set', 'insert', 'remove'),
      ({ input }, pos, byte, how) => {
        const bytes = encode(input, Ctx.Global, CLASSES)
        const at = pos % bytes.length
        const bad = how === 'set'
          ? Buffer.concat([bytes.subarray(0, at), Buffer.from([byte]), bytes.subarray(at + 1)])
          : how === 'insert'
            ? Buffer.concat([bytes.subarray(0, at), Buffer.from([byte]), bytes.subarray(at)])
            : Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)])
        expect(() => decodeAll(bad, Ctx.Global, CLASSES)).not.toThrow()
        expect(() => drain(bad, 7)).not.toThrow()
      }), { numRuns: 3000 })
  })
})

describe('limits', () => {
  it('refuses nesting deeper than maxDepth without exhausting the stack', () => {
    const deep = Buffer.alloc(200_000, 0x2B) // list of one list of one list…
    expect(decodeAll(deep)).toEqual({ ok: false, reason: 'bysant.too.deep' })
    const reader = new BysantReader({ maxDepth: 10 })
    reader.push(deep.subarray(0, 11))
    expect(reader.next()).toEqual({ ok: false, reason: 'bysant.too.deep' })
    expect(decodeAll(Buffer.concat([Buffer.alloc(10, 0x2B), Buffer.from([0x9F])]), Ctx.Global, [], { maxDepth: 10 }).ok).toBe(true)
  })

  it('refuses a declared length or a pending value beyond maxBytes, and is unusable afterwards', () => {
    const reader = new BysantReader({ maxBytes: 1000 })
    reader.push(Buffer.from([0x28, 0xFF, 0xFF])) // a Global string of 66592 bytes
    expect(reader.next()).toEqual({ ok: false, reason: 'bysant.too.large' })
    reader.push(Buffer.from([0x9F]))
    expect(reader.next()).toEqual({ ok: false, reason: 'bysant.too.large' })

    const list = new BysantReader({ maxBytes: 1000 })
    list.push(Buffer.from([0x34, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])) // a list of 2^32 + 9 items
    expect(list.next()).toEqual({ ok: false, reason: 'bysant.too.large' })

    const chunked = new BysantReader({ maxBytes: 1000 })
    for (let i = 0; i < 20; i++) chunked.push(i === 0 ? Buffer.from([0x29]) : Buffer.concat([Buffer.from([0, 100]), Buffer.alloc(100)]))
    expect(chunked.next()).toEqual({ ok: false, reason: 'bysant.too.large' })
  })
})
