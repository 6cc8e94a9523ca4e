// Device Messages → data points (ingest/m3da/points.ts; docs/protocols/m3da.md: correlated lists, POSIX-second
// timestamps).
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { pointsOf } from '../../../ingest/m3da/points.js'

const msg = (path: string | number, body: Record<string, unknown>) => ({ path, body: new Map(Object.entries(body)) })
const AT = 1_700_000_000_123

describe('M3DA points', () => {
  it('joins the path and the key, maps @sys ids, stamps at reception without a timestamp', () => {
    const r = pointsOf([msg('greenhouse', { temperature: 21.5, door: Buffer.from('open') }), msg('@sys.system.cellular.link', { rssi: -71 })], AT)
    expect(r).toEqual({
      ok: true,
      points: [
        { dataId: 'greenhouse.temperature', ts: AT, value: 21.5 },
        { dataId: 'greenhouse.door', ts: AT, value: 'open' },
        { dataId: '_RSSI', ts: AT, value: -71 }
      ]
    })
  })

  it('reads correlated lists row by row, stamped by the timestamps list in seconds', () => {
    const r = pointsOf([msg('greenhouse.data', { timestamps: [1_416_324_560, 1_416_324_561], temp: [20, 21], hum: [50, 51] })], AT)
    expect(r).toEqual({
      ok: true,
      points: [
        { dataId: 'greenhouse.data.temp', ts: 1_416_324_560_000, value: 20 },
        { dataId: 'greenhouse.data.temp', ts: 1_416_324_561_000, value: 21 },
        { dataId: 'greenhouse.data.hum', ts: 1_416_324_560_000, value: 50 },
        { dataId: 'greenhouse.data.hum', ts: 1_416_324_561_000, value: 51 }
      ]
    })
  })

  it('a scalar timestamp stamps its body; nested maps are further path parts; big ints stay exact', () => {
    const r = pointsOf([{ path: 'a', body: new Map<string | number, unknown>([['timestamp', 1_500_000_000], ['engine', new Map([['temp', 90]])], [3, 2n ** 60n]]) }], AT)
    expect(r).toEqual({
      ok: true,
      points: [{ dataId: 'a.engine.temp', ts: 1_500_000_000_000, value: 90 }, { dataId: 'a.3', ts: 1_500_000_000_000, value: (2n ** 60n).toString() }]
    })
  })

  it('refuses lists of different lengths, bad timestamps, empty paths and unstorable text', () => {
    expect(pointsOf([msg('a', { x: [1, 2], y: [1] })], AT)).toEqual({ ok: false, reason: 'payload.invalid.correlated' })
    expect(pointsOf([msg('a', { timestamps: [1, 2, 3], y: [1] })], AT)).toEqual({ ok: false, reason: 'payload.invalid.correlated' })
    expect(pointsOf([msg('a', { timestamp: -1, y: 1 })], AT)).toEqual({ ok: false, reason: 'payload.invalid.timestamp' })
    expect(pointsOf([msg('a', { timestamps: [Buffer.from('x')], y: [1] })], AT)).toEqual({ ok: false, reason: 'payload.invalid.timestamp' })
    expect(pointsOf([msg('..', { y: 1 })], AT)).toEqual({ ok: false, reason: 'payload.invalid.path' })
    expect(pointsOf([msg('a', { y: Buffer.from([0x61, 0]) })], AT)).toEqual({ ok: false, reason: 'payload.invalid.string' })
    expect(pointsOf([msg('a', { y: [[1]] })], AT)).toEqual({ ok: false, reason: 'payload.invalid.value' })
    expect(pointsOf([msg('a', { ['k'.repeat(300)]: 1 })], AT)).toEqual({ ok: false, reason: 'payload.id.too.long' })
  })

  it('never throws on any body', () => {
    const value = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.boolean(), fc.double(), fc.bigInt(), fc.uint8Array().map((b) => Buffer.from(b)),
        fc.array(tie('v'), { maxLength: 3 }), fc.array(fc.tuple(fc.oneof(fc.string(), fc.integer()), tie('v')), { maxLength: 3 }).map((e) => new Map(e)))
    })).v
    fc.assert(fc.property(fc.oneof(fc.string(), fc.integer()), fc.array(fc.tuple(fc.oneof(fc.string(), fc.integer()), value), { maxLength: 5 }), (path, entries) => {
      const r = pointsOf([{ path, body: new Map(entries) }], AT)
      expect(typeof r.ok).toBe('boolean')
    }), { numRuns: 2000 })
  })
})
