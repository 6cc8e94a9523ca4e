// The system's levels (docs/devices.md): the device-management values worth a glance, each level beside
// its raw value ("-71 (very good)"). No DOM here (tested in test/unit/console/levels.test.ts).
import { formatBytes, formatValue as str } from '../../lib/format.js'

/** docs/devices.md: the device-management values, each level beside its raw value. */
const LEVELS: Array<[string, string, string | null]> = [
  ['Signal (RSSI)', 'rssi', 'rssiLevel'], ['Ec/Io', 'ecio', 'ecioLevel'], ['RSRP', 'rsrp', 'rsrpLevel'], ['RSRQ', 'rsrq', 'rsrqLevel'],
  ['Signal strength', 'signalStrength', null], ['Signal bars', 'signalBars', null], ['Network', 'networkServiceType', null],
  ['Operator', 'networkOperator', null], ['Roaming', 'roamingStatus', null], ['APN', 'apn', null], ['Cell', 'cellId', null],
  ['Firmware', 'firmwareVersion', null], ['Board temperature', 'boardTemp', null], ['Radio temperature', 'radioModuleTemp', null],
  ['Resets', 'numberOfResets', null], ['Latitude', 'latitude', null], ['Longitude', 'longitude', null],
  ['Bytes this month', 'monthBytesTotal', null], ['Alert', 'alertState', null]
]

export function levelsOf (data: Record<string, unknown> | null | undefined): Array<[string, string]> {
  return LEVELS.map(([label, key, level]) => {
    const v = data?.[key]
    const l = level === null ? null : data?.[level]
    const value = key === 'monthBytesTotal' && typeof v === 'number' ? formatBytes(v) : str(v)
    const withLevel = l !== null && l !== undefined && l !== 'NO_REPORT' ? `${value} (${str(l).toLowerCase().replace(/_/g, ' ')})` : value
    return [label, withLevel]
  })
}
