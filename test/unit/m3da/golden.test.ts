// protocols/m3da: the reference test vectors and our own vectors of docs/protocols/m3da.md, the vector
// expansions of docs/protocols/m3da.md and the M3DA pitfalls of docs/protocols/m3da.md.
import { describe, expect, it } from 'vitest'
import { bysantObject, decodeAll } from '../../../protocols/bysant/index.js'
import {
  decodeEnvelope, decodePayload, deltasVector, encodeEnvelope, encodePayload, EnvelopeReader, M3DA_CLASSES, quasiPeriodicVector,
  type M3daObject
} from '../../../protocols/m3da/index.js'

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex')
const text = (s: string): string => Buffer.from(s).toString('hex')
const b = (s: string): Buffer => Buffer.from(s)

function payloadOf (bytes: Buffer): M3daObject[] {
  const env = decodeEnvelope(bytes)
  if (!env.ok) throw new Error(env.reason)
  const p = decodePayload(env.envelope.payload)
  if (!p.ok) throw new Error(p.reason)
  return p.objects
}

describe('reference test vector 1 (§1.9, Java codec tests)', () => {
  const vector1 = hex(`60 84 03 ${text('id')} 12 ${text('222000222000222')}
    1F 61 05 ${text('@sys')} B6 84 FF 4E 16 C3 0E 13 ${text('test de decodage')}
    83`)

  it('decodes to the annotated envelope, Message with an integer body key', () => {
    expect(decodeEnvelope(vector1)).toEqual({
      ok: true,
      envelope: { header: { id: b('222000222000222') }, payload: vector1.subarray(22, 52), footer: {} }
    })
    expect(payloadOf(vector1)).toEqual([
      { kind: 'message', path: '@sys', ticketId: 123, body: new Map([[1310114574, b('test de decodage')]]) }
    ])
  })

  it('is what our encoder writes for that envelope', () => {
    const payload = encodePayload([{ kind: 'message', path: '@sys', ticketId: 123, body: new Map([[1310114574, 'test de decodage']]) }])
    expect(encodeEnvelope({ header: { id: '222000222000222' }, payload }).toString('hex')).toBe(vector1.toString('hex'))
  })
})

describe('reference test vector 2 (§1.9), reconstructed from its description', () => {
  const key = 'A.B.C.D.E.F.G.H.I.J.K.L.M.O.P.Q.R.S.T.U.V.W.X.Y.Z.'.repeat(2) + 'ridiculouslylongpath'
  const payload = encodePayload([{
    kind: 'message', path: 'myAsset.somewhere', ticketId: 12, body: { [key]: ['string', 12, -50000, 450000000, ['A', 'B', 123]] }
  }])
  const vector2 = encodeEnvelope({ header: { id: 123456, dev: '123456789ABCDEF' }, payload })

  it('has the byte forms the description gives: id F1 D9 FF, a 167-byte payload (31 77), ticket 47, footer 83', () => {
    expect(vector2.subarray(0, 9).toString('hex')).toBe('6085036964f1d9ff04')
    expect(vector2.subarray(28, 30).toString('hex')).toBe('3177')
    expect(payload.length).toBe(167)
    expect(payload.subarray(0, 20).toString('hex')).toBe('61126d7941737365742e736f6d65776865726547'.slice(0, 40))
    expect(vector2.at(-1)).toBe(0x83)
  })

  it('equals the Java codec test\'s bytes', () => {
    const java = hex('6085036964f1d9ff04646576123132333435363738394142' +
      '43444546317761126d7941737365742e736f6d65776865726547843148412e422e432e442e452e462e472e' +
      '482e492e4a2e4b2e4c2e4d2e4f2e502e512e522e532e542e552e562e572e582e592e5a2e412e422e432e442e452e462e472e482e492e4a2e4b2e4c2e4d2e4f2e502e512e522e532e542e552e562e572e582e592e5a2e7269646963756c6f75736c796c6f' +
      '6e67706174682f09737472696e67abf4bb30fc1ad274802d04410442e03a83')
    expect(vector2.toString('hex')).toBe(java.toString('hex'))
  })

  it('decodes to that structure, also when it arrives in the Java test\'s four chunks', () => {
    const expected = [{
      kind: 'message',
      path: 'myAsset.somewhere',
      ticketId: 12,
      body: new Map([[key, [b('string'), 12, -50000, 450000000, [b('A'), b('B'), 123]]]])
    }]
    expect(payloadOf(vector2)).toEqual(expected)
    const reader = new EnvelopeReader()
    const results = [24, 67, 167, 198].map((end, i, ends) => {
      reader.push(vector2.subarray(ends[i - 1] ?? 0, end))
      return reader.next()
    })
    expect(results.slice(0, 3)).toEqual(['more', 'more', 'more'])
    expect(results[3]).toMatchObject({ ok: true, envelope: { header: { id: 123456, dev: b('123456789ABCDEF') }, footer: {} } })
  })
})

describe('our own vectors (§1.9)', () => {
  it('server "OK, nothing for you" reply', () => {
    const bytes = hex(`60 84 07 ${text('status')} E0 87 01 83`)
    expect(encodeEnvelope({ header: { status: 200 } })).toEqual(bytes)
    expect(decodeEnvelope(bytes)).toEqual({ ok: true, envelope: { header: { status: 200 }, payload: Buffer.alloc(0), footer: {} } })
  })

  it('device telemetry without security', () => {
    const bytes = hex(`60 84 03 ${text('id')} 12 ${text('012345678901234')} 30 61 10 ${text('greenhouse.data')} 00
      85 0C ${text('temperature')} FE 41 BC 00 00 09 ${text('humidity')} E0 05 83`)
    const payload = encodePayload([{ kind: 'message', path: 'greenhouse.data', ticketId: null, body: { temperature: 23.5, humidity: 70 } }])
    expect(encodeEnvelope({ header: { id: '012345678901234' }, payload })).toEqual(bytes)
    expect(payloadOf(bytes)).toEqual([{
      kind: 'message', path: 'greenhouse.data', ticketId: null, body: new Map<string, number>([['temperature', 23.5], ['humidity', 70]])
    }])
  })

  it('server command with an ack request', () => {
    const bytes = hex(`60 84 07 ${text('status')} E0 87 20 61 15 ${text('@sys.commands.Reboot')} 3C 84 06 ${text('delay')} C9 83`)
    const payload = encodePayload([{ kind: 'message', path: '@sys.commands.Reboot', ticketId: 1, body: { delay: 42 } }])
    expect(encodeEnvelope({ header: { status: 200 }, payload })).toEqual(bytes)
    expect(payloadOf(bytes)).toEqual([{ kind: 'message', path: '@sys.commands.Reboot', ticketId: 1, body: new Map([['delay', 42]]) }])
  })

  it('device acknowledgement and the Go tests\' Response', () => {
    const ack = { kind: 'response', ticketId: 1, status: 0, data: 'ok' } as const
    expect(encodePayload([ack])).toEqual(hex('62 3C 62 03 6F 6B'))
    expect(decodePayload(hex('62 3C 62 03 6F 6B'))).toEqual({ ok: true, objects: [ack] })
    const go = { kind: 'response', ticketId: 12345, status: 0, data: '' } as const
    expect(encodePayload([go])).toEqual(hex('62 E7 0F AD 62 01'))
    expect(decodePayload(hex('62 E7 0F AD 62 01'))).toEqual({ ok: true, objects: [go] })
  })

  it('DeltasVector{factor 1, start 200, deltas [10,−30,20]}', () => {
    const bytes = hex('63 63 C4 66 42 02 6C 44 76')
    expect(decodeAll(bytes, 0, M3DA_CLASSES)).toMatchObject({ ok: true, values: [{ classId: 3, fields: [1, 200, [10, -30, 20]] }] })
    const payload = encodePayload([{ kind: 'message', path: 'a', ticketId: null, body: { v: deltasVector(1, 200, [10, -30, 20]) } }])
    expect(payload.toString('hex')).toBe(hex('61 02 61 00 84 02 76').toString('hex') + bytes.toString('hex'))
    expect(decodePayload(payload)).toEqual({ ok: true, objects: [{ kind: 'message', path: 'a', ticketId: null, body: new Map([['v', [200, 210, 180, 200]]]) }] })
  })

  it('QuasiPeriodicVector{period 60, start 1000, shifts [5,−2,3,1,2,−1,4,0]} (Go tests)', () => {
    const bytes = hex('64 9E C7 86 09 A4 9D A2 A0 A1 9E A3 9F')
    const payload = encodePayload([{ kind: 'message', path: 'a', ticketId: null, body: { v: quasiPeriodicVector(60, 1000, [5, -2, 3, 1, 2, -1, 4, 0]) } }])
    expect(payload.subarray(-bytes.length)).toEqual(bytes)
    // An even number of shifts: four (count, shift) pairs, then the last shift (0) read as the trailing count.
    expect(decodePayload(payload)).toEqual({
      ok: true,
      objects: [{
        kind: 'message',
        path: 'a',
        ticketId: null,
        body: new Map([['v', [1000, 1060, 1120, 1180, 1240, 1300, 1358, 1418, 1478, 1538, 1599, 1659, 1719, 1778, 1838, 1898, 1958, 2018, 2078]]])
      }]
    })
  })
})

describe('vector expansions (§2.3)', () => {
  const expand = (v: ReturnType<typeof deltasVector>): unknown => {
    const p = decodePayload(encodePayload([{ kind: 'message', path: 'a', ticketId: null, body: { v } }]))
    return p.ok ? (p.objects[0] as { body: Map<string, unknown> }).body.get('v') : p
  }

  it('DeltasVector: factor 60, start 20563105, deltas [2,5,3]', () => {
    expect(expand(deltasVector(60, 20563105, [2, 5, 3]))).toEqual([1233786300, 1233786420, 1233786720, 1233786900])
  })

  it('QuasiPeriodicVector: period 20, start 143, shifts [3,1,2,−2,3]', () => {
    expect(expand(quasiPeriodicVector(20, 143, [3, 1, 2, -2, 3]))).toEqual([143, 163, 183, 203, 224, 244, 264, 282, 302, 322, 342])
  })

  it('vectors inside lists of a body are expanded too; a vector asking for too many points is refused', () => {
    expect(expand([deltasVector(2, 1, [1]), 5] as never)).toEqual([[2, 4], 5])
    expect(expand(quasiPeriodicVector(1, 0, [1e9]))).toEqual({ ok: false, reason: 'm3da.vector.too.large' })
    expect(expand(quasiPeriodicVector(1, 0, []))).toEqual({ ok: false, reason: 'm3da.invalid.vector' })
    expect(expand(bysantObject(3, [1, 0, ['x']]))).toEqual({ ok: false, reason: 'm3da.invalid.vector' })
  })
})

describe('pitfalls (§1.10)', () => {
  it('TCP carries bare envelopes: a 4-byte length prefix is not an envelope', () => {
    const envelope = encodeEnvelope({ header: { status: 200 } })
    const framed = Buffer.concat([Buffer.from([0, 0, 0, envelope.length]), envelope])
    const reader = new EnvelopeReader()
    reader.push(framed)
    expect(reader.next()).toEqual({ ok: false, reason: 'm3da.not.envelope' })
  })

  it('nonces are 16-byte binary strings, not int64', () => {
    const nonce = Buffer.from('00112233445566778899aabbccddeeff', 'hex')
    const bytes = encodeEnvelope({ header: { nonce }, footer: {} })
    expect(bytes.subarray(0, 9).toString('hex')).toBe('608406' + text('nonce') + '13')
    expect(decodeEnvelope(bytes)).toMatchObject({ ok: true, envelope: { header: { nonce } } })
  })
})
