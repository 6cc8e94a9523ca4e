// Device logins looked up together (core/services/ingest/devices.service.ts): devices connecting at the same time
// (a fleet coming back after a reboot) are found in one statement for all that arrive while one is on its way,
// and each still gets its own answer: its system, a bad password, an unknown login.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Repositories } from '../../../core/ports/repositories.js'
import { createDevicesService } from '../../../core/services/ingest/devices.service.js'
import { createRepositories } from '../../../storage/repositories/index.js'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createDevice, type Device } from '../../helpers/devices.js'

let stack: Stack
beforeAll(async () => { stack = await startStack() })
afterAll(async () => { await stack.close() })

describe('device logins of many devices at once', () => {
  it('answers each login its own outcome, with few statements', async () => {
    const devices: Device[] = []
    for (let i = 0; i < 10; i++) devices.push(await createDevice(stack))
    const repos = createRepositories(stack.db)
    let statements = 0
    const counted: Repositories = { ...repos, systems: { ...repos.systems, deviceLogins: async (ids) => { statements++; return await repos.systems.deviceLogins(ids) } } }
    const service = createDevicesService({ repos: counted, clock: { now: () => Date.now() } })
    const [first, second] = devices as [Device, Device]
    const outcomes = await Promise.all([
      ...devices.map(async (d) => await service.authenticate(d.serial, d.mqttPassword ?? '', 'mqtt', '127.0.0.1')),
      service.authenticate(first.imei, first.mqttPassword ?? '', 'mqtt', '127.0.0.1'),
      service.authenticate(second.serial, 'wrong-password', 'mqtt', '127.0.0.1'),
      service.authenticate(second.serial, second.restPassword ?? '', 'mqtt', '127.0.0.1'),
      service.authenticate('NO-SUCH-DEVICE', 'x', 'mqtt', '127.0.0.1'),
      service.authenticate('NUL\u0000BYTE', 'x', 'mqtt', '127.0.0.1')
    ])
    expect(outcomes.slice(0, 10)).toEqual(devices.map((d) => ({ ok: true, session: { systemUid: d.uid, companyUid: stack.companyUid, username: d.serial } })))
    expect(outcomes.slice(10)).toEqual([
      { ok: true, session: { systemUid: first.uid, companyUid: stack.companyUid, username: first.imei } },
      { ok: false, reason: 'device.bad.password' },
      // Another transport's password is not this one's.
      { ok: false, reason: 'device.bad.password' },
      { ok: false, reason: 'device.unknown' },
      { ok: false, reason: 'device.unknown' }
    ])
    // The first on its own, then the others, which arrived while it was on its way, together.
    expect(statements).toBeLessThanOrEqual(2)
  })
})
