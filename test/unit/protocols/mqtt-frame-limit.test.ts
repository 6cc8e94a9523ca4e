// protocols/mqtt/frame-limit.ts: packet sizes read from the byte stream (MQTT 3.1.1 §2.2.3), whatever the chunking.
import fc from 'fast-check'
import mqttPacket from 'mqtt-packet'
import { describe, expect, it } from 'vitest'
import { createFrameLimit } from '../../../protocols/mqtt/frame-limit.js'

const publish = (bytes: number): Buffer => mqttPacket.generate({ cmd: 'publish', topic: 't', payload: Buffer.alloc(bytes), qos: 0, retain: false, dup: false })
const connect = mqttPacket.generate({ cmd: 'connect', protocolId: 'MQTT', protocolVersion: 4, clean: true, clientId: 'c', keepalive: 0 } as mqttPacket.IConnectPacket)

/** Feeds the bytes cut at the given points; answers the last check. */
function feedCut (limits: { first: number, next: number }, bytes: Buffer, cuts: number[]): string {
  const limit = createFrameLimit(limits)
  let at = 0
  let r = 'ok'
  for (const c of [...cuts.map((x) => x % (bytes.length + 1)).sort((a, b) => a - b), bytes.length]) {
    r = limit.feed(bytes.subarray(at, Math.max(at, c)))
    at = Math.max(at, c)
  }
  return r
}

describe('frame limit', () => {
  it('lets packets within the limits through, however the stream is cut', () => {
    const stream = Buffer.concat([connect, publish(10), publish(0), publish(200), mqttPacket.generate({ cmd: 'pingreq' }), publish(20_000)])
    fc.assert(fc.property(fc.array(fc.nat(), { maxLength: 10 }), (cuts) => feedCut({ first: 100, next: 20_010 }, stream, cuts) === 'ok'))
  })

  it('refuses a first packet (CONNECT) over its own limit, and later packets over theirs, at the header', () => {
    expect(createFrameLimit({ first: 5, next: 1000 }).feed(connect)).toBe('too-large')
    const big = publish(5000)
    fc.assert(fc.property(fc.array(fc.nat(), { maxLength: 10 }), (cuts) =>
      feedCut({ first: 100, next: 4000 }, Buffer.concat([connect, publish(10), big]), cuts) === 'too-large'))
    // Only the header is needed: a 200 MB announcement is refused before any of its bytes.
    const limit = createFrameLimit({ first: 100, next: 4000 })
    expect(limit.feed(connect)).toBe('ok')
    expect(limit.feed(Uint8Array.from([0x30, 0x80, 0x80, 0xe0]))).toBe('too-large')
    expect(limit.feed(publish(1))).toBe('too-large') // it stays refused
  })

  it('refuses a remaining length of more than 4 bytes', () => {
    const limit = createFrameLimit({ first: Number.MAX_SAFE_INTEGER, next: Number.MAX_SAFE_INTEGER })
    expect(limit.feed(Uint8Array.from([0x10, 0x80, 0x80, 0x80, 0x80]))).toBe('invalid')
  })

  it('never throws on any bytes', () => {
    fc.assert(fc.property(fc.array(fc.uint8Array({ maxLength: 50 }), { maxLength: 5 }), (chunks) => {
      const limit = createFrameLimit({ first: 300, next: 300 })
      for (const c of chunks) expect(['ok', 'too-large', 'invalid']).toContain(limit.feed(c))
    }))
  })
})
