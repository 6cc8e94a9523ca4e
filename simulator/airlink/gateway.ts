// A simulated AirLink gateway's state (docs/protocols/msci.md): the values of the MSCI ids the service polls,
// moving between reads (RSSI drifting, byte counters growing, the position wandering, the time since reset), its
// settings (any id from 1024 up takes a write, and keeps it), and its reboot (MSCI 65001 ← 1: counters and time since
// reset start again, the reboot is counted, and the gateway answers nothing for `rebootDowntimeMs`).
import { MSCI_REBOOT } from '../../protocols/msci/ids.js'

export type GatewayValue = number | string

export interface AirlinkGatewayOptions {
  /** Its identity (ICCID, IMEI... are derived from it). */
  serial: string
  /** How long a reboot keeps it silent (default 0: back at once). */
  rebootDowntimeMs?: number
  now?: () => number
  random?: () => number
}

/** The configuration ids writes may change (ALEOS CFG ids start at 1024, §5.1) besides any other id from 1024 up. */
export const FACTORY_SETTINGS: ReadonlyMap<number, GatewayValue> = new Map<number, GatewayValue>([
  [1034, 2332], // telnet port (§5.2 B)
  [1150, 9191], // AceManager HTTP port (§5.2 A)
  [1154, 'AirLink'], // device name
  [1115, 161] // SNMP port
])

export interface AirlinkGateway {
  readonly serial: string
  /** The value of an id now (undefined: the gateway has no such id). */
  read (id: number): GatewayValue | undefined
  /** Whether a write of this value to this id would be taken (nothing changes). */
  writable (id: number, value: GatewayValue): boolean
  /** Writes one id; false when the id is not writable (a status id, or unknown below 1024). */
  write (id: number, value: GatewayValue): boolean
  /** Whether it answers now (not within a reboot's downtime). */
  up (): boolean
  /** Reboots counted since it was created. */
  reboots (): number
  settings (): ReadonlyMap<number, GatewayValue>
}

/** What moves between reads, and the time of the last boot. */
interface Readings {
  bootAt: number
  lastRead: number
  rssi: number
  temp: number
  lat: number
  lon: number
  bytesSent: number
  bytesReceived: number
}

function initialReadings (now: () => number, random: () => number): Readings {
  const bootAt = now()
  const rssi = -70 - Math.round(random() * 10)
  const temp = 30 + Math.round(random() * 10)
  const lat = 45 + random()
  const lon = 5 + random()
  return { bootAt, lastRead: now(), rssi, temp, lat, lon, bytesSent: 0, bytesReceived: 0 }
}

// Values move with the time between reads, so two polls never see the same gateway.
function advance (r: Readings, t: number, random: () => number): void {
  const dt = Math.max(0, t - r.lastRead) / 1000
  r.lastRead = t
  r.rssi = Math.max(-110, Math.min(-55, r.rssi + Math.round((random() - 0.5) * 6)))
  r.temp = Math.max(-10, Math.min(70, r.temp + Math.round((random() - 0.5) * 2)))
  r.lat += (random() - 0.5) * 0.001
  r.lon += (random() - 0.5) * 0.001
  r.bytesSent += Math.round(dt * (200 + random() * 800))
  r.bytesReceived += Math.round(dt * (400 + random() * 1600))
}

/** The value of a status id now; the identities (ICCID, IMSI, IMEI, address...) are made of the serial's digits. */
function statusValue (id: number, r: Readings, digits: string, now: () => number, random: () => number): GatewayValue | undefined {
  switch (id) {
    case 261: return r.rssi
    case 264: return 'LTE'
    case 267: return r.temp
    case 283: return r.bytesSent
    case 284: return r.bytesReceived
    case 281: return Math.floor(r.bytesSent / 500)
    case 282: return Math.floor(r.bytesReceived / 500)
    case 770: return 'Simulated Telecom'
    case 772: return String(-5 - Math.round(random() * 5)) // OCTET STRING though numeric (§5.3)
    case 773: return `${digits.slice(0, 4)}A${digits.slice(4)}`
    case 11202: return 'sim.apn'
    case 902: return r.lat.toFixed(6)
    case 903: return r.lon.toFixed(6)
    case 4: return '4.17.1.sim'
    case 10210: return -90 - Math.round(random() * 20)
    case 10209: return -8 - Math.round(random() * 6)
    case 771: return `8933${digits}${digits}`
    case 785: return `20801${digits}00`
    case 10: return `35${digits}${digits.slice(0, 5)}`
    case 259: return 'Network Ready'
    case 266: return '12.1'
    case 301: return `10.${Number(digits.slice(-6, -4))}.${Number(digits.slice(-4, -2))}.${Number(digits.slice(-2))}`
    case 900: return 1
    case 901: return 7
    case 7: return 'RV55 (simulated)'
    case 270: return Math.floor((now() - r.bootAt) / 1000)
    default: return undefined
  }
}

function writable (id: number, value: GatewayValue): boolean {
  return id === MSCI_REBOOT ? Number(value) === 1 : id >= 1024 && id !== 0xFFFF
}

export function createAirlinkGateway (opts: AirlinkGatewayOptions): AirlinkGateway {
  const now = opts.now ?? Date.now
  const random = opts.random ?? Math.random
  const digits = opts.serial.replace(/\D/g, '').padStart(8, '0').slice(-8)
  const settings = new Map(FACTORY_SETTINGS)
  const readings = initialReadings(now, random)
  let downUntil = 0
  let rebootCount = 0

  return {
    serial: opts.serial,
    read (id) {
      if (id === 261) advance(readings, now(), random)
      return settings.get(id) ?? statusValue(id, readings, digits, now, random)
    },
    writable,
    write (id, value) {
      if (!writable(id, value)) return false
      if (id === MSCI_REBOOT) {
        rebootCount++
        readings.bootAt = now() + (opts.rebootDowntimeMs ?? 0)
        downUntil = readings.bootAt
        readings.bytesSent = 0
        readings.bytesReceived = 0
        return true
      }
      settings.set(id, value)
      return true
    },
    up: () => now() >= downUntil,
    reboots: () => rebootCount,
    settings: () => settings
  }
}
