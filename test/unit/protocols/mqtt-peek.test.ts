// protocols/mqtt/peek.ts: the protocol level and Will flag of a CONNECT read without consuming it (MQTT 3.1.1
// §3.1.2.1-3, MQTT 5.0 §3.1.2.1-3), used to hand a connection to the session of its version, or to aedes (a Will).
import fc from 'fast-check'
import mqttPacket from 'mqtt-packet'
import { describe, expect, it } from 'vitest'
import { peekProtocolLevel } from '../../../protocols/mqtt/peek.js'

function connect (version: 3 | 4 | 5, extra: Partial<mqttPacket.IConnectPacket> = {}): Buffer {
  return mqttPacket.generate({
    cmd: 'connect', protocolId: version === 3 ? 'MQIsdp' : 'MQTT', protocolVersion: version, clean: true, clientId: 'c1', keepalive: 30, ...extra
  } as mqttPacket.IConnectPacket, { protocolVersion: version })
}

describe('peekProtocolLevel', () => {
  it('reads the level of MQTT 3.1 (MQIsdp), 3.1.1 and 5 CONNECT packets, with or without what follows', () => {
    for (const v of [3, 4, 5] as const) {
      expect(peekProtocolLevel(connect(v))).toEqual({ kind: 'level', level: v, will: false })
      const big = connect(v, { username: 'u'.repeat(300), password: Buffer.alloc(20_000, 1) }) // 3-byte remaining length
      expect(peekProtocolLevel(big)).toEqual({ kind: 'level', level: v, will: false })
      expect(peekProtocolLevel(Buffer.concat([connect(v), Buffer.from([0x30, 0x00])]))).toEqual({ kind: 'level', level: v, will: false })
    }
  })

  it('tells a CONNECT carrying a Will', () => {
    for (const v of [3, 4, 5] as const) {
      const withWill = connect(v, { will: { topic: 'spBv1.0/g/NDEATH/n', payload: Buffer.from('x'), qos: 0, retain: false } } as Partial<mqttPacket.IConnectPacket>)
      expect(peekProtocolLevel(withWill)).toEqual({ kind: 'level', level: v, will: true })
    }
  })

  it('asks for more until the connect flags have come', () => {
    for (const v of [3, 4, 5] as const) {
      const p = connect(v)
      const flagsAt = v === 3 ? 2 + 2 + 6 + 1 : 2 + 2 + 4 + 1
      for (let n = 0; n < flagsAt; n++) expect(peekProtocolLevel(p.subarray(0, n))).toEqual({ kind: 'need-more' })
      expect(peekProtocolLevel(p.subarray(0, flagsAt + 1))).toEqual({ kind: 'level', level: v, will: false })
    }
  })

  it('refuses what is not a CONNECT', () => {
    const cases: Array<[string, number[]]> = [
      ['PUBLISH first', [0x30, 0x02, 0x00, 0x00]],
      ['CONNECT with flags', [0x11, 0x0c, 0x00, 0x04, 0x4d, 0x51, 0x54, 0x54, 0x04]],
      ['HTTP', [...Buffer.from('GET / HTTP/1.1\r\n')]],
      ['TLS hello', [0x16, 0x03, 0x01, 0x02, 0x00]],
      ['remaining length of 5 bytes', [0x10, 0xff, 0xff, 0xff, 0xff, 0x7f]],
      ['name length 5', [0x10, 0x0c, 0x00, 0x05, 0x4d, 0x51, 0x54, 0x54, 0x54, 0x04]],
      ['name MQTX', [0x10, 0x0c, 0x00, 0x04, 0x4d, 0x51, 0x54, 0x58, 0x04]],
      ['name mqtt (case matters)', [0x10, 0x0c, 0x00, 0x04, 0x6d, 0x71, 0x74, 0x74, 0x04]],
      ['name MQIsdX', [0x10, 0x0e, 0x00, 0x06, 0x4d, 0x51, 0x49, 0x73, 0x64, 0x58, 0x03]]
    ]
    for (const [name, bytes] of cases) expect({ name, peek: peekProtocolLevel(Uint8Array.from(bytes)) }).toEqual({ name, peek: { kind: 'invalid' } })
  })

  it('answers the level byte as sent, whatever it is (the session refuses an unknown version)', () => {
    expect(peekProtocolLevel(Uint8Array.from([0x10, 0x0c, 0x00, 0x04, 0x4d, 0x51, 0x54, 0x54, 0x07, 0x02]))).toEqual({ kind: 'level', level: 7, will: false })
  })

  it('never throws and always answers one of its three kinds (fast-check, any bytes)', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
      const r = peekProtocolLevel(bytes)
      return r.kind === 'need-more' || r.kind === 'invalid' || (r.kind === 'level' && Number.isInteger(r.level) && r.level >= 0 && r.level <= 255)
    }), { numRuns: 5000 })
    // Bytes that start like a CONNECT reach the deeper checks.
    fc.assert(fc.property(fc.uint8Array({ maxLength: 32 }), (tail) => {
      const r = peekProtocolLevel(Uint8Array.from([0x10, ...tail]))
      return ['need-more', 'invalid', 'level'].includes(r.kind)
    }), { numRuns: 5000 })
  })

  it('a decision, once made, does not change with more bytes (the router may act on it)', () => {
    const valid = fc.constantFrom(3, 4, 5).map((v) => connect(v as 3 | 4 | 5))
    const anyStart = fc.oneof(fc.uint8Array({ maxLength: 16 }), valid.chain((p) => fc.integer({ min: 0, max: p.length }).map((n) => Uint8Array.from(p.subarray(0, n)))))
    fc.assert(fc.property(anyStart, fc.uint8Array({ maxLength: 16 }), (start, more) => {
      const first = peekProtocolLevel(start)
      if (first.kind === 'need-more') return true
      expect(peekProtocolLevel(Uint8Array.from([...start, ...more]))).toEqual(first)
      return true
    }), { numRuns: 3000 })
  })
})
