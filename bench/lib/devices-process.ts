// Many simulated MQTT devices in a child process of their own (bench/lib/devices-main.ts), so that the clients do
// not share the service's event loop or its memory figure: connected at a steady pace, then asked for their counts.
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/** lean: bench/lib/lean-mqtt-device.ts; mqtt.js: the simulator's own link (simulator/transports/mqtt.ts). */
export type DevicesClient = 'lean' | 'mqtt.js'

/** How the devices carry out software installs (simulator/fleet.ts softwareOf): the failing share, downloads at once. */
export interface DevicesSoftware {
  /** Share (0..1) of the devices that download and check, then fail the install (`--update-failure-rate`). */
  updateFailureRate: number
  /** Downloads in flight at once across the process (`--download-concurrency`). */
  downloadConcurrency: number
}

/**
 * MQTT over TLS (an mqtts:// url, the lean link only): the CA of the service's certificate, and with `certs` a
 * client certificate per device (device i presents certs[i - 1]: mutual TLS, the certificate logs it in).
 */
export interface DevicesTls { ca: string, certs?: Array<{ cert: string, key: string }> }

export type DevicesRequest =
  | { type: 'start', mqttUrl: string, devices: number, password: string, perSecond: number, rebootMs: number, client: DevicesClient, software?: DevicesSoftware, tls?: DevicesTls }
  | { type: 'stats', setting?: { key: string, value: unknown } }
  | { type: 'close' }

export interface DevicesStats {
  /** Devices connected at the start (and kept since). */
  devices: number
  /** Of them, those whose MQTT connection is up now, and those that gave up reconnecting (lean link only). */
  connected: number
  gone: number
  /** Sum of the devices' `_NUMBER_OF_RESETS`. */
  resets: number
  /** Devices whose setting has the value asked (stats with `setting`). */
  withSetting: number
  /** Tasks answered (acks acknowledged by the service), of them ERROR. */
  answered: number
  failed: number
  /** Device errors (a lost connection, a publish refused) and connections given up at the start. */
  errors: number
  connectFailures: number
  /** Date.now() of the last task answered. */
  lastAnswerAt: number
  lastError: string | undefined
  /** The device process's resident memory, bytes, and the CPU it has used (user + system), seconds. */
  rss: number
  cpuS: number
}

export type DevicesMessage =
  | { type: 'progress', connected: number, failed: number }
  | { type: 'ready', connected: number, failed: number, seconds: number, lastError: string | undefined }
  | { type: 'stats', stats: DevicesStats }

export interface DevicesProcess {
  /** Resolves once every device is connected and subscribed (or given up): how many, in how long. */
  ready: Promise<Extract<DevicesMessage, { type: 'ready' }>>
  stats (setting?: { key: string, value: unknown }): Promise<DevicesStats>
  close (): Promise<void>
}

const MAIN = fileURLToPath(new URL('./devices-main.ts', import.meta.url))

export function startDevicesProcess (opts: Omit<Extract<DevicesRequest, { type: 'start' }>, 'type'>, onProgress?: (connected: number, failed: number) => void): DevicesProcess {
  const child = fork(MAIN, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const exited = new Promise<number | null>((resolve) => { child.once('exit', (code) => { resolve(code) }) })
  const waiting: Array<(s: DevicesStats) => void> = []
  const ready = new Promise<Extract<DevicesMessage, { type: 'ready' }>>((resolve, reject) => {
    child.on('message', (m: DevicesMessage) => {
      if (m.type === 'progress') onProgress?.(m.connected, m.failed)
      else if (m.type === 'ready') resolve(m)
      else waiting.shift()?.(m.stats)
    })
    exited.then((code) => { reject(new Error(`the device process exited with ${code}`)) }, reject)
  })
  ready.catch(() => {})
  child.send({ type: 'start', ...opts } satisfies DevicesRequest)
  return {
    ready,
    async stats (setting) {
      if (child.exitCode !== null) throw new Error(`the device process exited with ${child.exitCode}`)
      const answer = new Promise<DevicesStats>((resolve) => { waiting.push(resolve) })
      child.send({ type: 'stats', ...(setting === undefined ? {} : { setting }) } satisfies DevicesRequest)
      return await answer
    },
    async close () {
      if (child.exitCode === null) {
        child.send({ type: 'close' } satisfies DevicesRequest)
        await exited
      }
    }
  }
}
