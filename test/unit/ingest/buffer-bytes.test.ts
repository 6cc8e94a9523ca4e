// The ingest buffer's bound in bytes (core/services/ingest/buffer-bytes.ts): room is taken and given back, a message
// that would pass the bound is refused while others wait, and one alone is always taken.
import { describe, expect, it } from 'vitest'
import { createBufferBytes, isBufferFull, bufferFull, messageBytes } from '../../../core/services/ingest/buffer-bytes.js'
import type { DeviceMessage } from '../../../core/domain/device-message.js'

const message = (points: DeviceMessage['points']): DeviceMessage =>
  ({ uid: 'u', systemUid: 's', companyUid: 'c', protocol: 'MQTT', receivedAt: 0, timestamp: 0, points, nbDataPoints: points.length })

describe('ingest buffer bytes', () => {
  it('refuses what would pass the bound while others wait, and takes a message alone whatever its size', () => {
    const b = createBufferBytes(1000)
    expect(b.take(600)).toBe(true)
    expect(b.take(500)).toBe(false)
    expect(b.take(400)).toBe(true)
    expect(b.held()).toBe(1000)
    b.release(600)
    b.release(400)
    expect(b.held()).toBe(0)
    expect(b.take(5000)).toBe(true) // alone: taken
    expect(b.take(1)).toBe(false)
  })

  it('counts a message by its points and strings, not by its payload', () => {
    const small = messageBytes(message([{ dataId: 'a', ts: 0, value: 1 }]))
    const many = messageBytes(message(Array.from({ length: 1000 }, (_, i) => ({ dataId: 'a', ts: i, value: i }))))
    const text = messageBytes(message([{ dataId: 'a', ts: 0, value: 'x'.repeat(100_000) }]))
    expect(many).toBeGreaterThan(150_000)
    expect(text).toBeGreaterThan(200_000)
    expect(small).toBeLessThan(1000)
  })

  it('refuses with service.unavailable, told apart from other failures', () => {
    expect(bufferFull().code).toBe('service.unavailable')
    expect(isBufferFull(bufferFull())).toBe(true)
    expect(isBufferFull(new Error('the ingest buffer is full'))).toBe(false)
  })
})
