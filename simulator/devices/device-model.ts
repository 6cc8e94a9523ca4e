// What a simulated cellular gateway measures: a radio signal drifting around -75 dBm, a position moving along a
// heading, link counters that only grow, and the application data of a machine (docs/devices.md: the `_`
// ids are device management, every other id is application data). It keeps the settings of the generic firmware
// (settings.ts): a message carries them after a boot and when a write or a reset changed them, as a device reports
// its configuration, so that what a task changed is visible in the next data.
import type { DataValue, Point } from '../../protocols/airvantage/index.js'
import { installedApplications, type InstalledApplications } from './installed.js'
import { DEVICE_SETTINGS, refuseWrite } from './settings.js'

export interface DeviceModelOptions {
  /** Random source in [0, 1) (tests pass a seeded one). */
  random?: () => number
  /** Where the device starts (degrees). */
  origin?: { latitude: number, longitude: number }
}

export interface DeviceModel {
  /** One reading of every value at `now` (ms); advances the drift, the position and the counters. */
  sample (now: number): Point[]
  /** The current value of each requested id (a read task); unknown ids are left out. */
  read (ids: readonly string[], now: number): Point[]
  /**
   * Applies written settings (a write task): all of them, or none when one is unknown or of the wrong type; answers
   * why it refused. The next sample and later reads report them.
   */
  write (settings: ReadonlyArray<Record<string, DataValue>>): string | undefined
  /** Back to factory settings (a reset): the next sample reports those that changed. */
  reset (): void
  /** A restart: `_NUMBER_OF_RESETS` + 1, and the next sample reports the whole configuration again. */
  reboot (): void
  /** Restarts so far, the device management id `_NUMBER_OF_RESETS`. */
  readonly numberOfResets: number
  /** Counts bytes put on the cellular link (what `_BYTES_SENT` / `_BYTES_RECEIVED` report). */
  countTraffic (sent: number, received: number): void
  /** Messages sampled so far; also sent as `sim.seq`, so that a lost or doubled message can be found. */
  readonly sequence: number
  /** The applications installed by software tasks (installed.ts); a reset or a reboot keeps them. */
  readonly applications: InstalledApplications
}

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v))
const round = (v: number, digits: number): number => Math.round(v * 10 ** digits) / 10 ** digits

/** Signal bars (0-5) from RSSI with the thresholds of the levels of docs/devices.md. */
export function signalBars (rssi: number): number {
  if (rssi >= -65) return 5
  if (rssi >= -75) return 4
  if (rssi >= -85) return 3
  if (rssi >= -95) return 2
  if (rssi >= -105) return 1
  return 0
}

/**
 * Towns of western Europe a simulated fleet is spread over. Around one town (as before) every device of a fleet
 * was one dot on the console's map, which then showed nothing of where they are.
 */
const TOWNS: ReadonlyArray<readonly [number, number]> = [
  [45.19, 5.72], [48.86, 2.35], [45.76, 4.84], [43.3, 5.37], [44.84, -0.58], [47.22, -1.55], [50.63, 3.06],
  [48.58, 7.75], [43.6, 1.44], [51.51, -0.13], [53.48, -2.24], [52.37, 4.9], [50.85, 4.35], [50.94, 6.96],
  [48.14, 11.58], [52.52, 13.4], [47.38, 8.54], [45.46, 9.19], [41.9, 12.5], [40.42, -3.7], [41.39, 2.17], [38.72, -9.14]
]

/** A town of TOWNS and a few kilometres around it. */
export function startingPoint (random: () => number): { latitude: number, longitude: number } {
  const [lat, lon] = TOWNS[Math.floor(random() * TOWNS.length)] ?? TOWNS[0] ?? [45.19, 5.72]
  return { latitude: round(lat + (random() - 0.5) * 0.1, 6), longitude: round(lon + (random() - 0.5) * 0.1, 6) }
}

/** What the device measures, moving at each sample. */
interface Measurements {
  rssi: number
  latitude: number
  longitude: number
  heading: number
  temperature: number
  humidity: number
  bytesSent: number
  bytesReceived: number
}

function initialMeasurements (random: () => number, noise: () => number, origin: DeviceModelOptions['origin']): Measurements {
  const rssi = -75 + noise() * 3
  const { latitude, longitude } = origin ?? startingPoint(random)
  const heading = random() * 2 * Math.PI
  const temperature = 40 + noise() * 2
  const humidity = 50 + noise() * 5
  const bytesSent = Math.floor(random() * 10_000)
  const bytesReceived = Math.floor(random() * 10_000)
  return { rssi, latitude, longitude, heading, temperature, humidity, bytesSent, bytesReceived }
}

function step (m: Measurements, noise: () => number): void {
  // Mean-reverting walk: the signal wanders but keeps coming back to -75 dBm.
  m.rssi = clamp(m.rssi + noise() - (m.rssi + 75) * 0.1, -113, -51)
  m.heading += noise() * 0.1
  m.latitude = clamp(m.latitude + Math.cos(m.heading) * 0.0005, -89, 89)
  m.longitude = ((m.longitude + Math.sin(m.heading) * 0.0005 + 540) % 360) - 180
  m.temperature = clamp(m.temperature + noise() * 0.3 - (m.temperature - 40) * 0.05, -20, 120)
  m.humidity = clamp(m.humidity + noise() - (m.humidity - 50) * 0.05, 0, 100)
}

/** The measurements as the device reports them, into current. */
function snapshot (m: Measurements, sequence: number, current: Map<string, DataValue>): void {
  const reported = round(m.rssi, 1)
  current.set('_RSSI', reported)
  current.set('_SIGNAL_BARS', signalBars(reported)) // from the value sent, so bars and level always agree
  current.set('_LATITUDE', round(m.latitude, 6))
  current.set('_LONGITUDE', round(m.longitude, 6))
  current.set('_BYTES_SENT', m.bytesSent)
  current.set('_BYTES_RECEIVED', m.bytesReceived)
  current.set('machine.temperature', round(m.temperature, 2))
  current.set('machine.humidity', round(m.humidity, 1))
  current.set('sim.seq', sequence)
}

export function createDeviceModel (opts: DeviceModelOptions = {}): DeviceModel {
  const random = opts.random ?? Math.random
  const noise = (): number => (random() + random() + random() - 1.5) * 2 // about -3..3, bell shaped
  const m = initialMeasurements(random, noise, opts.origin)
  let sequence = 0
  let resets = 0
  const settings = new Map<string, DataValue>(DEVICE_SETTINGS.map((d) => [d.id, d.factory]))
  // What the next message reports besides the measurements: everything after a boot, then what changed.
  let booted = true
  const changed = new Set<string>()
  const current = new Map<string, DataValue>()
  let measured = false

  /** The value of an id now: a measurement, a setting or the restart count; undefined for an id the device lacks. */
  function valueOf (id: string): DataValue | undefined {
    if (id === '_NUMBER_OF_RESETS') return resets
    return settings.has(id) ? settings.get(id) : current.get(id)
  }

  return {
    sample (now) {
      step(m, noise)
      sequence++
      measured = true
      snapshot(m, sequence, current)
      const points = [...current].map(([dataId, value]) => ({ dataId, ts: now, value }))
      const reported = booted ? [...settings.keys()] : [...changed]
      for (const id of reported) points.push({ dataId: id, ts: now, value: settings.get(id) ?? null })
      if (booted) points.push({ dataId: '_NUMBER_OF_RESETS', ts: now, value: resets })
      booted = false
      changed.clear()
      return points
    },
    read (ids, now) {
      // A read before the first sample reports the starting values.
      if (!measured) { measured = true; snapshot(m, sequence, current) }
      return ids.flatMap((dataId) => {
        const value = valueOf(dataId)
        return value === undefined ? [] : [{ dataId, ts: now, value }]
      })
    },
    write (written) {
      const refused = refuseWrite(written)
      if (refused !== undefined) return refused
      for (const s of written) for (const [id, v] of Object.entries(s)) { settings.set(id, v); changed.add(id) }
      return undefined
    },
    reset () {
      for (const d of DEVICE_SETTINGS) {
        if (settings.get(d.id) !== d.factory) changed.add(d.id)
        settings.set(d.id, d.factory)
      }
    },
    reboot () {
      resets++
      booted = true
    },
    get numberOfResets () { return resets },
    countTraffic (sent, received) {
      m.bytesSent += sent
      m.bytesReceived += received
    },
    get sequence () { return sequence },
    applications: installedApplications()
  }
}
