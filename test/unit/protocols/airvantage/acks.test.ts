import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeAcks, encodeAcks, MAX_ACKS, MAX_PAYLOAD_BYTES, type Ack } from '../../../../protocols/airvantage/index.js'

const UID = '0f4b2c6e9a1d4e3f8b7a6c5d4e3f2a1b'

describe('decodeAcks', () => {
  it('reads the ack array of conventions.md §Devices', () => {
    const body = `[{"uid": "${UID}", "status": "OK"}, {"uid": "u2", "status": "ERROR", "message": "no such setting"}]`
    expect(decodeAcks(Buffer.from(body))).toEqual({
      ok: true,
      acks: [{ uid: UID, status: 'OK', message: null }, { uid: 'u2', status: 'ERROR', message: 'no such setting' }]
    })
  })

  it('reads a single ack object', () => {
    expect(decodeAcks(`{"uid": "${UID}", "status": "OK", "message": null}`))
      .toEqual({ ok: true, acks: [{ uid: UID, status: 'OK', message: null }] })
  })

  it('reads KO as ERROR, and statuses in any case', () => {
    const r = decodeAcks('[{"uid": "a", "status": "KO", "message": "failed"}, {"uid": "b", "status": "ok"}, {"uid": "c", "status": "error"}]')
    expect(r.ok && r.acks.map((a) => a.status)).toEqual(['ERROR', 'OK', 'ERROR'])
  })

  it(`accepts ${MAX_ACKS} acks`, () => {
    const r = decodeAcks(JSON.stringify(Array.from({ length: MAX_ACKS }, (_, i) => ({ uid: 'u' + i, status: 'OK' }))))
    expect(r.ok && r.acks.length).toBe(MAX_ACKS)
  })

  it.each<[string, Buffer | string]>([
    ['payload.too.large', Buffer.alloc(MAX_PAYLOAD_BYTES + 1, 0x20)],
    ['payload.empty', ''],
    ['payload.empty', '[]'],
    ['payload.invalid.utf8', Buffer.from([0x5b, 0xff, 0x5d])],
    ['payload.invalid.json', '[{"uid": "a", "status": "OK"'],
    ['ack.invalid.shape', '"OK"'],
    ['ack.invalid.shape', 'null'],
    ['ack.invalid.shape', '[["a", "OK"]]'],
    ['ack.invalid.uid', '[{"status": "OK"}]'],
    ['ack.invalid.uid', '[{"uid": "", "status": "OK"}]'],
    ['ack.invalid.uid', '[{"uid": 12, "status": "OK"}]'],
    ['ack.invalid.uid', JSON.stringify([{ uid: 'a'.repeat(256), status: 'OK' }])],
    ['ack.invalid.uid', '[{"uid": "a\\u0000", "status": "OK"}]'],
    ['ack.invalid.status', '[{"uid": "a"}]'],
    ['ack.invalid.status', '[{"uid": "a", "status": "DONE"}]'],
    ['ack.invalid.status', '[{"uid": "a", "status": "constructor"}]'],
    ['ack.invalid.status', '[{"uid": "a", "status": 1}]'],
    ['ack.invalid.message', '[{"uid": "a", "status": "ERROR", "message": {"text": "x"}}]'],
    ['ack.invalid.message', '[{"uid": "a", "status": "ERROR", "message": "\\ud800"}]'],
    ['ack.too.many', JSON.stringify(Array.from({ length: MAX_ACKS + 1 }, (_, i) => ({ uid: 'u' + i, status: 'OK' })))]
  ])('%s: %#', (reason, input) => {
    expect(decodeAcks(input)).toEqual({ ok: false, reason })
  })

  it('never throws on arbitrary bytes or JSON', () => {
    const check = (input: Buffer | string): void => {
      const r = decodeAcks(input)
      expect(typeof r.ok).toBe('boolean')
    }
    fc.assert(fc.property(fc.uint8Array({ maxLength: 256 }), (b) => check(Buffer.from(b))), { numRuns: 300 })
    fc.assert(fc.property(fc.jsonValue(), (v) => check(JSON.stringify(v) ?? '')), { numRuns: 300 })
    const ackLike = fc.record({ uid: fc.jsonValue({ maxDepth: 0 }), status: fc.oneof(fc.constantFrom('OK', 'ERROR', 'KO'), fc.string()), message: fc.jsonValue({ maxDepth: 1 }) }, { requiredKeys: [] })
    fc.assert(fc.property(fc.oneof(ackLike, fc.array(ackLike)), (v) => check(JSON.stringify(v))), { numRuns: 300 })
  })

  it('gives back encoded acks', () => {
    const ack: fc.Arbitrary<Ack> = fc.record({
      uid: fc.string({ minLength: 1, maxLength: 64 }).filter((s) => s.trim() !== '' && !s.includes('\u0000')),
      status: fc.constantFrom('OK' as const, 'ERROR' as const),
      message: fc.option(fc.string().filter((s) => !s.includes('\u0000')), { nil: null })
    })
    fc.assert(fc.property(fc.array(ack, { minLength: 1, maxLength: 20 }), (acks) => {
      expect(decodeAcks(encodeAcks(acks))).toEqual({ ok: true, acks })
    }), { numRuns: 200 })
  })
})
