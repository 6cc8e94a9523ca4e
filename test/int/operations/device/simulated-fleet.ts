// Real devices for the retrieve data and apply settings tests (a simulated device receives
// each kind of task over MQTT and over REST): the service listening on port 0, systems registered with the seeded
// generic firmware of their protocol through the API, and simulated devices (simulator/devices) connected to them.
import { expect } from 'vitest'
import { GENERIC_APPLICATION_TYPES } from '../../../../core/domain/generic-applications.js'
import { createDeviceModel } from '../../../../simulator/devices/device-model.js'
import { deviceIdentity, newRunTag, type DeviceIdentity } from '../../../../simulator/devices/identity.js'
import { createSimulatedDevice, type SimulatedDevice } from '../../../../simulator/devices/simulated-device.js'
import { genericApplication, openTransport, type FleetProtocol } from '../../../../simulator/fleet.js'
import { connectApi, registerDevice, type ApiClient } from '../../../../simulator/provision.js'
import { ADMIN_EMAIL, ADMIN_PASSWORD, CLIENT_ID, CLIENT_SECRET, startStack, type Stack } from '../../../helpers/stack.js'
import { until, type Json, type OperationJson } from '../../../helpers/operations.js'

export interface SimulatedFleet {
  stack: Stack
  api: ApiClient
  /** A system registered like the simulator's (generic firmware of the protocol, both device passwords). */
  register (protocol: FleetProtocol): Promise<{ id: DeviceIdentity, systemUid: string }>
  /** A registered system with its simulated device connected (MQTT: subscribed to its tasks). */
  device (protocol: FleetProtocol, opts?: { failsTasks?: boolean }): Promise<SimulatedDevice>
  /** GET as the administrator; the test fails on any other answer than 200. */
  get (url: string): Promise<Json>
  close (): Promise<void>
}

export async function startSimulatedFleet (): Promise<SimulatedFleet> {
  const stack = await startStack({ listen: true })
  const api = await connectApi({ url: stack.httpUrl, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, email: ADMIN_EMAIL, password: ADMIN_PASSWORD })
  const applications: Partial<Record<FleetProtocol, string>> = {}
  for (const protocol of ['mqtt', 'rest'] as const) {
    applications[protocol] = await genericApplication(api, protocol)
    expect(applications[protocol], `seeded ${GENERIC_APPLICATION_TYPES[protocol === 'mqtt' ? 'MQTT' : 'REST']}`).toBeDefined()
  }
  const run = newRunTag()
  let n = 0
  const closing: Array<() => Promise<void>> = []

  const register = async (protocol: FleetProtocol): Promise<{ id: DeviceIdentity, systemUid: string }> => {
    const id = deviceIdentity(run, ++n)
    return { id, systemUid: await registerDevice(api, id, { labels: [`sim-${run}`], applicationUid: applications[protocol] }) }
  }

  return {
    stack,
    api,
    register,
    async device (protocol, opts = {}) {
      const { id, systemUid } = await register(protocol)
      const transport = await openTransport(id, { protocol, mqttUrl: stack.mqttUrl }, stack.httpUrl)
      const device = createSimulatedDevice({ identity: id, systemUid, transport, model: createDeviceModel(), rebootMs: 100, failsTasks: opts.failsTasks ?? false })
      closing.push(async () => { await device.close() })
      return device
    },
    async get (url) {
      const res = await stack.call(stack.adminToken, { method: 'GET', url })
      expect(res.statusCode, res.body).toBe(200)
      return res.json()
    },
    async close () {
      for (const close of closing.reverse()) await close().catch(() => {})
      await stack.close()
    }
  }
}

/**
 * Waits until `done` holds while the device takes its tasks: an MQTT device gets them pushed, a REST device asks
 * (GET /device/tasks) at each turn, as one that polls often would.
 */
export async function serve (device: SimulatedDevice, what: string, done: () => Promise<boolean>): Promise<void> {
  await until(what, async () => {
    await device.poll()
    await device.idle()
    return await done()
  }, 20_000)
}

/** The current value of a setting or variable on the device itself. */
export function onDevice (device: SimulatedDevice, id: string): unknown {
  return device.model.read([id], Date.now()).find((p) => p.dataId === id)?.value
}

/** The operation's counters as a map over all six task states (docs/operations.md#bulk-operations: all always present).
 */
export function countersOf (op: OperationJson): Record<string, number> {
  return Object.fromEntries(op.counters.map((c) => [c.state, c.count]))
}

/** Counters with no task in any state; spread and set the expected ones. */
export const NO_TASKS = { PENDING: 0, IN_PROGRESS: 0, SUCCESS: 0, FAILURE: 0, BEING_CANCELLED: 0, CANCELLED: 0 }
