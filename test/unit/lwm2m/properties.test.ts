// Property-based tests (fast-check): every decoder answers, never throws, whatever the bytes (random, and valid
// payloads mutated); and encode → decode gives back arbitrary valid values in every format that carries them.
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import {
  DEFAULT_OBJECTS, decodeContent, encodeContent, integerValue, parseLinkFormat, parseRegisterQuery,
  parseRegistrationLinks, parseUpdateQuery, type LwM2mPath, type LwM2mValue, type ObjectModel, type ResourceModel,
  type ValueType, type WriteValue
} from '../../../protocols/lwm2m/index.js'

const FORMATS = [0, 40, 42, 60, 110, 112, 11542, 1542, 11543, 1543, 7]
const PATHS: Array<LwM2mPath | null> = [
  null, { objectId: 3 }, { objectId: 3, instanceId: 0 }, { objectId: 3, instanceId: 0, resourceId: 7 },
  { objectId: 3, instanceId: 0, resourceId: 7, resourceInstanceId: 1 }, { objectId: 3303, instanceId: 0, resourceId: 5700 },
  { objectId: 5, instanceId: 0, resourceId: 0 }, { objectId: 1, instanceId: 0, resourceId: 1 }, { objectId: 6, instanceId: 0, resourceId: 0 },
  { objectId: 1, instanceId: 0, resourceId: 10 }, { objectId: 3, instanceId: 0, resourceId: 13 }
]

function answers (format: number, bytes: Uint8Array, path: LwM2mPath | null): boolean {
  const d = decodeContent(format, bytes, path)
  return typeof d.ok === 'boolean' && (d.ok ? Array.isArray(d.values) : typeof d.reason === 'string' && d.reason.startsWith('lwm2m.'))
}

describe('decoders never throw', () => {
  it('on arbitrary bytes, in every format, at every kind of path', () => {
    fc.assert(fc.property(fc.constantFrom(...FORMATS), fc.uint8Array({ maxLength: 300 }), fc.constantFrom(...PATHS),
      (format, bytes, path) => answers(format, bytes, path)), { numRuns: 3000 })
  })

  it('on bytes built from TLV headers, so that the frame reader goes deep', () => {
    const frame = fc.tuple(fc.integer({ min: 0, max: 255 }), fc.uint8Array({ maxLength: 12 })).map(([t, rest]) => [t, ...rest])
    fc.assert(fc.property(fc.array(frame, { maxLength: 12 }), fc.constantFrom(...PATHS),
      (frames, path) => answers(11542, Buffer.from(frames.flat()), path)), { numRuns: 2000 })
  })

  it('on valid payloads mutated: bytes flipped, cut, inserted', () => {
    const device = encodeContent(11542, [
      { path: { objectId: 3, instanceId: 0, resourceId: 0 }, value: 'Open Mobile Alliance' },
      { path: { objectId: 3, instanceId: 0, resourceId: 7, resourceInstanceId: 0 }, value: 3800 },
      { path: { objectId: 3, instanceId: 0, resourceId: 13 }, value: new Date(1367491215_000) }
    ], { basePath: { objectId: 3 } })
    const senml = encodeContent(112, [
      { path: { objectId: 1, instanceId: 0, resourceId: 10 }, value: { objectId: 11, instanceId: 0 }, timestamp: 1_700_000_000_000 },
      { path: { objectId: 1, instanceId: 0, resourceId: 7 }, value: 'UQ' }
    ], { basePath: { objectId: 1 } })
    const seeds = [device, senml].map((e) => { if (!e.ok) throw new Error(e.reason); return e.payload })
    const mutated = fc.tuple(fc.constantFrom(...seeds), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 }), fc.constantFrom('flip', 'cut', 'insert')), { maxLength: 4 }))
      .map(([seed, edits]) => {
        let b = [...seed]
        for (const [at, byte, op] of edits) {
          const i = at % (b.length + 1)
          if (op === 'flip') b[i % b.length] = byte
          else if (op === 'cut') b = b.slice(0, i)
          else b.splice(i, 0, byte)
        }
        return Buffer.from(b)
      })
    fc.assert(fc.property(mutated, fc.constantFrom(11542, 112, 60), fc.constantFrom(...PATHS),
      (bytes, format, path) => answers(format, bytes, path)), { numRuns: 2000 })
  })

  it('on arbitrary JSON in the JSON formats', () => {
    fc.assert(fc.property(fc.json({ maxDepth: 4 }), fc.constantFrom(110, 11543), fc.constantFrom(...PATHS),
      (json, format, path) => answers(format, Buffer.from(json), path)), { numRuns: 1000 })
  })

  it('on arbitrary text: link format, registration links, registration queries', () => {
    const linkish = fc.array(fc.constantFrom('<', '>', '/', '1', ';', ',', '=', '"', '\\', ' ', 'a', 'ct', 'rt', 'oma.lwm2m', '0'), { maxLength: 40 }).map((a) => a.join(''))
    fc.assert(fc.property(fc.oneof(fc.string(), linkish), (text) => {
      const a = parseLinkFormat(text)
      const b = parseRegistrationLinks(text)
      return typeof a.ok === 'boolean' && typeof b.ok === 'boolean'
    }), { numRuns: 2000 })
    fc.assert(fc.property(fc.array(fc.string(), { maxLength: 8 }), fc.string(), (options, query) => {
      return [parseRegisterQuery(options), parseRegisterQuery(query), parseUpdateQuery(options, '1.0')].every((d) => typeof d.ok === 'boolean')
    }), { numRuns: 1000 })
  })
})

// Values of each type; `exact` formats carry 64-bit integers whole (JSON does not beyond 2^53).
function valueOf (type: ValueType, exact: boolean): fc.Arbitrary<LwM2mValue> {
  const big = (min: bigint, max: bigint): fc.Arbitrary<LwM2mValue> => exact
    ? fc.bigInt(min, max).map(integerValue)
    : fc.integer({ min: Math.max(Number(min), Number.MIN_SAFE_INTEGER), max: Math.min(Number(max), Number.MAX_SAFE_INTEGER) })
  switch (type) {
    case 'String': case 'Corelnk': return fc.string({ unit: 'grapheme', maxLength: 30 })
    case 'Integer': return big(-(2n ** 63n), 2n ** 63n - 1n)
    case 'Unsigned Integer': return big(0n, 2n ** 64n - 1n)
    case 'Float': return fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (Object.is(x, -0) ? 0 : x))
    case 'Boolean': return fc.boolean()
    case 'Opaque': return fc.uint8Array({ maxLength: 30 }).map((b) => Buffer.from(b))
    case 'Time': return fc.integer({ min: -2_000_000_000, max: 4_000_000_000 }).map((s) => new Date(s * 1000))
    case 'Objlnk': return fc.record({ objectId: fc.integer({ min: 0, max: 65535 }), instanceId: fc.integer({ min: 0, max: 65535 }) })
  }
}

const valued = (o: ObjectModel): ResourceModel[] => o.resources.filter((r) => r.type !== 'none')
const id = fc.integer({ min: 0, max: 65535 })

/** The values of one object instance: some of its resources, multiple ones with 1–3 instances. */
function instanceValues (o: ObjectModel, instanceId: number, exact: boolean): fc.Arbitrary<WriteValue[]> {
  return fc.uniqueArray(fc.constantFrom(...valued(o)), { minLength: 1, maxLength: 6, selector: (r) => r.id }).chain((resources) =>
    fc.tuple(...resources.map((r) => {
      const path = { objectId: o.id, instanceId, resourceId: r.id }
      if (!r.multiple) return valueOf(r.type as ValueType, exact).map((value) => [{ path, value }])
      return fc.uniqueArray(fc.tuple(id, valueOf(r.type as ValueType, exact)), { minLength: 1, maxLength: 3, selector: ([ri]) => ri })
        .map((list) => list.map(([ri, value]) => ({ path: { ...path, resourceInstanceId: ri }, value })))
    })).map((lists) => lists.flat()))
}

function roundTrip (format: number, values: WriteValue[], base: LwM2mPath): void {
  const enc = encodeContent(format, values, { basePath: base })
  if (!enc.ok) throw new Error(enc.reason)
  const dec = decodeContent(format, enc.payload, base)
  if (!dec.ok) throw new Error(dec.reason)
  expect(dec.values.map((v) => ({ path: v.path, value: v.value }))).toEqual(values)
}

describe('encode → decode gives back the values', () => {
  for (const [format, exact] of [[11542, true], [112, true], [110, false], [11543, false]] as const) {
    it(`format ${format}: the values of an object instance, written at the instance`, () => {
      const instance = fc.constantFrom(...DEFAULT_OBJECTS.filter((o) => valued(o).length > 0)).chain((o) =>
        id.chain((i) => instanceValues(o, i, exact).map((values) => ({ base: { objectId: o.id, instanceId: i }, values }))))
      fc.assert(fc.property(instance, ({ base, values }) => { roundTrip(format, values, base) }), { numRuns: 300 })
    })
  }

  it('TLV and SenML CBOR: several object instances, written at the object', () => {
    const objectValues = fc.constantFrom(...DEFAULT_OBJECTS.filter((o) => valued(o).length > 0)).chain((o) =>
      fc.uniqueArray(id, { minLength: 1, maxLength: 3 }).chain((ids) => fc.tuple(...ids.map((i) => instanceValues(o, i, true))))
        .map((lists) => ({ o, values: lists.flat() })))
    fc.assert(fc.property(objectValues, fc.constantFrom(11542, 112), ({ o, values }, format) => {
      roundTrip(format, values, { objectId: o.id })
    }), { numRuns: 200 })
  })

  it('text and CBOR: one value of any modeled resource', () => {
    const one = fc.constantFrom(...DEFAULT_OBJECTS.flatMap((o) => valued(o).map((r) => ({ o, r })))).chain(({ o, r }) =>
      valueOf(r.type as ValueType, true).map((value) => ({ path: { objectId: o.id, instanceId: 0, resourceId: r.id }, value })))
    fc.assert(fc.property(one, fc.constantFrom(0, 60), (v, format) => { roundTrip(format, [v], v.path) }), { numRuns: 1000 })
  })

  it('SenML: timestamps come back to the millisecond', () => {
    // One value per time: two of one resource at one time are refused (lwm2m.encode.duplicate).
    const stamped = fc.uniqueArray(fc.tuple(fc.integer({ min: 2 ** 28 * 1000, max: 4_000_000_000_000 }), fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 })), { minLength: 1, maxLength: 5, selector: ([t]) => t })
    fc.assert(fc.property(stamped, fc.constantFrom(110, 112), (points, format) => {
      const values = points.map(([timestamp, v]) => ({ path: { objectId: 6, instanceId: 0, resourceId: 0 }, value: Object.is(v, -0) ? 0 : v, timestamp }))
      const enc = encodeContent(format, values, { basePath: { objectId: 6, instanceId: 0 } })
      const dec = enc.ok ? decodeContent(format, enc.payload, { objectId: 6 }) : enc
      expect(dec.ok && dec.values.map((x) => [x.value, x.timestamp])).toEqual(values.map((x) => [x.value, x.timestamp]))
    }), { numRuns: 300 })
  })
})
