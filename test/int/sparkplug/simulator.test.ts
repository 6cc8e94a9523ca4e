// `fleet simulate --protocol sparkplug` (simulator/transports/sparkplug.ts): simulated Sparkplug B edge nodes
// registered with the generic Sparkplug firmware birth and report on the embedded broker, their data reaches the API
// as SPARKPLUG messages, and operations reach them as NCMD: a reboot ends with the node's death and rebirth, settings
// with the node's next report of the value written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFleet, type Fleet } from '../../../simulator/fleet.js'
import { eventually, messagesOf } from '../../helpers/devices.js'
import { count, started, waitFinished } from '../../helpers/operations.js'
import { ADMIN_EMAIL, ADMIN_PASSWORD, CLIENT_ID, CLIENT_SECRET, startStack, type Stack } from '../../helpers/stack.js'

let stack: Stack
let fleet: Fleet
beforeAll(async () => {
  stack = await startStack({ listen: true })
  fleet = startFleet({
    api: { url: stack.httpUrl, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
    devices: 2,
    protocol: 'sparkplug',
    mqttUrl: stack.mqttUrl,
    rate: 2,
    rebootMs: 200
  })
  await fleet.ready
}, 120_000)
afterAll(async () => {
  await fleet?.stop()
  await stack?.close()
})

describe('simulated Sparkplug B edge nodes', () => {
  it('their births and data are SPARKPLUG messages; a reboot and settings operations end SUCCESS', async () => {
    const [a, b] = fleet.devices.map((d) => d.systemUid)
    if (a === undefined || b === undefined) throw new Error('no devices')
    await eventually(async () => (await messagesOf(stack, a)).length >= 3, 15_000, 'data of the first node')
    expect(new Set((await messagesOf(stack, a)).map((m) => m.protocol))).toEqual(new Set(['SPARKPLUG']))

    const reboot = await started(stack.call(stack.adminToken, { method: 'POST', url: '/api/v1/operations/systems/reboot', payload: { systems: { uids: [a] } } }))
    expect(count(await waitFinished(stack, reboot, 30_000), 'SUCCESS')).toBe(1)

    const settings = await started(stack.call(stack.adminToken, {
      method: 'POST',
      url: '/api/v1/operations/systems/settings',
      payload: { systems: { uids: [b] }, settings: [{ key: 'config.temperatureThreshold', value: 55.5 }], reboot: false }
    }))
    expect(count(await waitFinished(stack, settings, 30_000), 'SUCCESS')).toBe(1)
    await stack.ctx.services.ingest.drain()
    const last = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${b}/data?ids=config.temperatureThreshold` })
    expect(last.json()['config.temperatureThreshold'][0].value).toBe(55.5)
    expect(fleet.stats().errors).toBe(0)
  })
})
