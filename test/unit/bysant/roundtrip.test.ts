// protocols/bysant: decode(encode(x)) = x for generated values in every context (docs/protocols/m3da.md), and
// the incremental reader yields the same values however the stream is cut into chunks (§1.8).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { BysantReader, Ctx, decodeAll, encode, encodeClassDef, type BysantValue } from '../../../protocols/bysant/index.js'
import { caseOf, CLASSES } from './cases.js'

describe('round trip', () => {
  for (const [name, ctx] of Object.entries(Ctx)) {
    it(`decodes what it encodes in context ${ctx} (${name})`, () => {
      fc.assert(fc.property(caseOf(ctx), ({ input, expected }) => {
        expect(decodeAll(encode(input, ctx, CLASSES), ctx, CLASSES)).toEqual({ ok: true, values: [expected] })
      }), { numRuns: ctx === Ctx.Global || ctx === Ctx.ListMap ? 1000 : 300 })
    })
  }
})

describe('incremental reading', () => {
  /** A stream of values (with an in-band class definition), cut at the given points. */
  const streams = fc.tuple(fc.array(caseOf(Ctx.Global), { minLength: 1, maxLength: 6 }), fc.array(fc.nat(), { maxLength: 8 }))

  const readAll = (chunks: Buffer[]): BysantValue[] => {
    const reader = new BysantReader({ classes: CLASSES.slice(0, 1) })
    const out: BysantValue[] = []
    for (const chunk of chunks) {
      reader.push(chunk)
      for (let r = reader.next(); r !== 'more'; r = reader.next()) {
        if (!r.ok) throw new Error(r.reason)
        out.push(r.value)
      }
    }
    expect(reader.buffered).toBe(0)
    return out
  }

  it('any split of a valid stream into chunks gives the same values', () => {
    fc.assert(fc.property(streams, ([cases, cuts]) => {
      // Classes 16 and 300 are defined in-band, before the first value; the reader knows class 7 out of band.
      const stream = Buffer.concat([encodeClassDef(CLASSES[1] as never), encodeClassDef(CLASSES[2] as never),
        ...cases.map(x => encode(x.input, Ctx.Global, CLASSES))])
      const points = [...new Set(cuts.map(n => n % (stream.length + 1)))].sort((a, b) => a - b)
      const chunks = [0, ...points].map((at, i) => stream.subarray(at, points[i] ?? stream.length))
      expect(readAll(chunks)).toEqual(cases.map(x => x.expected))
    }), { numRuns: 500 })
  })

  it('byte by byte too, and each value comes with its exact bytes', () => {
    const values = [{ a: [1, 2.5, 'x'] }, 'y'.repeat(3000), [null, true]]
    const stream = Buffer.concat(values.map(v => encode(v)))
    const reader = new BysantReader()
    const got: Buffer[] = []
    for (const byte of stream) {
      reader.push(Buffer.from([byte]))
      const r = reader.next()
      if (r !== 'more' && r.ok) got.push(r.bytes)
    }
    expect(got.map(b => b.toString('hex'))).toEqual(values.map(v => encode(v).toString('hex')))
  })

  it('waits for the bytes a declared length asks for before parsing again', () => {
    const reader = new BysantReader()
    const big = encode(Buffer.alloc(50_000, 1))
    reader.push(big.subarray(0, 10))
    expect(reader.next()).toBe('more')
    reader.push(big.subarray(10, 40_000))
    expect(reader.next()).toBe('more')
    reader.push(big.subarray(40_000))
    expect(reader.next()).toMatchObject({ ok: true, value: Buffer.alloc(50_000, 1) })
  })
})
