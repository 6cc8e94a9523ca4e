// A fleet of simulated devices against a running service: register each through the API (with the generic firmware
// application of its protocol when the catalogue has one; M3DA devices with the application of their security,
// m3da-application.ts), connect it over MQTT, REST or M3DA, then publish at a steady rate (or as fast as
// acknowledgements allow) and carry out tasks, counting it all. A share of the devices fails its tasks
// (failureRate); an SMS gateway receiver wakes REST and M3DA devices between their polls (sms-receiver.ts).
import { setMaxListeners } from 'node:events'
import { createDeviceModel } from './devices/device-model.js'
import { createLimiter, DEFAULT_DOWNLOADS, type Limiter } from './devices/download.js'
import { deviceIdentity, newRunTag, type DeviceIdentity } from './devices/identity.js'
import { GENERIC_APPLICATION_TYPES } from './devices/settings.js'
import { createSimulatedDevice, type DeviceEvents, type SimulatedDevice } from './devices/simulated-device.js'
import type { SoftwareOptions } from './devices/software.js'
import { m3daApplication } from './m3da-application.js'
import { lwm2mApplication } from './lwm2m-application.js'
import { connectApi, findApplication, registerDevice, type ApiClient, type ApiCredentials } from './provision.js'
import { startSmsReceiver, type SmsReceiver } from './sms-receiver.js'
import { ddiDevice } from './transports/ddi.js'
import { connectM3daDevice } from './transports/m3da.js'
import type { M3daSecurity } from './transports/m3da-options.js'
import { connectMqttDevice, type MqttDevice } from './transports/mqtt.js'
import { restDevice } from './transports/rest.js'
import { connectSparkplugNode } from './transports/sparkplug.js'
import { openLwm2mDevice, type TransportDevice } from './transports/lwm2m-fleet.js'
import type { Lwm2mFleetOptions } from './transports/lwm2m-options.js'
import type { DeviceTransport } from './transports/transport.js'
import { startUsagePlayer, type UsagePlayer, type UsagePlayOptions, type UsagePlayStats } from './usage/player.js'
import { drive, inParallel, pollTasks } from './schedule.js'
import { failsTasks, softwareOf } from './fleet-shares.js'
export { failsTasks, softwareOf }

export type FleetProtocol = 'mqtt' | 'rest' | 'm3da' | 'sparkplug' | 'ddi' | 'lwm2m'

export interface LinkOptions {
  protocol: FleetProtocol
  /** mqtt://host:port; needed for MQTT devices. */
  mqttUrl?: string | undefined
  /** 4: MQTT 3.1.1 (default), 5: MQTT 5. */
  mqttVersion?: 4 | 5
  /** ms between MQTT reconnection attempts (0: none). */
  reconnectPeriod?: number
  /** Where M3DA devices connect: tcp://host:port (M3DA_PORT) or http://host:port/device/com; needed for M3DA devices. */
  m3daUrl?: string | undefined
  /** How M3DA devices secure their envelopes (default: hmac-sha1 with their password, no cipher). */
  m3daSecurity?: M3daSecurity
  /** The DDI tenant of hawkBit controllers: their company's uid, or DEFAULT (the default) for the service's first. */
  ddiTenant?: string
  /** Where LwM2M devices register: coap://host:port (LWM2M_PORT) or, with `lwm2m.psk`, coaps://host:port (LWM2MS_PORT). */
  lwm2mUrl?: string | undefined
  lwm2m?: Lwm2mFleetOptions
}

const DEFAULT_M3DA_SECURITY: M3daSecurity = { mode: 'password', mac: 'hmac-sha1', cipher: 'none' }

export interface FleetOptions extends LinkOptions {
  api: ApiCredentials
  devices: number
  /** Messages per device per second; 0: the next message as soon as the previous one is acknowledged. */
  rate: number
  /** Seconds of publishing; undefined: until stop(). */
  durationS?: number | undefined
  /** REST devices poll GET /device/tasks this often (ms, default 5000); an SMS shoulder tap wakes them between polls. */
  taskPollMs?: number
  /** Share of the devices (0..1) that acknowledge every task ERROR, spread evenly over the fleet (default 0). */
  failureRate?: number
  /** How long a reboot keeps a device off (ms, default 1000). */
  rebootMs?: number
  /** Share of the devices (0..1) that fail their installs once downloaded, spread as failureRate (default 0). */
  updateFailureRate?: number
  /** Share (0..1) of download requests a device cuts itself, resuming with Range (default 0). */
  downloadCutRate?: number
  /** Downloads in flight at once over the fleet (default DEFAULT_DOWNLOADS). */
  downloadConcurrency?: number
  /** Run an SMS gateway receiver on this port (0: any free port), for the service's SMS_GATEWAY_URL. */
  smsGatewayPort?: number | undefined
  /** Its address (default: every interface). */
  smsGatewayHost?: string
  /** Registrations and connections at the same time. */
  concurrency?: number
  /** Tag of the run: serial numbers are SIM<run><n>, and the systems carry the label sim-<run>. */
  run?: string
  events?: DeviceEvents
  /** Play the SIMs' usage feed through the usage import while the fleet runs (usage/player.ts). */
  usage?: Omit<UsagePlayOptions, 'api' | 'subscribers'>
  /**
   * Called at the first device that cannot be registered or connected, as it fails: the devices already under way
   * may take a connect timeout to settle, and a user should not wait for them to learn that the broker is wrong.
   */
  onStartFailure?: (err: Error) => void
}

export interface FleetStats {
  /** starting: registering and connecting the devices. */
  phase: 'starting' | 'running' | 'stopped'
  devices: number
  registered: number
  connected: number
  /** Data messages acknowledged by the service, and their points. */
  messages: number
  points: number
  tasksAnswered: number
  /** Tasks acknowledged ERROR (the failing share, unknown settings or commands). */
  tasksFailed: number
  /** Devices woken by an SMS shoulder tap. */
  wakes: number
  /** Package downloads in flight, and waiting for a slot (downloadConcurrency). */
  downloading?: number
  downloadsWaiting?: number
  errors: number
  lastError: string | undefined
  /** With a usage feed: what it imported. */
  usage?: UsagePlayStats
}

export interface Fleet {
  readonly run: string
  readonly devices: readonly SimulatedDevice[]
  /** The URL of the SMS gateway receiver (for the service's SMS_GATEWAY_URL) once `ready`; undefined without one. */
  readonly smsGatewayUrl: string | undefined
  stats (): FleetStats
  /** Resolves once every device is registered and connected; rejects when registration fails. */
  readonly ready: Promise<void>
  /** Resolves when publishing has ended (duration reached or stop()) and the links are closed. */
  readonly done: Promise<void>
  stop (): Promise<void>
}

/** Opens the device's link to the service. */
export async function openTransport (id: DeviceIdentity, link: LinkOptions, httpUrl: string, parts: TransportDevice = {}): Promise<DeviceTransport> {
  if (link.protocol === 'lwm2m') return await openLwm2mDevice(id, link.lwm2mUrl, link.lwm2m ?? {}, parts)
  if (link.protocol === 'rest') return restDevice({ url: httpUrl, username: id.serialNumber, password: id.restPassword })
  if (link.protocol === 'ddi') return ddiDevice({ url: httpUrl, tenant: link.ddiTenant ?? 'DEFAULT', controllerId: id.serialNumber, token: id.restPassword })
  if (link.protocol === 'm3da') {
    if (link.m3daUrl === undefined) throw new Error('an M3DA fleet needs the M3DA URL')
    return await connectM3daDevice({ url: link.m3daUrl, deviceId: id.serialNumber, password: id.m3daPassword, security: link.m3daSecurity ?? DEFAULT_M3DA_SECURITY })
  }
  if (link.mqttUrl === undefined) throw new Error('an MQTT fleet needs the MQTT URL')
  if (link.protocol === 'sparkplug') return await connectSparkplugNode({ url: link.mqttUrl, username: id.serialNumber, password: id.mqttPassword })
  const device = await connectMqttDevice({
    url: link.mqttUrl,
    username: id.serialNumber,
    password: id.mqttPassword,
    protocolVersion: link.mqttVersion ?? 4,
    reconnectPeriod: link.reconnectPeriod ?? 0
  })
  await device.subscribed
  return device
}

export interface AddDeviceOptions {
  labels?: string[]
  events?: DeviceEvents
  /** The firmware application to register the system with (see genericApplication). */
  applicationUid?: string | undefined
  failsTasks?: boolean
  rebootMs?: number
  /** Its downloads (the fleet's limiter, the cut rate) and whether it fails its installs. */
  software?: SoftwareOptions
}

/** Registers one device through the API and connects it: the building block of a fleet (and of tests). */
export async function addDevice (api: ApiClient, id: DeviceIdentity, link: LinkOptions, opts: AddDeviceOptions = {}): Promise<SimulatedDevice> {
  // The M3DA secret of the system: the agent's password, its registration password (auto-registration), or none for
  // an agent without security (its application admits it with `authentication: "none"`).
  const mode = link.protocol === 'm3da' ? (link.m3daSecurity ?? DEFAULT_M3DA_SECURITY).mode : 'none'
  const m3da = mode === 'password' ? 'password' : mode === 'autoreg' ? 'registrationPassword' : 'none'
  const lwm2mPskHex = link.protocol === 'lwm2m' && link.lwm2m?.psk === true ? id.lwm2mPskHex : undefined
  const systemUid = await registerDevice(api, id, { labels: opts.labels ?? ['simulator'], applicationUid: opts.applicationUid, m3da, ...(lwm2mPskHex === undefined ? {} : { lwm2mPskHex }) })
  const model = createDeviceModel()
  const transport = await openTransport(id, link, api.url, { model, ...(opts.software === undefined ? {} : { software: opts.software }), ...(opts.rebootMs === undefined ? {} : { rebootMs: opts.rebootMs }) })
  return createSimulatedDevice({
    identity: id,
    systemUid,
    transport,
    model,
    ...(opts.events === undefined ? {} : { events: opts.events }),
    ...(opts.failsTasks === undefined ? {} : { failsTasks: opts.failsTasks }),
    ...(opts.rebootMs === undefined ? {} : { rebootMs: opts.rebootMs }),
    ...(opts.software === undefined ? {} : { software: opts.software })
  })
}

/**
 * The uid of the generic firmware application of the protocol in the service's catalogue, if it has one. A hawkBit
 * controller runs the REST one: it logs in with the REST password, and the service deploys hawkBit packages to the
 * systems that speak REST (docs/packages.md#installs).
 */
export async function genericApplication (api: ApiClient, protocol: FleetProtocol): Promise<string | undefined> {
  if (protocol === 'lwm2m') return undefined // the catalogue has no generic LwM2M firmware: see fleetApplication
  return await findApplication(api, GENERIC_APPLICATION_TYPES[protocol === 'ddi' ? 'rest' : protocol])
}

/** The application a fleet's devices are registered with: the generic firmware, or for M3DA and LwM2M the one of their security. */
export async function fleetApplication (api: ApiClient, link: LinkOptions): Promise<string | undefined> {
  if (link.protocol === 'm3da') return await m3daApplication(api, link.m3daSecurity ?? DEFAULT_M3DA_SECURITY)
  if (link.protocol === 'lwm2m') return await lwm2mApplication(api, link.lwm2m?.psk === true)
  return await genericApplication(api, link.protocol)
}

const isMqtt = (t: DeviceTransport): t is MqttDevice => 'client' in t

/** The fleet's counters, and the device events that keep them (passed on to the caller's events). */
function counting (s: FleetStats, outer: DeviceEvents | undefined): { events: DeviceEvents, fail: (err: unknown) => void } {
  const fail = (err: unknown): void => { s.errors++; s.lastError = (err as Error).message ?? String(err) }
  const events: DeviceEvents = {
    onData: (d, points) => { s.messages++; s.points += points.length; outer?.onData?.(d, points) },
    onTask: (d, t, ack) => { s.tasksAnswered++; if (ack.status === 'ERROR') s.tasksFailed++; outer?.onTask?.(d, t, ack) },
    onError: (d, err) => { fail(err); outer?.onError?.(d, err) }
  }
  return { events, fail }
}

/** Registers and connects the fleet's devices, `concurrency` at a time, handing each to `added`. */
async function registerFleet (opts: FleetOptions, run: string, events: DeviceEvents, signal: AbortSignal, s: FleetStats, fail: (err: unknown) => void, added: (device: SimulatedDevice) => void, limiter: Limiter): Promise<void> {
  const api = await connectApi(opts.api)
  const applicationUid = await fleetApplication(api, opts)
  const numbers = Array.from({ length: opts.devices }, (_, i) => i + 1)
  await inParallel(numbers, opts.concurrency ?? 8, async (n) => {
    if (signal.aborted) return
    const device = await addDevice(api, deviceIdentity(run, n), opts, {
      labels: ['simulator', `sim-${run}`],
      events,
      applicationUid,
      failsTasks: failsTasks(n, opts.failureRate ?? 0),
      software: softwareOf(n, opts, limiter, signal), // stop() ends the downloads: the run does not wait for them
      ...(opts.rebootMs === undefined ? {} : { rebootMs: opts.rebootMs })
    }).catch((err: unknown) => {
      if (s.errors === 0) opts.onStartFailure?.(err as Error)
      fail(err)
      throw err
    })
    s.registered++
    added(device)
  })
}

export function startFleet (opts: FleetOptions): Fleet {
  const run = opts.run ?? newRunTag()
  const stopper = new AbortController()
  setMaxListeners(0, stopper.signal) // every device waits on it
  const devices: SimulatedDevice[] = []
  const s: FleetStats = { phase: 'starting', devices: opts.devices, registered: 0, connected: 0, messages: 0, points: 0, tasksAnswered: 0, tasksFailed: 0, wakes: 0, errors: 0, lastError: undefined }
  const limiter = createLimiter(opts.downloadConcurrency ?? DEFAULT_DOWNLOADS)
  let sms: SmsReceiver | undefined
  let usage: UsagePlayer | undefined
  const byNumber = new Map<string, SimulatedDevice>()
  const { events, fail } = counting(s, opts.events)

  /** A shoulder tap for one of the fleet's numbers: that device polls now (the gateway is answered meanwhile). */
  function wake (to: string): boolean {
    const device = byNumber.get(to)
    if (device === undefined || s.phase === 'stopped') return false
    s.wakes++
    device.wake().catch(fail)
    return true
  }

  const ready = (async () => {
    if (opts.smsGatewayPort !== undefined) sms = await startSmsReceiver({ port: opts.smsGatewayPort, host: opts.smsGatewayHost, wake })
    await registerFleet(opts, run, events, stopper.signal, s, fail, (device) => {
      devices.push(device)
      byNumber.set(device.identity.mobileNumber, device)
    }, limiter)
  })()

  const done = (async () => {
    let started = true
    // A device's failure was counted as it happened; the API's (token, catalogue) is counted here.
    try { await ready } catch (err) { if (s.errors === 0) fail(err); started = false }
    if (started && !stopper.signal.aborted) {
      s.phase = 'running'
      const w = { signal: stopper.signal, until: opts.durationS === undefined ? Infinity : Date.now() + opts.durationS * 1000, fail }
      const subscribers = devices.map((d) => ({ iccid: d.identity.iccid, imei: d.identity.imei, msisdn: d.identity.mobileNumber }))
      if (opts.usage !== undefined) usage = startUsagePlayer({ ...opts.usage, api: opts.api, subscribers })
      const pollMs = opts.taskPollMs ?? 5000
      await Promise.all(devices.flatMap((d) => d.transport.protocol === 'MQTT' ? [drive(d, opts.rate, w)] : [drive(d, opts.rate, w), pollTasks(d, pollMs, w)]))
      await usage?.stop()
    }
    await Promise.all(devices.map(async (d) => { await d.idle().catch(() => {}) }))
    await Promise.all(devices.map(async (d) => { await d.close().catch(() => {}) }))
    await sms?.close()
    s.phase = 'stopped'
  })()

  return {
    run,
    devices,
    ready,
    done,
    get smsGatewayUrl () { return sms?.url },
    stats () {
      const connected = devices.filter((d) => !isMqtt(d.transport) || d.transport.client.connected).length
      return { ...s, connected: s.phase === 'stopped' ? 0 : connected, downloading: limiter.active, downloadsWaiting: limiter.waiting, ...(usage === undefined ? {} : { usage: usage.stats() }) }
    },
    async stop () {
      stopper.abort()
      await done
    }
  }
}
