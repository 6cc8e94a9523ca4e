// System data (docs/devices.md): device-management values extracted from device traffic so that every
// protocol gives the same representation. The id → field table and the levels are docs/devices.md.
import type { DataPoint, DataValue } from './device-message.js'

export const SIGNAL_LEVELS = ['NO_REPORT', 'NO_SIGNAL', 'VERY_LOW', 'LOW', 'GOOD', 'VERY_GOOD', 'EXCELLENT'] as const
export type SignalLevel = typeof SIGNAL_LEVELS[number]

/** Every field of docs/devices.md; null when never reported. */
export interface SystemData {
  apn: string | null
  cellId: string | null
  sid: string | null
  nid: string | null
  pnOffset: string | null
  latitude: number | null
  longitude: number | null
  rssi: number | null
  rssiLevel: SignalLevel
  ecio: number | null
  ecioLevel: SignalLevel
  /** LTE only, in 1/10 dBm. */
  rsrp: number | null
  rsrpLevel: SignalLevel
  /** LTE only, in 1/10 dB. */
  rsrq: number | null
  rsrqLevel: SignalLevel
  signalBars: number | null
  signalStrength: SignalLevel
  networkServiceType: string
  networkOperator: string | null
  bytesSent: number | null
  bytesReceived: number | null
  packetsSent: number | null
  packetsReceived: number | null
  boardTemp: number | null
  radioModuleTemp: number | null
  numberOfResets: number | null
  roamingStatus: string
  firmwareVersion: string | null
  /** Comma separated list. */
  firmwareComponents: string | null
  monthBytesTotal: number | null
  monthBytesTotalTime: number | null
  /** Deprecated (docs/api.md: see dataUsage). */
  usagesBytesTotal: number | null
  lastCommFailureDate: number | null
  lastTemplateName: string | null
  alertState: boolean | null
  alertStateChangeDate: number | null
  ipAddress: string | null
}

/** docs/api.md#systems, create system: levels NO_REPORT, networkServiceType and roamingStatus UNKNOWN. */
export const UNKNOWN = 'UNKNOWN'

export function initialSystemData (): SystemData {
  return {
    apn: null,
    cellId: null,
    sid: null,
    nid: null,
    pnOffset: null,
    latitude: null,
    longitude: null,
    rssi: null,
    rssiLevel: 'NO_REPORT',
    ecio: null,
    ecioLevel: 'NO_REPORT',
    rsrp: null,
    rsrpLevel: 'NO_REPORT',
    rsrq: null,
    rsrqLevel: 'NO_REPORT',
    signalBars: null,
    signalStrength: 'NO_REPORT',
    networkServiceType: UNKNOWN,
    networkOperator: null,
    bytesSent: null,
    bytesReceived: null,
    packetsSent: null,
    packetsReceived: null,
    boardTemp: null,
    radioModuleTemp: null,
    numberOfResets: null,
    roamingStatus: UNKNOWN,
    firmwareVersion: null,
    firmwareComponents: null,
    monthBytesTotal: null,
    monthBytesTotalTime: null,
    usagesBytesTotal: null,
    lastCommFailureDate: null,
    lastTemplateName: null,
    alertState: null,
    alertStateChangeDate: null,
    ipAddress: null
  }
}

/** The type of a field in docs/devices.md, which decides how a device value is coerced. */
export type FieldType = 'double' | 'integer' | 'string'
export interface MappedField { field: keyof SystemData, type: FieldType }

/** docs/devices.md: device-management data ids → System data fields, exactly as listed there. */
export const SYSTEM_DATA_IDS: Readonly<Record<string, MappedField>> = Object.freeze({
  _RSSI: { field: 'rssi', type: 'double' },
  _ECIO: { field: 'ecio', type: 'double' },
  _RSRP: { field: 'rsrp', type: 'double' },
  _RSRQ: { field: 'rsrq', type: 'double' },
  _SIGNAL_BARS: { field: 'signalBars', type: 'integer' },
  _LATITUDE: { field: 'latitude', type: 'double' },
  _LONGITUDE: { field: 'longitude', type: 'double' },
  _CELL_ID: { field: 'cellId', type: 'string' },
  _APN: { field: 'apn', type: 'string' },
  _SID: { field: 'sid', type: 'string' },
  _NID: { field: 'nid', type: 'string' },
  _PN_OFFSET: { field: 'pnOffset', type: 'string' },
  _NETWORK_SERVICE_TYPE: { field: 'networkServiceType', type: 'string' },
  _NETWORK_OPERATOR: { field: 'networkOperator', type: 'string' },
  _BYTES_SENT: { field: 'bytesSent', type: 'integer' },
  _BYTES_RECEIVED: { field: 'bytesReceived', type: 'integer' },
  _PACKETS_SENT: { field: 'packetsSent', type: 'integer' },
  _PACKETS_RECEIVED: { field: 'packetsReceived', type: 'integer' },
  _BOARD_TEMPERATURE: { field: 'boardTemp', type: 'integer' },
  _RADIO_MODULE_TEMPERATURE: { field: 'radioModuleTemp', type: 'integer' },
  _NUMBER_OF_RESETS: { field: 'numberOfResets', type: 'integer' },
  _ROAMING_STATUS: { field: 'roamingStatus', type: 'string' },
  _FIRMWARE_VERSION: { field: 'firmwareVersion', type: 'string' },
  _FIRMWARE_COMPONENTS: { field: 'firmwareComponents', type: 'string' }
})
const MAPPING = new Map(Object.entries(SYSTEM_DATA_IDS)) // no prototype lookups for ids like "constructor"

/** The System data field a data id feeds, or undefined for application data. */
export function mappedField (dataId: string): MappedField | undefined {
  return MAPPING.get(dataId)
}

// Levels (docs/devices.md). A level is the first row whose lower bound the value reaches; below the last
// bound is NO_SIGNAL, no value is NO_REPORT. rssi is fixed by docs/api.md#using-the-api. The others are ours, cut from
// the usual UMTS/LTE bands: Ec/Io 0..-6 dB excellent (split EXCELLENT/VERY_GOOD), -7..-10 good, -11..-20 poor (split
// LOW/VERY_LOW); RSRP >= -80 dBm excellent, -80..-90 good, -90..-100 mid cell, -100..-120 cell edge (split);
// RSRQ >= -10 dB excellent, -10..-15 good (split), -15..-20 mid cell (split), below -20 unusable.
//
// | level     | rssi dBm | ecio dB | rsrp 1/10 dBm | rsrq 1/10 dB | signalBars |
// |-----------|----------|---------|---------------|--------------|------------|
// | EXCELLENT | >= -65   | >= -3   | >= -800       | >= -100      | >= 5       |
// | VERY_GOOD | >= -75   | >= -6   | >= -900       | >= -120      | 4          |
// | GOOD      | >= -85   | >= -10  | >= -1000      | >= -150      | 3          |
// | LOW       | >= -95   | >= -15  | >= -1100      | >= -180      | 2          |
// | VERY_LOW  | >= -105  | >= -20  | >= -1200      | >= -200      | 1          |
// | NO_SIGNAL | below    | below   | below         | below        | 0 or less  |
// | NO_REPORT | null     | null    | null          | null         | null       |
const RANKED: readonly SignalLevel[] = ['EXCELLENT', 'VERY_GOOD', 'GOOD', 'LOW', 'VERY_LOW']
export const LEVEL_BOUNDS = Object.freeze({
  rssi: [-65, -75, -85, -95, -105],
  ecio: [-3, -6, -10, -15, -20],
  rsrp: [-800, -900, -1000, -1100, -1200],
  rsrq: [-100, -120, -150, -180, -200],
  signalBars: [5, 4, 3, 2, 1]
} as const)

function level (v: number | null, bounds: readonly number[]): SignalLevel {
  if (v === null || Number.isNaN(v)) return 'NO_REPORT'
  const i = bounds.findIndex((b) => v >= b)
  return i === -1 ? 'NO_SIGNAL' : RANKED[i] ?? 'NO_SIGNAL'
}

export const rssiLevel = (dBm: number | null): SignalLevel => level(dBm, LEVEL_BOUNDS.rssi)
export const ecioLevel = (dB: number | null): SignalLevel => level(dB, LEVEL_BOUNDS.ecio)
export const rsrpLevel = (tenthsDbm: number | null): SignalLevel => level(tenthsDbm, LEVEL_BOUNDS.rsrp)
export const rsrqLevel = (tenthsDb: number | null): SignalLevel => level(tenthsDb, LEVEL_BOUNDS.rsrq)
/** docs/devices.md: NO_REPORT (null bars), NO_SIGNAL (0) … EXCELLENT (5); more than 5 is EXCELLENT. */
export const signalStrength = (bars: number | null): SignalLevel => level(bars, LEVEL_BOUNDS.signalBars)

/**
 * A device value as the field's type (docs/devices.md): double fields take finite numbers (numeric text
 * accepted), integer fields the same rounded, string fields text (numbers and booleans written as text).
 * null clears the field (UNKNOWN for networkServiceType and roamingStatus). undefined: not coercible, field kept.
 */
export function coerceSystemValue (mapped: MappedField, v: DataValue): { value: string | number | null } | undefined {
  if (v === null) return { value: mapped.field === 'networkServiceType' || mapped.field === 'roamingStatus' ? UNKNOWN : null }
  if (mapped.type === 'string') return { value: String(v) }
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN
  if (!Number.isFinite(n)) return undefined
  return { value: mapped.type === 'integer' ? Math.round(n) : n }
}

/** The levels recomputed from the raw values they follow. */
export function withLevels (data: SystemData): SystemData {
  return {
    ...data,
    rssiLevel: rssiLevel(data.rssi),
    ecioLevel: ecioLevel(data.ecio),
    rsrpLevel: rsrpLevel(data.rsrp),
    rsrqLevel: rsrqLevel(data.rsrq),
    signalStrength: signalStrength(data.signalBars)
  }
}

/**
 * Folds points into System data: for each mapped id its latest point by ts (the later in the list on a tie) is
 * coerced to the field type and set; a value that cannot be coerced leaves the field as it was. Application ids
 * are ignored here (they are stored as time series only). Levels are recomputed. `current` is not modified.
 */
export function applyPoints (current: SystemData, points: readonly DataPoint[]): SystemData {
  const latest = new Map<string, DataPoint>()
  for (const p of points) {
    if (!MAPPING.has(p.dataId)) continue
    const seen = latest.get(p.dataId)
    if (seen === undefined || p.ts >= seen.ts) latest.set(p.dataId, p)
  }
  const next: Record<string, unknown> = { ...current }
  for (const [dataId, p] of latest) {
    const mapped = MAPPING.get(dataId)
    const coerced = mapped === undefined ? undefined : coerceSystemValue(mapped, p.value)
    if (mapped !== undefined && coerced !== undefined) next[mapped.field] = coerced.value
  }
  return withLevels(next as unknown as SystemData)
}
