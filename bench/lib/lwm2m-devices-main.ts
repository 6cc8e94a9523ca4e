// Entry of a device process of bench lwm2m (bench/lib/lwm2m-fleet.ts; not run on its own): the simulator's LwM2M
// devices (simulator/transports/lwm2m.ts, each a simulated device of simulator/devices with its model, as
// `fleet simulate --protocol lwm2m` makes them), device i registering as system i of bench/lib/lwm2m-seed.ts. Each
// device has a UDP socket of its own, as a real one has its own address: the process holds one file descriptor per
// device (the fleet keeps it under the open-files limit). Asked over IPC (ipc-rpc.ts): `register`, `drive` (data
// messages, so notifications), `poll` (queue mode's updates), `handshakes` (DTLS alone), `stats`, `close`.
import { setMaxListeners } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import { connectDtls } from '../../protocols/dtls/index.js'
import { createDeviceModel } from '../../simulator/devices/device-model.js'
import type { DeviceIdentity } from '../../simulator/devices/identity.js'
import { createSimulatedDevice, type SimulatedDevice } from '../../simulator/devices/simulated-device.js'
import { drive, pollTasks, type RunWindow } from '../../simulator/schedule.js'
import { connectLwm2mDevice, type Lwm2mDevice } from '../../simulator/transports/lwm2m.js'
import { parseLwm2mUrl } from '../../simulator/transports/lwm2m-options.js'
import { sendEvent, serveRpc } from './ipc-rpc.js'
import { timedSteps, type StepRun } from './lwm2m-runs.js'
import { lwm2mEndpoint, lwm2mPskHex } from './lwm2m-seed.js'
import { row } from './seed-systems.js'

/** How the devices of one `register` are made: NoSec (coap://) or DTLS (coaps://), queue mode or not. */
export interface RegisterRequest {
  url: string
  from: number
  count: number
  concurrency: number
  /** Registration lifetime (s): an update goes at three quarters of it. */
  lifetime: number
  queue: boolean
  /** Queue mode: awake this long after each exchange (undefined: the simulator's default). */
  queueAwakeMs?: number
  rebootMs: number
}

export interface DriveResult { published: number, errors: number, seconds: number, lastError: string | undefined }

export interface DevicesStats {
  devices: number
  /** Sums over the devices: registrations (a reboot registers again), updates, restarts, observations held now. */
  registrations: number
  updates: number
  resets: number
  /** Devices that restarted once at least, and more than once (a fleet's devices start with none). */
  restarted: number
  restartedAgain: number
  observations: number
  errors: number
  lastError: string | undefined
  rss: number
  cpuS: number
}

const devices: SimulatedDevice[] = []
const stopper = new AbortController()
setMaxListeners(0, stopper.signal) // every device's schedule waits on it
const counts = { published: 0, errors: 0, lastError: undefined as string | undefined }
const fail = (err: unknown): void => { counts.errors++; counts.lastError = err instanceof Error ? err.message : String(err) }
const clientOf = (d: SimulatedDevice): Lwm2mDevice['client'] => (d.transport as Lwm2mDevice).client

function identity (i: number): DeviceIdentity {
  return { serialNumber: lwm2mEndpoint(i), imei: '', iccid: row.iccid(i), mobileNumber: '', mqttPassword: '', restPassword: '', m3daPassword: '', lwm2mPskHex: lwm2mPskHex(i) }
}

/** One device made and registered (after its DTLS handshake over coaps://), as simulator/transports/lwm2m-fleet.ts does. */
async function registerOne (i: number, r: RegisterRequest): Promise<void> {
  const id = identity(i)
  const model = createDeviceModel()
  const secure = parseLwm2mUrl(r.url).secure
  const transport = await connectLwm2mDevice({
    url: r.url,
    endpointName: id.serialNumber,
    lifetime: r.lifetime,
    queue: r.queue,
    ...(r.queueAwakeMs === undefined ? {} : { queueAwakeMs: r.queueAwakeMs }),
    ...(secure ? { psk: { keyHex: id.lwm2mPskHex ?? '' } } : {}),
    rebootMs: r.rebootMs,
    applications: model.applications,
    onReboot: () => { model.reboot() },
    onFactoryReset: () => { model.reset() }
  })
  transport.client.events.on('error', fail)
  devices.push(createSimulatedDevice({ identity: id, systemUid: '', transport, model, rebootMs: r.rebootMs, events: { onData: () => { counts.published++ }, onError: (_d, err) => { fail(err) } } }))
}

async function register (r: RegisterRequest): Promise<StepRun> {
  let shown = performance.now()
  return await timedSteps(r.from, r.count, r.concurrency, async (i) => { await registerOne(i, r) }, (done) => {
    if (performance.now() - shown < 1000) return
    shown = performance.now()
    sendEvent({ event: 'progress', done })
  })
}

/**
 * rate 0: each device sends its next data message once the notifications of the last one are acknowledged (a
 * closed loop, as bench ingest's devices publish). A device the service observes nothing of has nothing to send:
 * it waits a second rather than spin.
 */
async function closedLoop (d: SimulatedDevice, until: number): Promise<void> {
  while (Date.now() < until && !stopper.signal.aborted) {
    if (clientOf(d).observers.size === 0) { await sleep(1000); continue }
    try { await d.publish() } catch (err) { fail(err); await sleep(1000) }
    await new Promise((resolve) => setImmediate(resolve)) // the socket's datagrams between two messages
  }
}

/** Every device sends data messages for `seconds`: `rate` a second on the simulator's own schedule (simulator/schedule.ts), or rate 0: the closed loop above. */
async function driveAll (o: { seconds: number, rate: number }): Promise<DriveResult> {
  const before = { ...counts }
  const t0 = performance.now()
  const until = Date.now() + o.seconds * 1000
  const w: RunWindow = { signal: stopper.signal, until, fail }
  const loops = Promise.all(devices.map(async (d) => { await (o.rate > 0 ? drive(d, o.rate, w) : closedLoop(d, until)) }))
  // A notification the service does not acknowledge holds its message up to CoAP's MAX_TRANSMIT_WAIT (93 s): the
  // window ends on time, what is still in flight is left to finish or time out.
  await Promise.race([loops, sleep(o.seconds * 1000 + 1000)])
  return { published: counts.published - before.published, errors: counts.errors - before.errors, seconds: (performance.now() - t0) / 1000, lastError: counts.lastError }
}

/** DTLS handshakes alone (a session opened, then closed at once), each with device i's identity and key. */
async function handshakes (o: { url: string, from: number, count: number, concurrency: number }): Promise<StepRun> {
  const { host, port } = parseLwm2mUrl(o.url)
  return await timedSteps(o.from, o.count, o.concurrency, async (i) => {
    const client = await connectDtls({ host, port, identity: lwm2mEndpoint(i), psk: Buffer.from(lwm2mPskHex(i), 'hex'), handshakeTimeoutMs: 10_000 })
    await client.close()
  })
}

function stats (): DevicesStats {
  const s = { registrations: 0, updates: 0, resets: 0, restarted: 0, restartedAgain: 0, observations: 0 }
  for (const d of devices) {
    const c = clientOf(d)
    s.registrations += c.registrations
    s.updates += c.updates
    s.resets += d.model.numberOfResets
    if (d.model.numberOfResets >= 1) s.restarted++
    if (d.model.numberOfResets >= 2) s.restartedAgain++
    s.observations += c.observers.size
  }
  const cpu = process.cpuUsage()
  return { devices: devices.length, ...s, ...counts, rss: process.memoryUsage().rss, cpuS: (cpu.user + cpu.system) / 1e6 }
}

/** Every device de-registers and closes (`concurrency` at a time); the devices are gone after. */
async function closeAll (o: { concurrency: number }): Promise<{ seconds: number }> {
  stopper.abort()
  const t0 = performance.now()
  const all = devices.splice(0)
  await timedSteps(0, all.length, o.concurrency, async (i) => { await all[i]?.close() })
  return { seconds: (performance.now() - t0) / 1000 }
}

serveRpc('bench/lib/lwm2m-devices-main.ts', {
  register: async (r: RegisterRequest) => await register(r),
  drive: async (o: { seconds: number, rate: number }) => await driveAll(o),
  poll: async (o: { periodMs: number }) => {
    const w: RunWindow = { signal: stopper.signal, until: Infinity, fail }
    for (const d of devices) pollTasks(d, o.periodMs, w).catch(fail)
  },
  handshakes: async (o: { url: string, from: number, count: number, concurrency: number }) => await handshakes(o),
  stats: async () => stats(),
  close: async (o: { concurrency: number }) => await closeAll(o)
})
