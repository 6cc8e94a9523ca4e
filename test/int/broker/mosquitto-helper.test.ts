// The tests' own Mosquitto (test/helpers/mosquitto.ts) must never take another test's broker for its own: parallel
// test files race for free ports, and a test against the wrong broker loses its devices to that broker's full syncs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DYNSEC_ADMIN, startMosquitto, tryConnect, type Mosquitto } from '../../helpers/mosquitto.js'

let first: Mosquitto

beforeAll(async () => { first = await startMosquitto() }, 30_000)
afterAll(async () => { await first?.stop() })

describe('a test broker', () => {
  it('has an admin password of its own, which another broker refuses', async () => {
    const second = await startMosquitto()
    try {
      const password = new URL(second.adminUrl).password
      expect(password).not.toBe(new URL(first.adminUrl).password)
      expect(await tryConnect(first.url, DYNSEC_ADMIN, password)).toMatch(/Not authorized/)
    } finally { await second.stop() }
  })

  it('started on a port another broker holds, fails instead of answering with the other one', async () => {
    await expect(startMosquitto({ port: first.port })).rejects.toThrow(/mosquitto exited/)
    const admin = await first.admin()
    expect(admin.connected).toBe(true)
  })
})
