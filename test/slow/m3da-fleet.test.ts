// A simulated fleet of M3DA agents (docs/simulator.md): registered by startFleet with the
// M3DA application of their security (without security: `authentication: "none"`; or hmac-md5 with their password),
// quiet (one report, polls ten minutes apart), a quarter of them failing their tasks. A wake-up operation created through the REST API reaches them by the
// SMS shoulder tap (the service's SMS gateway is the fleet's receiver): each connects at once, takes its Connect
// command from the reply and answers it; the operation ends with the failing share's FAILURE and its message.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { FAILURE_MESSAGE } from '../../simulator/devices/simulated-device.js'
import { startFleet, type Fleet } from '../../simulator/fleet.js'
import { m3daApplicationType } from '../../simulator/m3da-application.js'
import type { M3daSecurity } from '../../simulator/transports/m3da-options.js'
import { freePort } from '../helpers/child.js'
import { allTasks, started, until, waitFinished } from '../helpers/operations.js'
import { ADMIN_EMAIL, ADMIN_PASSWORD, CLIENT_ID, CLIENT_SECRET, startStack, type Stack } from '../helpers/stack.js'

const DEVICES = 4
let stack: Stack
let smsPort: number

beforeAll(async () => {
  smsPort = await freePort()
  stack = await startStack({ listen: true, env: { SMS_GATEWAY_URL: `http://127.0.0.1:${smsPort}/sms` } })
})
afterAll(async () => { await stack?.close() })

const securities: Array<[string, M3daSecurity, Record<string, string>]> = [
  ['without security', { mode: 'none' }, { authentication: 'none' }],
  ['hmac-md5', { mode: 'password', mac: 'hmac-md5', cipher: 'none' }, { authentication: 'hmac-md5', encryption: 'none' }]
]

describe.each(securities)('a simulated fleet of M3DA agents %s', { timeout: 90_000 }, (_name, security, parameters) => {
  it('is woken by the SMS shoulder tap, carries out the wake-up, and its failing share answers FAILURE', async () => {
    const fleet: Fleet = startFleet({
      api: { url: stack.httpUrl, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
      devices: DEVICES,
      protocol: 'm3da',
      m3daUrl: `tcp://127.0.0.1:${stack.ports.m3da ?? 0}`,
      m3daSecurity: security,
      rate: 0.001, // one report, then quiet
      taskPollMs: 600_000,
      failureRate: 0.25,
      smsGatewayPort: smsPort,
      smsGatewayHost: '127.0.0.1'
    })
    onTestFinished(async () => { await fleet.stop() })
    await fleet.ready
    const uids = fleet.devices.map((d) => d.systemUid)
    const failing = fleet.devices.filter((d) => d.failsTasks).map((d) => d.systemUid)
    expect(failing).toHaveLength(1)

    // Registered with the company's M3DA application of their security.
    const system = (await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${uids[0] ?? ''}` })).json()
    const app = (await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/applications/${system.applications[0].uid as string}` })).json()
    expect(app).toMatchObject({ type: m3daApplicationType(security), communication: [{ type: 'M3DA', parameters }] })

    const wakeup = await started(stack.call(stack.adminToken, { method: 'POST', url: '/api/v1/operations/systems/wakeup', payload: { systems: { uids } } }))
    await waitFinished(stack, wakeup, 60_000)
    const tasks = await allTasks(stack, wakeup)
    expect(tasks.filter((t) => t.state === 'SUCCESS').map((t) => t.system.uid).sort()).toEqual(uids.filter((u) => !failing.includes(u)).sort())
    expect(tasks.filter((t) => t.state === 'FAILURE').map((t) => [t.system.uid, t.error?.message])).toEqual([[failing[0], FAILURE_MESSAGE]])
    // The operation may end before the last device read the reply to its Response: the fleet counts it then.
    await until('every answer counted by the fleet', () => fleet.stats().tasksAnswered === DEVICES, 10_000)
    expect(fleet.stats()).toMatchObject({ wakes: DEVICES, tasksAnswered: DEVICES, tasksFailed: 1, errors: 0 })
  })
})
