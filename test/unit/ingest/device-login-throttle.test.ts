// The device login throttle inside DevicesService.authenticate (device-login-throttle.ts) on in-process counters:
// what counts as a failure. A store that cannot answer is no wrong password (a fleet reconnecting through an outage
// must not be throttled for it), nor is a right password from an address the company filters out.
import { describe, expect, it } from 'vitest'
import type { DeviceLogin, Repositories } from '../../../core/ports/repositories.js'
import { createDevicesService } from '../../../core/services/ingest/devices.service.js'
import { deviceLoginThrottle } from '../../../core/services/ingest/device-login-throttle.js'
import { loadConfig } from '../../../core/config.js'
import { createMemoryCounter } from '../../../storage/rate/memory-counter.js'

const login: DeviceLogin = {
  identifier: 'SN-1',
  systemUid: 'sys-1',
  companyUid: 'co-1',
  communication: { mqtt: { password: 'right-password' } },
  deviceIpFiltering: true,
  deviceIpFilters: { ipAddresses: ['10.0.0.1'], startIPAddress: null, endIPAddress: null }
}

function service (store: { up: boolean }) {
  const clock = { now: () => Date.now() }
  const config = loadConfig({ DEVICE_LOGIN_THROTTLE_FAILURES: '3', DEVICE_LOGIN_THROTTLE_ADDRESS_FAILURES: '3', DEVICE_LOGIN_THROTTLE_BASE_MS: '60000' })
  const systems = {
    deviceLogins: async (ids: string[]) => {
      if (!store.up) throw Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' })
      return ids.includes(login.identifier) ? [login] : []
    }
  }
  const repos = { systems } as unknown as Repositories
  return createDevicesService({ repos, clock, throttle: deviceLoginThrottle(config, createMemoryCounter(), clock) })
}

/** Devices SN-0, SN-1... each with the password `right-<n>`, none filtered. */
function fleetService (addressFailures: number) {
  const clock = { now: () => Date.now() }
  const config = loadConfig({ DEVICE_LOGIN_THROTTLE_ADDRESS_FAILURES: String(addressFailures), DEVICE_LOGIN_THROTTLE_BASE_MS: '60000' })
  const loginOf = (id: string): DeviceLogin => ({ ...login, identifier: id, systemUid: `sys-${id}`, communication: { mqtt: { password: `right-${id}` } }, deviceIpFiltering: false })
  const repos = { systems: { deviceLogins: async (ids: string[]) => ids.map(loginOf) } } as unknown as Repositories
  return createDevicesService({ repos, clock, throttle: deviceLoginThrottle(config, createMemoryCounter(), clock) })
}

describe('device login throttle', () => {
  it('a fleet behind one address logging in all at once is not held by the address limit; its wrong passwords are', async () => {
    const s = fleetService(5)
    const ids = Array.from({ length: 40 }, (_, i) => `SN-${i}`)
    const all = await Promise.all(ids.map(async (id) => await s.authenticate(id, `right-${id}`, 'mqtt', '10.0.0.9')))
    expect(all.filter((r) => !r.ok)).toEqual([])
    // Wrong passwords of other devices from that address: the address waits once they pass its limit.
    const answers = []
    for (let i = 0; i < 7; i++) answers.push(await s.authenticate(`SN-${i}`, 'wrong', 'mqtt', '10.0.0.9'))
    expect(answers.slice(0, 5)).toEqual(Array(5).fill({ ok: false, reason: 'device.bad.password' }))
    expect(answers.at(-1)).toMatchObject({ ok: false, reason: 'device.throttled' })
    expect(await s.authenticate('SN-99', 'right-SN-99', 'mqtt', '10.0.0.9')).toMatchObject({ ok: false, reason: 'device.throttled' })
  })

  it('three wrong passwords make the device wait, the right password included', async () => {
    const s = service({ up: true })
    for (let i = 0; i < 3; i++) expect(await s.authenticate('SN-1', 'wrong', 'mqtt', '10.0.0.1')).toEqual({ ok: false, reason: 'device.bad.password' })
    expect(await s.authenticate('SN-1', 'right-password', 'mqtt', '10.0.0.1')).toEqual({ ok: false, reason: 'device.throttled', retryAfterS: 60 })
  })

  it('an address not known (an external broker that does not send it) is no address shared by every device', async () => {
    const s = service({ up: true })
    for (let i = 0; i < 5; i++) expect(await s.authenticate(`SN-OTHER-${i}`, 'wrong', 'mqtt', '')).toEqual({ ok: false, reason: 'device.unknown' })
    // Checked, not throttled: right, and refused only by the company's filter, which no unknown address passes.
    expect(await s.authenticate('SN-1', 'right-password', 'mqtt', '')).toEqual({ ok: false, reason: 'device.ip.forbidden' })
  })

  it('a store that cannot answer and a right password from a filtered address count as no failure', async () => {
    const store = { up: false }
    const s = service(store)
    for (let i = 0; i < 5; i++) await expect(s.authenticate('SN-1', 'right-password', 'mqtt', '10.0.0.1')).rejects.toThrow('connection refused')
    store.up = true
    for (let i = 0; i < 5; i++) expect(await s.authenticate('SN-1', 'right-password', 'mqtt', '10.9.9.9')).toEqual({ ok: false, reason: 'device.ip.forbidden' })
    expect((await s.authenticate('SN-1', 'right-password', 'mqtt', '10.0.0.1')).ok).toBe(true)
  })
})
