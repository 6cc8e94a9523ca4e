// Device limits (ingest/device-limits.ts, core/domain/token-bucket.ts): each device's budget of messages and bytes
// with its burst, the refusals counted towards a disconnect, and a connection's socket paused while its messages
// wait for their commit. Time is moved by hand.
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createTokenBucket } from '../../../core/domain/token-bucket.js'
import { connectionPressure, createDeviceLimits, STRIKE_WINDOW_MS, type DeviceLimitsConfig } from '../../../ingest/device-limits.js'
import { noMetrics } from '../../../core/metrics.js'

describe('token bucket', () => {
  it('starts full, spends its burst at once, then refills at its rate', () => {
    const b = createTokenBucket({ perS: 10, capacity: 20 }, 0)
    for (let i = 0; i < 20; i++) { expect(b.waitMs(1, 0)).toBe(0); b.take(1, 0) }
    expect(b.waitMs(1, 0)).toBe(100)
    expect(b.waitMs(1, 99)).toBe(1)
    expect(b.waitMs(1, 100)).toBe(0)
    b.take(1, 100)
    // Never above its capacity, however long it was quiet.
    expect(b.full(1_000_000)).toBe(true)
    expect(b.waitMs(21, 1_000_000)).toBe(0)
  })

  it('takes more than its capacity once full and stays in debt for as long as the rate says', () => {
    const b = createTokenBucket({ perS: 100, capacity: 100 }, 0)
    expect(b.waitMs(300, 0)).toBe(0)
    b.take(300, 0)
    // -200 tokens: 3 s until it holds 100 again, the size of a take of 300 counting as a full bucket.
    expect(b.waitMs(300, 2000)).toBe(1000)
    expect(b.waitMs(300, 3000)).toBe(0)
  })

  it('ignores a clock that goes back', () => {
    const b = createTokenBucket({ perS: 1, capacity: 1 }, 1000)
    b.take(1, 1000)
    expect(b.waitMs(1, 0)).toBe(1000)
    expect(b.waitMs(1, 2000)).toBe(0)
  })
})

const CONFIG: DeviceLimitsConfig = {
  DEVICE_RATE_MESSAGES_PER_S: 10,
  DEVICE_RATE_BYTES_PER_S: 1000,
  DEVICE_RATE_BURST_S: 2,
  DEVICE_RATE_DISCONNECT_AFTER: 5,
  DEVICE_PENDING_MESSAGES: 3
}

function limits (config: Partial<DeviceLimitsConfig> = {}) {
  let t = 0
  const l = createDeviceLimits({ config: { ...CONFIG, ...config }, metrics: noMetrics, now: () => t, protocol: 'MQTT' })
  return { l, at: (ms: number) => { t = ms } }
}

describe('device limits', () => {
  it('admit a burst of each device, then its rate, each device on its own budget', () => {
    const { l, at } = limits()
    for (let i = 0; i < 20; i++) expect(l.admit('a', 10).ok).toBe(true)
    expect(l.admit('a', 10)).toEqual({ ok: false, retryAfterS: 1, disconnect: false })
    expect(l.admit('b', 10).ok).toBe(true)
    at(100) // one message's worth of time
    expect(l.admit('a', 10).ok).toBe(true)
    expect(l.admit('a', 10).ok).toBe(false)
  })

  it('refuse on bytes alone, and let a message larger than the burst through once the budget is full', () => {
    const { l, at } = limits()
    expect(l.admit('a', 1500).ok).toBe(true)
    const r = l.admit('a', 1000)
    expect(r.ok).toBe(false)
    at(1500)
    expect(l.admit('a', 1000).ok).toBe(true)
    at(100_000)
    expect(l.admit('a', 50_000).ok).toBe(true) // 25 times the burst: taken, then 48 s of debt
    at(140_000)
    expect(l.admit('a', 1)).toMatchObject({ ok: false, retryAfterS: 9 }) // 8,000 bytes of debt left, and 1 to take
  })

  it('tell to disconnect a device refused DEVICE_RATE_DISCONNECT_AFTER times within the window, and start counting again after it', () => {
    const { l, at } = limits({ DEVICE_RATE_MESSAGES_PER_S: 1, DEVICE_RATE_BURST_S: 1 })
    expect(l.admit('a', 1).ok).toBe(true)
    const verdicts = Array.from({ length: 5 }, () => l.admit('a', 1))
    expect(verdicts.map((v) => !v.ok && v.disconnect)).toEqual([false, false, false, false, true])
    at(STRIKE_WINDOW_MS + 1) // a new window, and a full budget again
    expect(l.admit('a', 1).ok).toBe(true)
    expect(l.admit('a', 1)).toMatchObject({ ok: false, disconnect: false })
  })

  it('never disconnect with DEVICE_RATE_DISCONNECT_AFTER 0, and admit everything with both rates 0', () => {
    const never = limits({ DEVICE_RATE_MESSAGES_PER_S: 1, DEVICE_RATE_BURST_S: 1, DEVICE_RATE_DISCONNECT_AFTER: 0 }).l
    never.admit('a', 1)
    for (let i = 0; i < 100; i++) expect(never.admit('a', 1)).toMatchObject({ ok: false, disconnect: false })
    const open = limits({ DEVICE_RATE_MESSAGES_PER_S: 0, DEVICE_RATE_BYTES_PER_S: 0 }).l
    for (let i = 0; i < 10_000; i++) expect(open.admit('a', 1_000_000).ok).toBe(true)
  })
})

describe('connection pressure', () => {
  it('pauses the stream at the bound (messages or bytes), holds room() until it is under again, then resumes it', async () => {
    const stream = new PassThrough()
    stream.resume()
    let pauses = 0
    const p = connectionPressure(stream, { messages: 2, bytes: 100 }, () => { pauses++ })
    const first = p.track(10)
    expect(p.room()).toBeUndefined()
    const second = p.track(10)
    expect(stream.isPaused()).toBe(true)
    expect(pauses).toBe(1)
    let roomy = false
    const room = p.room()?.then(() => { roomy = true })
    second()
    second() // twice: counted once
    await room
    expect(roomy).toBe(true)
    expect(stream.isPaused()).toBe(false)
    // One message over the byte bound pauses on its own.
    const big = p.track(100)
    expect(stream.isPaused()).toBe(true)
    big()
    first()
    expect(stream.isPaused()).toBe(false)
    expect(pauses).toBe(2)
  })
})
