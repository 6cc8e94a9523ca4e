// The Sparkplug B payload codec (docs/protocols/sparkplug.md): Tahu's own encoder (sparkplug-payload, what the Tahu
// edge node client sends) decodes to the values of each datatype; our encoder's payloads decode with Tahu's; compressed
// payloads; refusals; and property-based fuzzing: the decoder never throws, whatever the bytes.
import { deflateSync, gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import spp from 'sparkplug-payload'
import {
  COMPRESSED_UUID, DataType, MAX_PAYLOAD_BYTES, decodePayload, encodePayload, metricValue, parseTopic,
  type SparkplugPayload
} from '../../../protocols/sparkplug/index.js'

const tahu = (spp as unknown as { get: (v: string) => { encodePayload: (p: unknown) => Uint8Array, decodePayload: (b: Uint8Array) => any } }).get('spBv1.0')

function decoded (bytes: Uint8Array): SparkplugPayload {
  const d = decodePayload(bytes)
  if (!d.ok) throw new Error(d.reason)
  return d.payload
}

const valuesOf = (p: SparkplugPayload): Record<string, unknown> =>
  Object.fromEntries(p.metrics.map((m) => [m.name, metricValue(m, m.datatype ?? 0)]))

describe('decode what Tahu encodes', () => {
  it('every scalar datatype: signed in two\'s complement, 64-bit beyond 2^53 as exact text, UInt32 in the long field', () => {
    const bytes = tahu.encodePayload({
      timestamp: 1_700_000_000_000,
      seq: 7,
      metrics: [
        { name: 'i8', type: 'Int8', value: -5 },
        { name: 'i16', type: 'Int16', value: -300 },
        { name: 'i32', type: 'Int32', value: -70_000 },
        { name: 'i64', type: 'Int64', value: -2 },
        { name: 'u8', type: 'UInt8', value: 250 },
        { name: 'u16', type: 'UInt16', value: 65_000 },
        { name: 'u32', type: 'UInt32', value: 4_000_000_000 },
        { name: 'f', type: 'Float', value: 1.5 },
        { name: 'd', type: 'Double', value: -0.125 },
        { name: 'b', type: 'Boolean', value: true },
        { name: 's', type: 'String', value: 'hé/ü' },
        { name: 'dt', type: 'DateTime', value: 1_700_000_000_123 },
        { name: 'bytes', type: 'Bytes', value: Buffer.from([1, 2, 3]) },
        { name: 'null', type: 'Int32', value: null }
      ]
    })
    const p = decoded(bytes)
    expect({ timestamp: p.timestamp, seq: p.seq }).toEqual({ timestamp: 1_700_000_000_000, seq: 7 })
    expect(valuesOf(p)).toEqual({
      i8: -5,
      i16: -300,
      i32: -70_000,
      i64: -2,
      u8: 250,
      u16: 65_000,
      u32: 4_000_000_000,
      f: 1.5,
      d: -0.125,
      b: true,
      s: 'hé/ü',
      dt: 1_700_000_000_123,
      bytes: 'AQID',
      null: null
    })
    expect(p.metrics.every((m) => m.alias === undefined && m.timestamp === undefined)).toBe(true)
  })

  it('aliases and metric timestamps; 64-bit values beyond 2^53 are kept exactly', () => {
    const p = decoded(encodePayload({
      metrics: [
        { alias: 12345678901234n, timestamp: 5, datatype: DataType.UInt64, value: '18446744073709551615' },
        { name: 'big', datatype: DataType.Int64, value: '-9223372036854775808' }
      ]
    }))
    expect(p.metrics[0]).toMatchObject({ alias: '12345678901234', timestamp: 5 })
    expect(metricValue(p.metrics[0] as never, DataType.UInt64)).toBe('18446744073709551615')
    expect(metricValue(p.metrics[1] as never, DataType.Int64)).toBe('-9223372036854775808')
  })

  it('compressed payloads (DEFLATE, GZIP) decode to the inner payload', () => {
    const inner = encodePayload({ seq: 4, metrics: [{ name: 'x', datatype: DataType.Int32, value: 9 }] })
    for (const [algorithm, body] of [['DEFLATE', deflateSync(inner)], ['GZIP', gzipSync(inner)]] as const) {
      const outer = encodePayload({ uuid: COMPRESSED_UUID, body, metrics: [{ name: 'algorithm', datatype: DataType.String, value: algorithm }] })
      expect(valuesOf(decoded(outer))).toEqual({ x: 9 })
    }
  })
})

describe('Tahu decodes what we encode (NCMD / DCMD)', () => {
  it('Node Control/Rebirth, a write of each kind', () => {
    const bytes = encodePayload({
      timestamp: 5,
      metrics: [
        { name: 'Node Control/Rebirth', datatype: DataType.Boolean, value: true },
        { name: 'i16', datatype: DataType.Int16, value: -3 },
        { name: 'i64', datatype: DataType.Int64, value: 42 },
        { name: 'd', datatype: DataType.Double, value: 2.5 },
        { name: 's', datatype: DataType.String, value: 'on' }
      ]
    })
    const p = tahu.decodePayload(bytes)
    expect(p.metrics.map((m: any) => [m.name, m.type])).toEqual([['Node Control/Rebirth', 'Boolean'], ['i16', 'Int16'], ['i64', 'Int64'], ['d', 'Double'], ['s', 'String']])
    expect(p.metrics[0].value).toBe(true)
    expect(p.metrics[1].value).toBe(-3)
    expect(Number(p.metrics[2].value)).toBe(42)
    expect(p.metrics[3].value).toBe(2.5)
  })
})

describe('refusals', () => {
  it('garbage, a seq beyond 255, a timestamp beyond a Date, too large, a bad compressed body', () => {
    expect(decodePayload(Buffer.from([0x0a, 0xff, 0xff]))).toEqual({ ok: false, reason: 'payload.malformed' })
    expect(decodePayload(encodePayload({ seq: 256, metrics: [] }))).toEqual({ ok: false, reason: 'payload.seq.invalid' })
    expect(decodePayload(encodePayload({ timestamp: 9e15, metrics: [] }))).toEqual({ ok: false, reason: 'payload.timestamp.invalid' })
    expect(decodePayload(encodePayload({ metrics: [{ name: 'x', timestamp: 9e15, datatype: DataType.Int32, value: 1 }] }))).toEqual({ ok: false, reason: 'payload.timestamp.invalid' })
    expect(decodePayload(Buffer.alloc(MAX_PAYLOAD_BYTES + 1))).toEqual({ ok: false, reason: 'payload.too.large' })
    expect(decodePayload(encodePayload({ uuid: COMPRESSED_UUID, body: Buffer.from('nope'), metrics: [] }))).toEqual({ ok: false, reason: 'payload.compressed.invalid' })
    // A deflate bomb: inflated beyond the bound.
    const bomb = encodePayload({ uuid: COMPRESSED_UUID, body: deflateSync(Buffer.alloc(MAX_PAYLOAD_BYTES * 2)), metrics: [] })
    expect(decodePayload(bomb)).toEqual({ ok: false, reason: 'payload.compressed.invalid' })
  })

  it('a value field that does not fit the datatype is unsupported, not a wrong value', () => {
    const p = decoded(encodePayload({ metrics: [{ name: 'x', datatype: DataType.String, value: 'a' }] }))
    expect(metricValue(p.metrics[0] as never, DataType.Boolean)).toBe('unsupported')
    expect(metricValue(p.metrics[0] as never, DataType.DataSet)).toBe('unsupported')
  })

  it('topics: node and device types at their levels only', () => {
    expect(parseTopic('spBv1.0/g/NBIRTH/n')).toEqual({ group: 'g', type: 'NBIRTH', node: 'n' })
    expect(parseTopic('spBv1.0/g/DDATA/n/d')).toEqual({ group: 'g', type: 'DDATA', node: 'n', device: 'd' })
    for (const t of ['spBv1.0/g/NBIRTH/n/d', 'spBv1.0/g/DDATA/n', 'spBv1.0/g/XDATA/n', 'spBv1.0//NDATA/n', 'spBv1.0/STATE/h', 'spBv1.0/+/NDATA/n', 'x/g/NDATA/n']) {
      expect({ t, parsed: parseTopic(t) }).toEqual({ t, parsed: undefined })
    }
  })
})

describe('fuzz', () => {
  it('random bytes never throw: a payload or a refusal', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) => {
      const d = decodePayload(bytes)
      expect(typeof d.ok).toBe('boolean')
      if (d.ok) for (const m of d.payload.metrics) metricValue(m, m.datatype ?? 0)
    }), { numRuns: 3000 })
  })

  it('mutations of valid payloads never throw', () => {
    const base = encodePayload({ timestamp: 1, seq: 1, metrics: [{ name: 'a', alias: 3, datatype: DataType.Double, value: 1.5 }, { name: 'b', datatype: DataType.String, value: 'x' }] })
    fc.assert(fc.property(fc.array(fc.tuple(fc.nat(base.length - 1), fc.integer({ min: 0, max: 255 })), { maxLength: 8 }), fc.nat(base.length), (edits, cut) => {
      const bytes = Buffer.from(base)
      for (const [at, v] of edits) bytes[at] = v
      const d = decodePayload(bytes.subarray(0, cut))
      expect(typeof d.ok).toBe('boolean')
    }), { numRuns: 3000 })
  })

  it('what our encoder writes decodes to the same values', () => {
    const scalar = fc.oneof(
      fc.record({ datatype: fc.constant(DataType.Int32), value: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }) }),
      fc.record({ datatype: fc.constant(DataType.Int64), value: fc.maxSafeInteger() }),
      fc.record({ datatype: fc.constant(DataType.Double), value: fc.double({ noNaN: true, noDefaultInfinity: true }) }),
      fc.record({ datatype: fc.constant(DataType.Boolean), value: fc.boolean() }),
      fc.record({ datatype: fc.constant(DataType.String), value: fc.string() })
    )
    fc.assert(fc.property(fc.array(fc.tuple(fc.string({ minLength: 1 }), scalar), { maxLength: 20 }), fc.integer({ min: 0, max: 255 }), (metrics, seq) => {
      const p = decoded(encodePayload({ seq, metrics: metrics.map(([name, v]) => ({ name, ...v })) }))
      expect(p.seq).toBe(seq)
      expect(p.metrics.map((m) => [m.name, metricValue(m, m.datatype ?? 0)])).toEqual(metrics.map(([name, v]) => [name, v.datatype !== DataType.Double && Object.is(v.value, -0) ? 0 : v.value]))
    }), { numRuns: 500 })
  })
})
