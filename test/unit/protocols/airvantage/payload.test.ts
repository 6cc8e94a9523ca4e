import { readFileSync, readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeData, encodeData, MAX_PAYLOAD_BYTES, MAX_POINTS, normaliseTimestamp, type Point } from '../../../../protocols/airvantage/index.js'

const FIXTURES = fileURLToPath(new URL('../../../fixtures/airvantage/', import.meta.url))
const AT = 1_700_000_000_000

function refused (input: Buffer | string, timestampKeyed = false): string | undefined {
  const r = decodeData(input, { receivedAt: AT, timestampKeyed })
  return r.ok ? undefined : r.reason
}

describe('decodeData golden fixtures (test/fixtures/airvantage)', () => {
  const names = readdirSync(FIXTURES).filter((f) => f.endsWith('.payload.json')).map((f) => f.replace('.payload.json', ''))

  it('has fixtures for the three forms', () => {
    expect(names).toEqual(expect.arrayContaining(['list', 'timestamp-keyed', 'flat']))
  })

  it.each(names)('%s', (name) => {
    const payload = readFileSync(FIXTURES + name + '.payload.json') // raw bytes, as a broker delivers them
    const expected = JSON.parse(readFileSync(FIXTURES + name + '.expected.json', 'utf8'))
    expect(decodeData(payload, expected.opts)).toEqual({ ok: true, form: expected.form, points: expected.points })
    expect(decodeData(payload.toString('utf8'), expected.opts)).toEqual({ ok: true, form: expected.form, points: expected.points })
  })
})

describe('decodeData forms', () => {
  it('reads an object whose keys are all integer strings as timestamp-keyed', () => {
    expect(decodeData('{"1416324560869": {"a": 1}, "1416324561869": {"b": 2}}', { receivedAt: AT })).toEqual({
      ok: true,
      form: 'timestamp-keyed',
      points: [{ dataId: 'a', ts: 1416324560869, value: 1 }, { dataId: 'b', ts: 1416324561869, value: 2 }]
    })
  })

  it('reads an object with any non-integer key as flat, stamped at receivedAt', () => {
    const r = decodeData('{"a": 1, "12": 2}', { receivedAt: AT })
    expect(r).toMatchObject({ ok: true, form: 'flat' })
    expect(r.ok && r.points.map((p) => [p.dataId, p.ts])).toEqual([['12', AT], ['a', AT]])
  })

  it('Device-REST-Version 2 forces the timestamp-keyed reading', () => {
    expect(refused('{"machine.temperature": {"a": 1}}', true)).toBe('payload.invalid.timestamp')
    expect(refused('{"machine.temperature": 23.2}', false)).toBeUndefined()
    expect(decodeData('{"1416324560": {"a": 1}}', { receivedAt: AT, timestampKeyed: true }))
      .toEqual({ ok: true, form: 'timestamp-keyed', points: [{ dataId: 'a', ts: 1416324560000, value: 1 }] })
    // an array is the list form whatever the header says
    expect(decodeData('[{"a": [{"timestamp": 1416324560869, "value": 1}]}]', { receivedAt: AT, timestampKeyed: true }))
      .toMatchObject({ ok: true, form: 'list' })
  })

  it('stamps absent and null list timestamps at receivedAt', () => {
    const r = decodeData('[{"a": [{"value": 1}, {"timestamp": null, "value": 2}]}]', { receivedAt: AT })
    expect(r.ok && r.points.map((p) => p.ts)).toEqual([AT, AT])
  })

  it('stamps empty-string list timestamps at receivedAt (the HL-series MQTT sample)', () => {
    expect(decodeData('[{"MilliSec":[{"timestamp":"","value":"123456"}]}]', { receivedAt: AT }))
      .toEqual({ ok: true, form: 'list', points: [{ dataId: 'MilliSec', ts: AT, value: '123456' }] })
    const r = decodeData('[{"a": [{"timestamp": " ", "value": 1}, {"timestamp": 1416324560869, "value": 2}]}]', { receivedAt: AT })
    expect(r.ok && r.points.map((p) => p.ts)).toEqual([AT, 1416324560869])
  })

  it('keeps duplicates, in payload order', () => {
    const r = decodeData('[{"a": [{"timestamp": 1416324560869, "value": 1}]}, {"b": [{"timestamp": 1416324560869, "value": 2}]}, {"a": [{"timestamp": 1416324560869, "value": 1}]}]', { receivedAt: AT })
    expect(r.ok && r.points.map((p) => p.dataId)).toEqual(['a', 'b', 'a'])
  })

  it('accepts a leading BOM and a "__proto__" id as an ordinary id', () => {
    expect(decodeData(Buffer.from('\ufeff{"a": 1}'), { receivedAt: AT }).ok).toBe(true)
    expect(decodeData('\ufeff{"a": 1}', { receivedAt: AT }).ok).toBe(true)
    expect(decodeData('{"__proto__": 5}', { receivedAt: AT }))
      .toEqual({ ok: true, form: 'flat', points: [{ dataId: '__proto__', ts: AT, value: 5 }] })
  })

  it('accepts ids up to 255 characters, counted as code points', () => {
    expect(refused(JSON.stringify({ ['a'.repeat(255)]: 1 }))).toBeUndefined()
    expect(refused(JSON.stringify({ ['😀'.repeat(255)]: 1 }))).toBeUndefined()
    expect(refused(JSON.stringify({ ['😀'.repeat(256)]: 1 }))).toBe('payload.id.too.long')
  })

  it(`accepts exactly ${MAX_POINTS} points and a payload of exactly ${MAX_PAYLOAD_BYTES} bytes`, () => {
    expect(refused(JSON.stringify(Object.fromEntries(Array.from({ length: MAX_POINTS }, (_, i) => ['d' + i, i]))))).toBeUndefined()
    const body = '{"a": "' + 'x'.repeat(MAX_PAYLOAD_BYTES - 9) + '"}'
    expect(Buffer.byteLength(body)).toBe(MAX_PAYLOAD_BYTES)
    expect(refused(Buffer.from(body))).toBeUndefined()
  })
})

describe('decodeData timestamps', () => {
  it.each([
    [1416324560, 1416324560000], // seconds
    [1416324560.869, 1416324560869],
    [1416324560869, 1416324560869], // ms
    [1416324560869123, 1416324560869], // microseconds
    [1e11, 1e11], // smallest ms reading
    [1e14, 1e14], // largest ms reading
    [0, 0]
  ])('%d → %d ms', (t, ms) => {
    expect(normaliseTimestamp(t)).toBe(ms)
    const r = decodeData(JSON.stringify([{ a: [{ timestamp: t, value: 1 }] }]), { receivedAt: AT })
    expect(r.ok && r.points[0]?.ts).toBe(ms)
  })

  it('applies the same tolerance to timestamp keys', () => {
    const r = decodeData('{"1416324560": {"a": 1}, "1416324560869123": {"b": 2}}', { receivedAt: AT })
    expect(r.ok && r.points.map((p) => p.ts)).toEqual([1416324560000, 1416324560869])
  })
})

describe('decodeData refusals', () => {
  const big = Buffer.alloc(MAX_PAYLOAD_BYTES + 1, 0x20)
  it.each<[string, Buffer | string, boolean?]>([
    ['payload.too.large', big],
    ['payload.too.large', '{"a": "' + 'é'.repeat(MAX_PAYLOAD_BYTES / 2) + '"}'],
    ['payload.empty', Buffer.alloc(0)],
    ['payload.empty', ''],
    ['payload.empty', ' \r\n\t'],
    ['payload.empty', '[]'],
    ['payload.empty', '{}'],
    ['payload.empty', '[{}]'],
    ['payload.empty', '[{"a": []}]'],
    ['payload.empty', '{"1416324560869": {}}'],
    ['payload.invalid.utf8', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])],
    ['payload.invalid.utf8', Buffer.from([0xc0, 0xaf])], // overlong encoding
    ['payload.invalid.utf8', '{"a": "\ud800"}'], // a lone surrogate in a string input
    ['payload.invalid.json', '{'],
    ['payload.invalid.json', '[1,]'],
    ['payload.invalid.json', "{'a': 1}"],
    ['payload.invalid.json', 'NaN'],
    ['payload.invalid.shape', '42'],
    ['payload.invalid.shape', '"text"'],
    ['payload.invalid.shape', 'null'],
    ['payload.invalid.shape', 'true'],
    ['payload.invalid.shape', '[1]'],
    ['payload.invalid.shape', '[[]]'],
    ['payload.invalid.shape', '[{"a": 1}]'],
    ['payload.invalid.shape', '[{"a": {"timestamp": 1416324560869, "value": 1}}]'],
    ['payload.invalid.shape', '[{"a": [1]}]'],
    ['payload.invalid.shape', '[{"a": [{"timestamp": 1416324560869}]}]'],
    ['payload.invalid.shape', '{"1416324560869": 5}'],
    ['payload.invalid.shape', '{"1416324560869": [{"a": 1}]}'],
    ['payload.id.empty', '{"": 1}'],
    ['payload.id.empty', '{"  ": 1}'],
    ['payload.id.empty', '[{"": [{"value": 1}]}]'],
    ['payload.id.empty', '{"1416324560869": {"": 1}}'],
    ['payload.id.too.long', JSON.stringify({ ['a'.repeat(256)]: 1 })],
    ['payload.id.too.long', JSON.stringify([{ ['a'.repeat(256)]: [{ value: 1 }] }])],
    ['payload.invalid.string', '{"a\\u0000b": 1}'],
    ['payload.invalid.string', '{"a": "x\\u0000"}'],
    ['payload.invalid.string', '{"a": "\\ud800"}'],
    ['payload.invalid.string', '[{"a": [{"value": "\\udc00x"}]}]'],
    ['payload.invalid.value', '{"a": {"b": 1}}'],
    ['payload.invalid.value', '{"a": [1, 2]}'],
    ['payload.invalid.value', '[{"a": [{"timestamp": null, "value": {}}]}]'],
    ['payload.invalid.value', '{"1416324560869": {"a": [1]}}'],
    ['payload.value.not.finite', '{"a": 1e999}'],
    ['payload.value.not.finite', '[{"a": [{"value": -1e999}]}]'],
    ['payload.invalid.timestamp', '[{"a": [{"timestamp": -1, "value": 1}]}]'],
    ['payload.invalid.timestamp', '[{"a": [{"timestamp": "1416324560869", "value": 1}]}]'],
    ['payload.invalid.timestamp', '[{"a": [{"timestamp": 1e18, "value": 1}]}]'],
    ['payload.invalid.timestamp', '[{"a": [{"timestamp": 1e999, "value": 1}]}]'],
    ['payload.invalid.timestamp', '{"99999999999999999999": {"a": 1}}'],
    ['payload.invalid.timestamp', '{"later": {"a": 1}}', true],
    ['payload.too.many.points', JSON.stringify(Object.fromEntries(Array.from({ length: MAX_POINTS + 1 }, (_, i) => ['d' + i, i])))],
    ['payload.too.many.points', JSON.stringify([{ a: Array.from({ length: MAX_POINTS + 1 }, (_, i) => ({ timestamp: null, value: i })) }])]
  ])('%s: %#', (reason, input, keyed) => {
    expect(refused(input, keyed)).toBe(reason)
  })

  it('refuses input that is not bytes without throwing', () => {
    expect(decodeData(undefined as unknown as string, { receivedAt: AT })).toEqual({ ok: false, reason: 'payload.empty' })
  })
})

describe('encodeData', () => {
  const points: Point[] = [
    { dataId: 'a', ts: 1416324560869, value: 1 },
    { dataId: 'a', ts: 1416324561869, value: 2 },
    { dataId: 'b', ts: 1416324561869, value: 'x' },
    { dataId: 'a', ts: 1416324562869, value: null }
  ]

  it('writes the list form with runs of one id in one element, keeping order', () => {
    expect(JSON.parse(encodeData(points))).toEqual([
      { a: [{ timestamp: 1416324560869, value: 1 }, { timestamp: 1416324561869, value: 2 }] },
      { b: [{ timestamp: 1416324561869, value: 'x' }] },
      { a: [{ timestamp: 1416324562869, value: null }] }
    ])
  })

  it('writes the timestamp-keyed and flat forms', () => {
    expect(JSON.parse(encodeData(points, 'timestamp-keyed'))).toEqual({
      1416324560869: { a: 1 }, 1416324561869: { a: 2, b: 'x' }, 1416324562869: { a: null }
    })
    expect(decodeData(encodeData(points, 'timestamp-keyed'), { receivedAt: AT })).toEqual({ ok: true, form: 'timestamp-keyed', points })
    expect(JSON.parse(encodeData(points, 'flat'))).toEqual({ a: null, b: 'x' })
  })

  it('keeps a "__proto__" id as data', () => {
    const p = [{ dataId: '__proto__', ts: 1416324560869, value: 1 }]
    for (const form of ['list', 'timestamp-keyed'] as const) {
      expect(decodeData(encodeData(p, form), { receivedAt: AT })).toMatchObject({ ok: true, points: p })
    }
  })
})

describe('decodeData properties', () => {
  const neverThrows = (input: Buffer | string): void => {
    for (const timestampKeyed of [false, true]) {
      const r = decodeData(input, { receivedAt: AT, timestampKeyed })
      expect(typeof r.ok).toBe('boolean')
      if (r.ok) {
        expect(r.points.length).toBeGreaterThan(0)
        for (const p of r.points) {
          expect(Number.isInteger(p.ts) && p.ts >= 0).toBe(true)
          expect(p.value === null || ['number', 'string', 'boolean'].includes(typeof p.value)).toBe(true)
        }
      } else {
        expect(r.reason).toMatch(/^payload\.[a-z0-9.]+$/)
      }
    }
  }

  it('never throws on arbitrary bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) => neverThrows(Buffer.from(bytes))), { numRuns: 500 })
  })

  it('never throws on arbitrary JSON', () => {
    fc.assert(fc.property(fc.jsonValue(), (v) => neverThrows(JSON.stringify(v) ?? '')), { numRuns: 500 })
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => neverThrows(s)), { numRuns: 300 })
  })

  it('never throws on JSON shaped like the three forms, and accepts many of them', () => {
    const mostly = <T, U>(usual: fc.Arbitrary<T>, odd: fc.Arbitrary<U>): fc.Arbitrary<T | U> =>
      fc.oneof({ arbitrary: usual, weight: 8 }, { arbitrary: odd, weight: 1 })
    const id = mostly(fc.string({ minLength: 1 }), fc.string())
    const value = mostly(fc.oneof(fc.double(), fc.integer(), fc.string(), fc.boolean(), fc.constant(null)), fc.jsonValue({ maxDepth: 1 }))
    const ts = mostly(fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 1e17 })), fc.oneof(fc.double(), fc.string()))
    const series = fc.array(mostly(fc.record({ timestamp: ts, value }), fc.record({ timestamp: ts, value }, { requiredKeys: [] })))
    const list = fc.array(fc.dictionary(id, mostly(series, fc.jsonValue({ maxDepth: 1 })), { maxKeys: 4 }), { maxLength: 4 })
    const flat = fc.dictionary(id, value, { maxKeys: 6 })
    const keyed = fc.dictionary(mostly(fc.nat().map(String), fc.string()), flat, { maxKeys: 4 })
    let accepted = 0
    fc.assert(fc.property(fc.oneof(list, flat, keyed), (v) => {
      neverThrows(JSON.stringify(v))
      if (decodeData(JSON.stringify(v), { receivedAt: AT }).ok) accepted++
    }), { numRuns: 500 })
    expect(accepted).toBeGreaterThan(100) // the generator reaches the accepting paths, not only refusals
  })

  it('gives back generated points encoded in the list form', () => {
    const id = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 })
      .filter((s) => s.trim() !== '' && !s.includes('\u0000') && [...s].length <= 255)
    const value = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => (Object.is(d, -0) ? 0 : d)),
      fc.integer(), fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('\u0000')), fc.boolean(), fc.constant(null))
    const point = fc.record({ dataId: id, ts: fc.integer({ min: 1e11, max: 1e14 }), value })
    fc.assert(fc.property(fc.array(point, { minLength: 1, maxLength: 60 }), (points) => {
      expect(decodeData(Buffer.from(encodeData(points)), { receivedAt: AT })).toEqual({ ok: true, form: 'list', points })
    }), { numRuns: 300 })
  })
})
