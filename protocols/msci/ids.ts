// The MSCI ids the service reads from AirLink gateways, and what each becomes (docs/protocols/msci.md for the
// ids, docs/protocols/msci.md for their SNMP groups). One table: the poller reads every id of it, docs/protocols/msci.md writes it
// down, and a retrieve or a setting names an id by its data id here, or by its number (docs/protocols/msci.md).
//
// `dataId`: a device-management id of docs/devices.md (`_RSSI`…), which System data folds in, or an
// application id `aleos.<name>` for values System data has no field for. `snmp`: the ALEOS group of the OID
// (`1.3.6.1.4.1.20542.9.1.<snmp>.<id>.0`, §5.3), or null where §5.3 lists no OID (read over AceManager only).
// `unit`: how the gateway's value becomes the field's unit (docs/devices.md: rsrp, rsrq in tenths).

export type MsciUnit = 'number' | 'text' | 'tenths' | 'degrees' | 'serviceType'

export interface MsciEntry {
  id: number
  dataId: string
  snmp: string | null
  unit: MsciUnit
}

/** The reboot (docs/protocols/msci.md [S]: Sierra's SNMP test map writes INTEGER 1 to `…9.1.12.65001.0`, "reset
 * modem"). */
export const MSCI_REBOOT = 65001

/** The group of writable configuration in the ALEOS MIB (§5.3: SNMP settings and the reboot sit under `…9.1.12`). */
export const SNMP_CONFIG_GROUP = '12'

export const MSCI_TABLE: readonly MsciEntry[] = Object.freeze([
  { id: 261, dataId: '_RSSI', snmp: '1.1', unit: 'number' },
  { id: 264, dataId: '_NETWORK_SERVICE_TYPE', snmp: '1.1', unit: 'serviceType' },
  { id: 267, dataId: '_BOARD_TEMPERATURE', snmp: '1.1', unit: 'number' },
  { id: 283, dataId: '_BYTES_SENT', snmp: '1.1', unit: 'number' },
  { id: 284, dataId: '_BYTES_RECEIVED', snmp: '1.1', unit: 'number' },
  { id: 281, dataId: '_PACKETS_SENT', snmp: '1.2', unit: 'number' },
  { id: 282, dataId: '_PACKETS_RECEIVED', snmp: '1.2', unit: 'number' },
  { id: 770, dataId: '_NETWORK_OPERATOR', snmp: '1.1', unit: 'text' },
  { id: 772, dataId: '_ECIO', snmp: '1.1', unit: 'number' },
  { id: 773, dataId: '_CELL_ID', snmp: '1.2', unit: 'text' },
  { id: 11202, dataId: '_APN', snmp: '1.2', unit: 'text' },
  { id: 902, dataId: '_LATITUDE', snmp: '1.7', unit: 'degrees' },
  { id: 903, dataId: '_LONGITUDE', snmp: '1.7', unit: 'degrees' },
  { id: 4, dataId: '_FIRMWARE_VERSION', snmp: '1.9', unit: 'text' },
  { id: 648, dataId: '_SID', snmp: '1.2', unit: 'text' },
  { id: 649, dataId: '_NID', snmp: '1.2', unit: 'text' },
  { id: 650, dataId: '_PN_OFFSET', snmp: '1.2', unit: 'text' },
  // §5.1 [S]/[U]: LTE RSRP/RSRQ in dBm / dB; whether the MIB has them is unknown, so AceManager only.
  { id: 10210, dataId: '_RSRP', snmp: null, unit: 'tenths' },
  { id: 10209, dataId: '_RSRQ', snmp: null, unit: 'tenths' },
  { id: 771, dataId: 'aleos.iccid', snmp: '1.2', unit: 'text' },
  { id: 785, dataId: 'aleos.imsi', snmp: '1.2', unit: 'text' },
  { id: 10, dataId: 'aleos.radioId', snmp: '1.2', unit: 'text' },
  { id: 259, dataId: 'aleos.networkState', snmp: '1.1', unit: 'text' },
  { id: 266, dataId: 'aleos.powerIn', snmp: '1.1', unit: 'number' },
  { id: 301, dataId: 'aleos.wanIp', snmp: '1.1', unit: 'text' },
  { id: 900, dataId: 'aleos.gpsFix', snmp: '1.7', unit: 'number' },
  { id: 901, dataId: 'aleos.gpsSatellites', snmp: '1.7', unit: 'number' },
  { id: 7, dataId: 'aleos.model', snmp: '1.9', unit: 'text' },
  { id: 270, dataId: 'aleos.secondsSinceReset', snmp: null, unit: 'number' }
])

const BY_ID = new Map(MSCI_TABLE.map((e) => [e.id, e]))
const BY_DATA_ID = new Map(MSCI_TABLE.map((e) => [e.dataId, e]))

/** MSCI ids are uint16; 0xFFFF is MSCIID_INVALID (§5.1). */
export const isMsciId = (n: number): boolean => Number.isInteger(n) && n >= 0 && n < 0xFFFF

export function entryOf (id: number): MsciEntry | undefined {
  return BY_ID.get(id)
}

/**
 * The MSCI id a data id names: a data id of the table (`_RSSI`, `aleos.iccid`), `aleos.reboot`, or any id whose last
 * dot-separated part is the decimal MSCI id (`1034`, `aleos.1034`, `config.telnetPort.1034`). undefined: none.
 */
export function msciIdOf (dataId: string): number | undefined {
  const known = BY_DATA_ID.get(dataId)
  if (known !== undefined) return known.id
  if (dataId === 'aleos.reboot') return MSCI_REBOOT
  const last = dataId.slice(dataId.lastIndexOf('.') + 1)
  if (!/^\d{1,5}$/.test(last)) return undefined
  const n = Number(last)
  return isMsciId(n) ? n : undefined
}

/** The ids a scheduled poll reads over each access path (§5.3: SNMP reads only the ids that have an OID). */
export const POLLED_IDS = Object.freeze({
  snmp: MSCI_TABLE.filter((e) => e.snmp !== null).map((e) => e.id),
  acemanager: MSCI_TABLE.map((e) => e.id)
})
