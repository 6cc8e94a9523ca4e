// Entry of the device process of bench/lib/devices-process.ts (not run on its own): the simulator's MQTT devices
// (simulator/devices, simulator/transports/mqtt.ts), all in this one process, logging in as the systems of
// bench/lib/seed-devices.ts. They carry out the tasks the service sends them as the simulator does (a reboot:
// off for a moment, `_NUMBER_OF_RESETS` + 1, back on, ack; a write: settings applied, ack).
// Messages from the parent: `start` (connect, paced), `stats`, `close`; to it: `progress`, `ready`, `stats`.
import { setTimeout as sleep } from 'node:timers/promises'
import type { Ack, Task } from '../../protocols/airvantage/index.js'
import { createDeviceModel } from '../../simulator/devices/device-model.js'
import type { DeviceIdentity } from '../../simulator/devices/identity.js'
import { createSimulatedDevice, type DeviceEvents, type SimulatedDevice } from '../../simulator/devices/simulated-device.js'
import { createLimiter, DEFAULT_DOWNLOADS } from '../../simulator/devices/limiter.js'
import { openTransport, softwareOf } from '../../simulator/fleet.js'
import type { MqttDevice } from '../../simulator/transports/mqtt.js'
import type { DeviceTransport } from '../../simulator/transports/transport.js'
import type { DevicesRequest, DevicesMessage, DevicesStats } from './devices-process.js'
import { connectLeanMqttDevice, type LeanMqttDevice } from './lean-mqtt-device.js'
import { row } from './seed-systems.js'

const send = (m: DevicesMessage): void => { process.send?.(m) }
if (process.send === undefined) {
  console.error('bench/lib/devices-main.ts is started by bench/lib/devices-process.ts; run a benchmark instead.')
  process.exit(2)
}

const devices: SimulatedDevice[] = []
const counts = { answered: 0, failed: 0, errors: 0, connectFailures: 0, lastAnswerAt: 0, lastError: undefined as string | undefined }
const events: DeviceEvents = {
  onTask: (_d: SimulatedDevice, _t: Task, ack: Ack) => {
    counts.answered++
    if (ack.status === 'ERROR') { counts.failed++; counts.lastError = ack.message ?? 'ERROR' }
    counts.lastAnswerAt = Date.now()
  },
  onError: (_d, err) => { counts.errors++; counts.lastError = (err as Error).message ?? String(err) }
}

function identity (i: number, password: string): DeviceIdentity {
  return { serialNumber: row.serialNumber(i), imei: '', iccid: row.iccid(i), mobileNumber: '', mqttPassword: password, restPassword: '', m3daPassword: '' }
}

/**
 * The simulator's own MQTT link (mqtt.js), or the lean one of the same behaviour (the default: thousands fit), over
 * TLS with the request's `tls` (device i with its own certificate when there are some).
 */
async function link (i: number, id: DeviceIdentity, req: Extract<DevicesRequest, { type: 'start' }>): Promise<DeviceTransport> {
  if (req.client === 'mqtt.js') return await openTransport(id, { protocol: 'mqtt', mqttUrl: req.mqttUrl, mqttVersion: 4, reconnectPeriod: 0 }, '')
  const own = req.tls?.certs?.[i - 1]
  const tls = req.tls === undefined ? undefined : { ca: req.tls.ca, ...own }
  return await connectLeanMqttDevice({ url: req.mqttUrl, username: id.serialNumber, password: id.mqttPassword, ...(tls === undefined ? {} : { tls }) })
}

/** The downloads of every device of the process share one limiter, as the simulator's fleet does. */
let limiter = createLimiter(DEFAULT_DOWNLOADS)

const isGone = (t: DeviceTransport): boolean => 'gone' in t && (t as LeanMqttDevice).gone
const isUp = (t: DeviceTransport): boolean => 'client' in t ? (t as MqttDevice).client.connected : (t as LeanMqttDevice).connected

/** One device connected and subscribed to its tasks; a refused or timed-out connection is tried again 4 times. */
async function connectOne (i: number, req: Extract<DevicesRequest, { type: 'start' }>): Promise<void> {
  const id = identity(i, req.password)
  for (let attempt = 1; ; attempt++) {
    try {
      const transport = await link(i, id, req)
      const software = softwareOf(i, { updateFailureRate: req.software?.updateFailureRate ?? 0 }, limiter)
      devices.push(createSimulatedDevice({ identity: id, systemUid: '', transport, model: createDeviceModel(), events, rebootMs: req.rebootMs, software }))
      return
    } catch (err) {
      if (attempt >= 5) { counts.connectFailures++; counts.lastError = (err as Error).message; return }
      await sleep(1000)
    }
  }
}

/** Connects devices 1..n at about `perSecond`, in small batches, reporting progress every second. */
async function connectAll (req: Extract<DevicesRequest, { type: 'start' }>): Promise<void> {
  const t0 = performance.now()
  const batch = Math.max(1, Math.round(req.perSecond / 20))
  const pending = new Set<Promise<void>>()
  let reported = t0
  for (let from = 1; from <= req.devices; from += batch) {
    const due = t0 + ((from - 1) / req.perSecond) * 1000
    if (due > performance.now()) await sleep(due - performance.now())
    // A service that lags behind (PGlite: one thread for the logins and the store) gets no more than a second's
    // worth of connections waiting, rather than a queue in which they time out.
    while (pending.size >= req.perSecond) await Promise.race(pending)
    for (let i = from; i < from + batch && i <= req.devices; i++) {
      const p = connectOne(i, req).finally(() => { pending.delete(p) })
      pending.add(p)
    }
    if (performance.now() - reported >= 1000) {
      reported = performance.now()
      send({ type: 'progress', connected: devices.length, failed: counts.connectFailures })
    }
  }
  await Promise.all(pending)
  send({ type: 'ready', connected: devices.length, failed: counts.connectFailures, seconds: (performance.now() - t0) / 1000, lastError: counts.lastError })
}

function stats (setting?: { key: string, value: unknown }): DevicesStats {
  const now = Date.now()
  let connected = 0
  let gone = 0
  let resets = 0
  let withSetting = 0
  for (const d of devices) {
    if (isUp(d.transport)) connected++
    if (isGone(d.transport)) gone++
    resets += d.model.numberOfResets
    if (setting !== undefined && d.model.read([setting.key], now)[0]?.value === setting.value) withSetting++
  }
  const cpu = process.cpuUsage()
  return { devices: devices.length, connected, gone, resets, withSetting, ...counts, rss: process.memoryUsage().rss, cpuS: (cpu.user + cpu.system) / 1e6 }
}

process.on('message', (m: DevicesRequest) => {
  if (m.type === 'start') {
    if (m.tls !== undefined && m.client !== 'lean') { console.error('devices: TLS needs the lean link'); process.exit(2) }
    if (m.software !== undefined) limiter = createLimiter(m.software.downloadConcurrency)
    connectAll(m).catch((err: unknown) => { console.error('devices:', err); process.exit(1) })
  } else if (m.type === 'stats') {
    send({ type: 'stats', stats: stats(m.setting) })
  } else if (m.type === 'close') {
    Promise.all(devices.map(async (d) => { await d.close().catch(() => {}) })).finally(() => { process.exit(0) })
  }
})
process.on('disconnect', () => { process.exit(0) })
