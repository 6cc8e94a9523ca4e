// A safe rollout survives a SIGKILL of the service (docs/operations.md#safe-rollouts): everything it judges is read
// from the store under the operation's row lock, so the service started again on the same store holds the rate,
// the waves and the threshold where the killed one left them. The real service runs as a child process, simulated
// MQTT devices run the generic firmware. Reboot A: 12 devices, waves [25] (3 tasks, then the rest) that must all
// succeed, at most 6 a minute. Reboot B: 8 devices, 2 a minute, stopped once half of 4 finished failed; its third
// and fourth tasks go to devices that fail them. The service is killed once the first minute's tasks are acknowledged (6 of A, 2 of B);
// after the restart the next minute's tasks leave. Checked: no device has its task twice (one device task per
// system, each device rebooted once), no minute saw more than maxPerMinute starts and no task of wave 2 started
// before wave 1 had succeeded, and B stopped exactly at its threshold, its remaining tasks never sent.
import { describe, expect, it, onTestFinished } from 'vitest'
import { deviceIdentity, newRunTag } from '../../simulator/devices/identity.js'
import type { SimulatedDevice } from '../../simulator/devices/simulated-device.js'
import { addDevice, genericApplication } from '../../simulator/fleet.js'
import { inParallel } from '../../simulator/schedule.js'
import { connectApi, type ApiClient } from '../../simulator/provision.js'
import { cliService, until } from '../helpers/cli-service.js'
import { inspect, storeKinds } from '../helpers/cli-stores.js'

const CLIENT_SECRET = 'rollout-kill-secret'
const ADMIN_PASSWORD = 'rollout-kill-password'
const RECONNECT_MS = 10_000
const MINUTE = 60_000

type Json = Record<string, any>

interface Fleet { label: string, devices: SimulatedDevice[], acked: () => number }

async function fleet (api: ApiClient, mqttUrl: string, application: string, run: string, name: string, n: number, failing: (i: number) => boolean, first: number): Promise<Fleet> {
  let acked = 0
  const devices: SimulatedDevice[] = []
  await inParallel(Array.from({ length: n }, (_, i) => i + 1), 4, async (i) => {
    devices.push(await addDevice(api, deviceIdentity(run, first + i), { protocol: 'mqtt', mqttUrl, reconnectPeriod: RECONNECT_MS }, {
      labels: [`${name}-${run}`], applicationUid: application, rebootMs: 300, failsTasks: failing(i), events: { onTask: () => { acked++ } }
    }))
  })
  onTestFinished(async () => { for (const d of devices) await d.close().catch(() => {}) })
  return { label: `${name}-${run}`, devices, acked: () => acked }
}

/** The largest number of starts within any one minute. */
function mostPerMinute (starts: number[]): number {
  return Math.max(...starts.map((s) => starts.filter((x) => x >= s && x < s + MINUTE).length))
}

const countersOf = (op: Json): Record<string, number> => Object.fromEntries((op.counters as Array<{ state: string, count: number }>).map((c) => [c.state, c.count]))

describe.each(storeKinds())('SIGKILL of the service during a safe rollout on %s', (_kind, makeStore) => {
  it('keeps every task once, the rate, the waves and the threshold across the restart', { timeout: 400_000 }, async () => {
    const store = await makeStore()
    onTestFinished(async () => { await store.drop() })
    const service = await cliService(store, { OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0', FLEET_ADMIN_PASSWORD: ADMIN_PASSWORD, FLEET_CLIENT_SECRET: CLIENT_SECRET })
    const credentials = { url: `http://127.0.0.1:${service.httpPort}`, clientId: 'fleet-cli', clientSecret: CLIENT_SECRET, email: 'admin@fleet.local', password: ADMIN_PASSWORD }
    const first = await service.serve()
    const api = await connectApi(credentials)
    const application = await genericApplication(api, 'mqtt') ?? ''
    const run = newRunTag()
    const mqttUrl = `mqtt://127.0.0.1:${service.mqttPort}`
    const a = await fleet(api, mqttUrl, application, run, 'wave', 12, () => false, 0)
    const b = await fleet(api, mqttUrl, application, run, 'stop', 8, (i) => i === 3 || i === 4, 100)

    const post = async (body: Json): Promise<string> => {
      const res = await api.request('POST', '/api/v1/operations/systems/reboot', body)
      expect(res.status, JSON.stringify(res.json)).toBe(200)
      return (res.json as { operation: string }).operation
    }
    const opA = await post({ systems: { label: a.label }, rollout: { maxPerMinute: 6, waves: [25], waveSuccessPercent: 100 } })
    // B's tasks in this order: two devices that succeed (the first minute), the two that fail, the rest.
    const ok = b.devices.filter((d) => !d.failsTasks)
    const order = [...ok.slice(0, 2), ...b.devices.filter((d) => d.failsTasks), ...ok.slice(2)].map((d) => d.systemUid)
    const opB = await post({ systems: { uids: order }, rollout: { maxPerMinute: 2, abort: { failurePercent: 50, minFinished: 4 } } })
    await until('the first minute acknowledged', () => a.acked() >= 6 && b.acked() >= 2, 50_000, () => `acked ${a.acked()} and ${b.acked()}`)
    first.signal('SIGKILL')
    expect(await first.exited()).toMatchObject({ signal: 'SIGKILL' })

    const second = await service.serve()
    const api2 = await connectApi(credentials)
    const read = async (uid: string): Promise<Json> => (await api2.request('GET', `/api/v1/operations/${uid}`)).json as Json
    let ops: Json[] = []
    await until('both operations FINISHED', async () => {
      ops = [await read(opA), await read(opB)]
      return ops.every((o) => o.state === 'FINISHED')
    }, 200_000, () => JSON.stringify(ops.map((o) => [o.counters, o.rollout])))
    const tasksOf = async (uid: string): Promise<Json[]> => ((await api2.request('GET', `/api/v1/operations/${uid}/tasks?size=100`)).json as { items: Json[] }).items

    // A: every task SUCCESS, at the rate, wave 2 after wave 1's successes.
    const [doneA, doneB] = ops as [Json, Json]
    expect(countersOf(doneA)).toMatchObject({ SUCCESS: 12, FAILURE: 0, CANCELLED: 0 })
    expect(doneA.rollout).toMatchObject({ waves: [25, 100], wave: 2, sent: 12 })
    const tasksA = await tasksOf(opA)
    const starts = tasksA.map((t) => t.startDate as number).sort((x, y) => x - y)
    expect(mostPerMinute(starts)).toBeLessThanOrEqual(6)
    const firstWaveEnds = tasksA.map((t) => t.endDate as number).sort((x, y) => x - y).slice(0, 3)
    expect(starts[3]).toBeGreaterThanOrEqual(firstWaveEnds[2] ?? Infinity)

    // B: stopped at the threshold (2 failed of 4 finished), the 4 left CANCELLED and never sent.
    expect(doneB).toMatchObject({ abortReason: 'failure.threshold', abortedBy: { reason: 'failure.threshold', ended: 4, failed: 2, minTasks: 4 } })
    expect(countersOf(doneB)).toMatchObject({ SUCCESS: 2, FAILURE: 2, CANCELLED: 4 })
    for (const t of (await tasksOf(opB)).filter((x) => x.state === 'CANCELLED')) {
      expect(t).toMatchObject({ startDate: null, error: { code: 'operation.aborted.threshold' } })
    }

    // No device had its task twice: one device task per system, each device rebooted once (B's last 4 never).
    for (const d of [...a.devices, ...b.devices]) await d.idle()
    const rebooted = b.devices.filter((d) => d.model.numberOfResets === 1).length
    expect(a.devices.map((d) => d.model.numberOfResets)).toEqual(a.devices.map(() => 1))
    expect(rebooted).toBe(2)
    expect(b.devices.every((d) => d.model.numberOfResets <= 1)).toBe(true)
    second.signal('SIGTERM')
    expect(await second.exited()).toEqual({ code: 0, signal: null })
    const rows = await inspect(store, async (db) => (await db.query<{ operation_uid: string, system_uid: string }>(
      'SELECT operation_uid, system_uid FROM device_tasks WHERE operation_uid = ANY($1::text[])', [[opA, opB]])).rows)
    const perOp = (uid: string): string[] => rows.filter((r) => r.operation_uid === uid).map((r) => r.system_uid)
    expect(perOp(opA)).toHaveLength(12)
    expect(new Set(perOp(opA)).size).toBe(12)
    expect(perOp(opB)).toHaveLength(4)
    expect(new Set(perOp(opB)).size).toBe(4)
  })
})
