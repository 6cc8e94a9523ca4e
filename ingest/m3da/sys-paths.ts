// The one table between M3DA paths and our data ids (docs/protocols/m3da.md; docs/devices.md lists the
// device-management ids). An M3DA data id is the Message path joined with the body key (docs/protocols/m3da.md); the
// `@sys` asset is the agent's device-management tree (docs/protocols/m3da.md). Its status variables are named as in the
// Mihini agent's status-report map (agent/treemgr/maps/dummystatusreport.map: `system.cellular.link.rssi`...), and
// they feed System data under the same `_RSSI`-style ids MQTT and REST devices send. Rows marked "ours" have no
// Mihini name: we chose one in the same tree.
//
// Both directions use this table: a value the device sends under `@sys.system.cellular.link.rssi` is stored as
// `_RSSI`, and a retrieve of `_RSSI` asks the agent to read `system.cellular.link.rssi` (ReadNode, §2.7).
// The agent's configuration (`@sys.config.*`) is the `config.*` of the generic application (its settings), so a
// write of `config.apn` goes to `@sys.config` and `@sys.config.apn` comes back as `config.apn`. Any other `@sys`
// path keeps its `@sys.` id; any other asset's path is the data id itself (`greenhouse.temperature`).

const SYS = '@sys'

/** Device-management data id → its path in the agent's `@sys` tree (first row of an id is the one we ask for). */
const SYS_PATHS: ReadonlyArray<readonly [dataId: string, path: string]> = [
  ['_RSSI', 'system.cellular.link.rssi'],
  ['_ECIO', 'system.cellular.gsm.link.ecio'],
  ['_ECIO', 'system.cellular.cdma.link.ecio'],
  ['_RSRP', 'system.cellular.lte.link.rsrp'],
  ['_RSRQ', 'system.cellular.lte.link.rsrq'],
  ['_SIGNAL_BARS', 'system.cellular.link.signal_bars'], // ours
  ['_LATITUDE', 'system.gps.latitude'],
  ['_LONGITUDE', 'system.gps.longitude'],
  ['_CELL_ID', 'system.cellular.gsm.link.cell_id'],
  ['_APN', 'system.cellular.apn.current'],
  ['_SID', 'system.cellular.cdma.link.sid'],
  ['_NID', 'system.cellular.cdma.link.nid'],
  ['_PN_OFFSET', 'system.cellular.cdma.link.pn_offset'],
  ['_NETWORK_SERVICE_TYPE', 'system.cellular.link.service'],
  ['_NETWORK_OPERATOR', 'system.cellular.gsm.link.operator'],
  ['_NETWORK_OPERATOR', 'system.cellular.cdma.link.operator'],
  ['_BYTES_SENT', 'system.cellular.link.bytes_sent'],
  ['_BYTES_RECEIVED', 'system.cellular.link.bytes_rcvd'],
  ['_PACKETS_SENT', 'system.cellular.link.pkts_sent'],
  ['_PACKETS_RECEIVED', 'system.cellular.link.pkts_rcvd'],
  ['_BOARD_TEMPERATURE', 'system.advanced.board_temp'],
  ['_RADIO_MODULE_TEMPERATURE', 'system.advanced.radio_temp'],
  ['_NUMBER_OF_RESETS', 'system.advanced.reset_nb'],
  ['_ROAMING_STATUS', 'system.cellular.link.roam_status'],
  ['_FIRMWARE_VERSION', 'system.firmware.version'], // ours
  ['_FIRMWARE_COMPONENTS', 'system.firmware.components'] // ours
]

/** Subtrees of `@sys` that are the generic application's own nodes (its settings under `config`). */
const SYS_SUBTREES = ['config'] as const

const BY_PATH = new Map(SYS_PATHS.map(([id, path]) => [path, id]))
const BY_ID = new Map<string, string>()
for (const [id, path] of SYS_PATHS) if (!BY_ID.has(id)) BY_ID.set(id, path)

/** A path with its empty segments dropped (docs/protocols/m3da.md: "a..b", ".a.b" and "a.b." all mean "a.b"). */
export function normalisePath (path: string): string {
  return path.split('.').filter((s) => s !== '').join('.')
}

/** The data id of an M3DA variable: its full path (Message path + body key, normalised). */
export function dataIdOf (fullPath: string): string {
  const path = normalisePath(fullPath)
  if (!path.startsWith(SYS + '.')) return path
  const inner = path.slice(SYS.length + 1)
  const mapped = BY_PATH.get(inner)
  if (mapped !== undefined) return mapped
  return SYS_SUBTREES.some((t) => inner === t || inner.startsWith(t + '.')) ? inner : path
}

/** The full M3DA path of a data id (the inverse of dataIdOf for every id it produces). */
export function pathOf (dataId: string): string {
  const mapped = BY_ID.get(dataId)
  if (mapped !== undefined) return `${SYS}.${mapped}`
  const id = normalisePath(dataId)
  return SYS_SUBTREES.some((t) => id === t || id.startsWith(t + '.')) ? `${SYS}.${id}` : id
}

/** A full path cut into the Message path and the body key (its last segment), as a write is sent (§2.7). */
export function splitPath (fullPath: string): { path: string, key: string } {
  const at = fullPath.lastIndexOf('.')
  return at <= 0 ? { path: fullPath, key: '' } : { path: fullPath.slice(0, at), key: fullPath.slice(at + 1) }
}
