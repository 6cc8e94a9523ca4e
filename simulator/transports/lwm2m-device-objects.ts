// Objects 1 (LwM2M Server), 3 (Device), 4 (Connectivity Monitoring) and 6 (Location) of a simulated LwM2M client,
// over one mutable state: the data messages of the device model (sendData) move RSSI, link quality and the position;
// the battery drains a little at each one. Execute Reboot (3/0/4), Factory Reset (3/0/5) and Registration Update
// Trigger (1/0/8), and Writes of Lifetime (1/0/1) and Binding (1/0/7), go to the transport through callbacks.
import type { LwM2mValue } from '../../protocols/lwm2m/index.js'
import type { InstanceResources, ObjectInstances, Outcome, ResourceValue } from './lwm2m-tree.js'

export interface Lwm2mDeviceState {
  serialNumber: string
  manufacturer: string
  modelNumber: string
  /** dBm (4/0/2). */
  rssi: number
  /** 0–100 (4/0/3, from the signal bars). */
  linkQuality: number
  ipAddress: string
  cellId: number
  mcc: number
  mnc: number
  apn: string
  latitude: number
  longitude: number
  /** When the position was taken (6/0/5). */
  locationTime: Date
  /** % (3/0/9). */
  battery: number
  /** KB (3/0/10). */
  memoryFree: number
  /** ms to add to the clock (3/0/13 written). */
  clockOffsetMs: number
  utcOffset: string
  timezone: string
  lifetime: number
  binding: string
  defaultPmin: number
  defaultPmax: number
}

export interface DeviceObjectCallbacks {
  firmwareVersion: () => string
  reboot: () => void
  factoryReset: () => void
  /** 1/0/8: send a registration update now. */
  updateTrigger: () => void
  /** Lifetime or binding written: the next update carries them. */
  registrationChanged: () => void
}

const single = (id: number, inst: InstanceResources, version = '1.0'): ObjectInstances => ({ id, version, instances: () => new Map([[0, inst]]) })
const int = (v: LwM2mValue): number | undefined => typeof v === 'number' && Number.isInteger(v) ? v : typeof v === 'bigint' ? Number(v) : undefined

function serverObject (s: Lwm2mDeviceState, c: DeviceObjectCallbacks): ObjectInstances {
  return single(1, {
    values: () => new Map<number, ResourceValue>([[0, 1], [1, s.lifetime], [2, s.defaultPmin], [3, s.defaultPmax], [6, true], [7, s.binding]]),
    write (resourceId, value): Outcome {
      const n = int(value)
      if (resourceId === 1) { if (n === undefined || n < 1) return 'bad.request'; s.lifetime = n; c.registrationChanged(); return 'ok' }
      if (resourceId === 2 || resourceId === 3) { if (n === undefined || n < 0) return 'bad.request'; if (resourceId === 2) s.defaultPmin = n; else s.defaultPmax = n; return 'ok' }
      if (resourceId === 6) return 'ok'
      if (resourceId === 7 && typeof value === 'string') { s.binding = value; c.registrationChanged(); return 'ok' }
      return 'not.allowed'
    },
    execute: (resourceId) => { if (resourceId !== 8) return 'not.allowed'; c.updateTrigger(); return 'ok' },
    executables: [8]
  }, '1.1')
}

function deviceObject (s: Lwm2mDeviceState, c: DeviceObjectCallbacks): ObjectInstances {
  return single(3, {
    values: () => new Map<number, ResourceValue>([
      [0, s.manufacturer], [1, s.modelNumber], [2, s.serialNumber], [3, c.firmwareVersion()],
      [6, new Map([[0, 1], [1, 5]])], // internal battery, USB
      [7, new Map([[0, 3700 + Math.round(s.battery * 5)], [1, 5000]])], [9, Math.round(s.battery)], [10, s.memoryFree],
      [11, new Map([[0, s.battery < 10 ? 1 : 0]])], [13, new Date(Date.now() + s.clockOffsetMs)], [14, s.utcOffset],
      [15, s.timezone], [16, 'UQ'], [17, 'cellular gateway'], [18, '1.0'], [20, s.battery < 10 ? 4 : 0], [21, 65536]
    ]),
    write (resourceId, value): Outcome {
      if (resourceId === 13 && value instanceof Date) { s.clockOffsetMs = value.getTime() - Date.now(); return 'ok' }
      if (resourceId === 14 && typeof value === 'string') { s.utcOffset = value; return 'ok' }
      if (resourceId === 15 && typeof value === 'string') { s.timezone = value; return 'ok' }
      return 'bad.request'
    },
    execute (resourceId): Outcome {
      if (resourceId === 4) { c.reboot(); return 'ok' }
      if (resourceId === 5) { c.factoryReset(); return 'ok' }
      return resourceId === 12 ? 'ok' : 'not.allowed'
    },
    executables: [4, 5, 12]
  }, '1.1')
}

function connectivityObject (s: Lwm2mDeviceState): ObjectInstances {
  return single(4, {
    values: () => new Map<number, ResourceValue>([
      [0, 6], [1, new Map([[0, 6], [1, 0]])], // LTE-FDD, GSM
      [2, Math.round(s.rssi)], [3, s.linkQuality], [4, new Map([[0, s.ipAddress]])], [7, new Map([[0, s.apn]])],
      [8, s.cellId], [9, s.mnc], [10, s.mcc]
    ])
  })
}

function locationObject (s: Lwm2mDeviceState): ObjectInstances {
  return single(6, { values: () => new Map<number, ResourceValue>([[0, s.latitude], [1, s.longitude], [5, s.locationTime]]) })
}

/** Objects 1, 3, 4 and 6 over the state. */
export function deviceObjects (s: Lwm2mDeviceState, c: DeviceObjectCallbacks): ObjectInstances[] {
  return [serverObject(s, c), deviceObject(s, c), connectivityObject(s), locationObject(s)]
}

/** A device's starting state: identifiers from its serial number, so the same device looks the same on every run. */
export function initialDeviceState (serialNumber: string, lifetime: number, binding: string): Lwm2mDeviceState {
  let h = 0
  for (const ch of serialNumber) h = (h * 31 + ch.charCodeAt(0)) >>> 0
  return {
    serialNumber,
    manufacturer: 'Fleet Simulator',
    modelNumber: 'SIM-LWM2M-1',
    rssi: -75,
    linkQuality: 80,
    ipAddress: `10.${(h >>> 16) & 255}.${(h >>> 8) & 255}.${(h & 254) + 1}`,
    cellId: h % 268_435_455,
    mcc: 208,
    mnc: 1 + (h % 20),
    apn: 'internet',
    latitude: 45.19,
    longitude: 5.72,
    locationTime: new Date(),
    battery: 100,
    memoryFree: 20_000 + (h % 10_000),
    clockOffsetMs: 0,
    utcOffset: '+00:00',
    timezone: 'Etc/UTC',
    lifetime,
    binding,
    defaultPmin: 0,
    defaultPmax: 0
  }
}
