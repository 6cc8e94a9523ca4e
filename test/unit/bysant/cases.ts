// fast-check generators of Bysant values for each context, each paired with what decoding its encoding must give
// (strings come back as bytes, integral doubles as integers, int64 as a number when safe: docs/protocols/m3da.md).
import fc from 'fast-check'
import {
  bysantObject, Ctx, typedList, typedMap, unsizedList, unsizedMap,
  type BysantValue, type ClassDef, type Encodable
} from '../../../protocols/bysant/index.js'

export interface Case { input: Encodable, expected: BysantValue }

const c = (input: Encodable, expected: BysantValue): Case => ({ input, expected })

/** Classes the generated objects use: small and long ids (60–6F, 70), every field context, no field at all. */
export const CLASSES: readonly ClassDef[] = [
  { id: 7, name: 'Seven', fields: [{ name: 'a', ctx: Ctx.Global }, { name: 'b', ctx: Ctx.UIS }, { name: 'c', ctx: Ctx.Numbers }] },
  { id: 16, fields: [{ ctx: Ctx.Int32 }, { ctx: Ctx.Float }, { ctx: Ctx.Double }, { ctx: Ctx.ListMap }] },
  { id: 300, fields: [] }
]

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

const safeOrBig = (n: bigint): number | bigint =>
  n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n

/** §1.7: an integral double is an integer on the wire (int64 when it fits, where −0 is 0). */
function doubleBack (d: number): number | bigint {
  if (!Number.isInteger(d)) return d
  if (Number.isSafeInteger(d)) return d === 0 ? 0 : d
  return d >= -(2 ** 63) && d < 2 ** 63 ? BigInt(d) : d
}

const text = fc.oneof(fc.string(), fc.string({ unit: 'binary', maxLength: 20 }))
const bytes = fc.oneof(
  fc.uint8Array({ maxLength: 40 }).map(u => Buffer.from(u)),
  fc.nat(2200).map(n => Buffer.alloc(n, 0x5A)) // the one- and two-byte length forms
)
const stringCase = fc.oneof(text.map(s => c(s, Buffer.from(s))), bytes.map(b => c(b, b)))

const intCase = fc.oneof(
  fc.integer({ min: -600_000, max: 600_000 }),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  fc.maxSafeInteger()
).map(n => c(n, n))
const bigCase = fc.bigInt({ min: INT64_MIN, max: INT64_MAX }).map(n => c(n, safeOrBig(n)))
const doubleCase = fc.oneof(fc.double(), fc.float().map(Math.fround)).map(d => c(d, doubleBack(d)))
const numberCase = fc.oneof(intCase, bigCase, doubleCase)
const nullCase = fc.constant(c(null, null))

export const scalarCases: Partial<Record<Ctx, fc.Arbitrary<Case>>> = {
  [Ctx.UIS]: fc.oneof(nullCase, fc.integer({ min: 0, max: 0xFFFFFFFF }).map(n => c(n, n)), stringCase),
  [Ctx.Numbers]: fc.oneof(nullCase, numberCase),
  [Ctx.Int32]: fc.oneof(nullCase, fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }).map(n => c(n, n)), fc.constant(c(-(2 ** 31), -(2 ** 31)))),
  [Ctx.Float]: fc.oneof(nullCase, fc.double().map(d => c(d, Math.fround(d)))),
  [Ctx.Double]: fc.oneof(nullCase, fc.double().map(d => c(d, d)))
}

const ctxArb = fc.constantFrom<Ctx>(0, 1, 2, 3, 4, 5, 6)
const keyCase = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }).map(s => ({ input: s, expected: Buffer.from(s).toString('utf8') as string | number })),
  fc.integer({ min: 0, max: 0xFFFFFFFF }).map(n => ({ input: n as string | number, expected: n as string | number }))
)

const { global, listMap } = fc.letrec<{ global: Case, listMap: Case, item: Case }>(tie => {
  const inCtx = (ctx: Ctx): fc.Arbitrary<Case> =>
    ctx === Ctx.Global ? tie('global') : ctx === Ctx.ListMap ? tie('listMap') : scalarCases[ctx] as fc.Arbitrary<Case>
  const items = (ctx: Ctx): fc.Arbitrary<Case[]> => fc.array(inCtx(ctx), { maxLength: 12, depthIdentifier: 'bysant' })
  const entries = (ctx: Ctx): fc.Arbitrary<Array<[{ input: string | number, expected: string | number }, Case]>> =>
    fc.uniqueArray(fc.tuple(keyCase, inCtx(ctx)), { maxLength: 12, selector: ([k]) => k.expected, depthIdentifier: 'bysant' })
  const noNull = (cs: Case[]): Case[] => cs.filter(x => x.expected !== null)
  const toMap = (es: Array<[{ expected: string | number }, Case]>): Map<string | number, BysantValue> =>
    new Map(es.map(([k, v]) => [k.expected, v.expected]))
  const toInput = (es: Array<[{ input: string | number }, Case]>): Map<string | number, Encodable> =>
    new Map(es.map(([k, v]) => [k.input, v.input]))

  const containers = fc.oneof(
    { depthIdentifier: 'bysant' },
    items(Ctx.Global).map(cs => c(cs.map(x => x.input), cs.map(x => x.expected))),
    items(Ctx.Global).map(noNull).map(cs => c(unsizedList(cs.map(x => x.input)), cs.map(x => x.expected))),
    fc.tuple(ctxArb, fc.boolean()).chain(([ctx, unsized]) => items(ctx).map(cs => {
      const kept = unsized ? noNull(cs) : cs
      return c(typedList(ctx, kept.map(x => x.input), { unsized }), kept.map(x => x.expected))
    })),
    entries(Ctx.Global).map(es => c(toInput(es), toMap(es))),
    entries(Ctx.Global).map(es => c(unsizedMap(toInput(es)), toMap(es))),
    fc.dictionary(fc.string().filter(k => k !== '__proto__'), tie('item'), { maxKeys: 6, depthIdentifier: 'bysant' })
      .map(d => c(Object.fromEntries(Object.entries(d).map(([k, v]) => [k, v.input])), new Map(Object.entries(d).map(([k, v]) => [k, v.expected])))),
    fc.tuple(ctxArb, fc.boolean()).chain(([ctx, unsized]) => entries(ctx).map(es => c(typedMap(ctx, toInput(es), { unsized }), toMap(es))))
  )
  const objects = fc.oneof(
    fc.tuple(tie('global'), scalarCases[Ctx.UIS] as fc.Arbitrary<Case>, scalarCases[Ctx.Numbers] as fc.Arbitrary<Case>)
      .map(fs => c(bysantObject(7, fs.map(f => f.input)), bysantObject(7, fs.map(f => f.expected)))),
    fc.tuple(scalarCases[Ctx.Int32] as fc.Arbitrary<Case>, scalarCases[Ctx.Float] as fc.Arbitrary<Case>,
      scalarCases[Ctx.Double] as fc.Arbitrary<Case>, tie('listMap'))
      .map(fs => c(bysantObject(16, fs.map(f => f.input)), bysantObject(16, fs.map(f => f.expected)))),
    fc.constant(c(bysantObject(300, []), bysantObject(300, [])))
  )
  return {
    item: tie('global'),
    global: fc.oneof(
      { depthIdentifier: 'bysant', withCrossShrink: true },
      nullCase, fc.boolean().map(b => c(b, b)), numberCase, stringCase, containers, objects
    ),
    listMap: fc.oneof({ depthIdentifier: 'bysant', withCrossShrink: true }, nullCase, containers)
  }
})

/** A value of context `ctx` and what it decodes to. */
export const caseOf = (ctx: Ctx): fc.Arbitrary<Case> =>
  ctx === Ctx.Global ? global : ctx === Ctx.ListMap ? listMap : scalarCases[ctx] as fc.Arbitrary<Case>
