// A reboot operation survives a SIGKILL of the service (no task lost or doubled): the real
// service runs as a child process (`node bin/fleet.mjs serve`), 30 simulated MQTT devices run the generic firmware,
// one reboot operation selects them all, and the service is killed once some devices have acknowledged their reboot
// and others are still rebooting. Started again on the same store, the operation finishes with every task SUCCESS,
// one device task per system, and each device rebooted exactly once: the devices count their own executions, and a
// task delivered again after the restart (not acknowledged before the kill) is acknowledged again without rebooting.
import { describe, expect, it, onTestFinished } from 'vitest'
import { deviceIdentity, newRunTag } from '../../simulator/devices/identity.js'
import type { SimulatedDevice } from '../../simulator/devices/simulated-device.js'
import { addDevice, genericApplication } from '../../simulator/fleet.js'
import { inParallel } from '../../simulator/schedule.js'
import { connectApi } from '../../simulator/provision.js'
import { cliService, until } from '../helpers/cli-service.js'
import { inspect, storeKinds } from '../helpers/cli-stores.js'

const DEVICES = 30
const ACKED_BEFORE_KILL = 8
const CLIENT_SECRET = 'reboot-kill-secret'
const ADMIN_PASSWORD = 'reboot-kill-password'
// Devices retry their connection this often while the service is away; a reboot gives up after 10 tries, so the
// restart must take less than 10 periods (a cold PGlite start on busy cores takes tens of seconds).
const RECONNECT_MS = 10_000

type Json = Record<string, any>

describe.each(storeKinds())('SIGKILL of the service during a reboot operation on %s', (_kind, makeStore) => {
  it('finishes with every task SUCCESS, each device rebooted once, no task lost or doubled', { timeout: 300_000 }, async () => {
    const store = await makeStore()
    onTestFinished(async () => { await store.drop() })
    const service = await cliService(store, {
      // A service just restarted on busy cores would shed the test's own requests (api/plugins/overload.ts).
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
      FLEET_ADMIN_PASSWORD: ADMIN_PASSWORD,
      FLEET_CLIENT_SECRET: CLIENT_SECRET
    })
    const { httpPort, mqttPort } = service
    const serve = service.serve
    const credentials = { url: `http://127.0.0.1:${httpPort}`, clientId: 'fleet-cli', clientSecret: CLIENT_SECRET, email: 'admin@fleet.local', password: ADMIN_PASSWORD }

    const first = await serve()
    const api = await connectApi(credentials)
    const application = await genericApplication(api, 'mqtt')
    expect(application).toBeDefined()
    const run = newRunTag()
    // Reboots of different lengths (0.3 s to 4.65 s), so that the kill finds some acknowledged and some not.
    let acked = 0
    const devices: SimulatedDevice[] = []
    await inParallel(Array.from({ length: DEVICES }, (_, i) => i + 1), 5, async (n) => {
      const device = await addDevice(api, deviceIdentity(run, n), { protocol: 'mqtt', mqttUrl: `mqtt://127.0.0.1:${mqttPort}`, reconnectPeriod: RECONNECT_MS }, {
        labels: [`reboot-${run}`],
        applicationUid: application,
        rebootMs: 150 + n * 150,
        events: { onTask: () => { acked++ } }
      })
      devices.push(device)
    })
    onTestFinished(async () => { for (const d of devices) await d.close().catch(() => {}) })

    const res = await api.request('POST', '/api/v1/operations/systems/reboot', { systems: { label: `reboot-${run}` } })
    expect(res.status, JSON.stringify(res.json)).toBe(200)
    const operation = (res.json as { operation: string }).operation
    await until(`${ACKED_BEFORE_KILL} reboots acknowledged`, () => acked >= ACKED_BEFORE_KILL, 60_000)

    first.signal('SIGKILL')
    expect(await first.exited()).toMatchObject({ signal: 'SIGKILL' })
    const ackedAtKill = acked
    expect(ackedAtKill).toBeLessThan(DEVICES) // in the middle: some devices still rebooting or not yet answered

    const second = await serve()
    const api2 = await connectApi(credentials)
    let op: Json = {}
    await until('the operation FINISHED', async () => {
      const r = await api2.request('GET', `/api/v1/operations/${operation}`)
      op = r.json as Json
      return op.state === 'FINISHED'
    }, 180_000, () => `operation ${JSON.stringify(op.counters)}, reboots run per device ${JSON.stringify(devices.map((d) => d.model.numberOfResets))}`)
    const counters = Object.fromEntries((op.counters as Array<{ state: string, count: number }>).map((c) => [c.state, c.count]))
    expect({ total: op.total, ...counters }).toEqual({ total: DEVICES, PENDING: 0, IN_PROGRESS: 0, SUCCESS: DEVICES, FAILURE: 0, BEING_CANCELLED: 0, CANCELLED: 0 })
    const tasks = ((await api2.request('GET', `/api/v1/operations/${operation}/tasks?size=100`)).json as { items: Json[] }).items
    expect(tasks).toHaveLength(DEVICES)
    expect(new Set(tasks.map((t) => t.system.uid))).toEqual(new Set(devices.map((d) => d.systemUid)))

    // Each device ran its reboot exactly once, however often it was handed the task.
    for (const d of devices) await d.idle()
    expect(devices.map((d) => d.model.numberOfResets)).toEqual(devices.map(() => 1))

    second.signal('SIGTERM')
    expect(await second.exited()).toEqual({ code: 0, signal: null })
    for (const d of devices) await d.close().catch(() => {})

    // One device task per system, each answered OK: none lost, none written twice.
    const rows = await inspect(store, async (db) => (await db.query<{ system_uid: string, state: string }>(
      'SELECT system_uid, state FROM device_tasks WHERE operation_uid = $1', [operation])).rows)
    expect(rows).toHaveLength(DEVICES)
    expect(new Set(rows.map((r) => r.system_uid)).size).toBe(DEVICES)
    expect(rows.every((r) => r.state === 'OK')).toBe(true)
  })
})
