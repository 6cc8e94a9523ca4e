// Where a simulated M3DA agent keeps what it reports (docs/protocols/m3da.md): the
// device-management values it measures live in its `@sys` tree under the names of the Mihini agent's status map, the
// generic firmware's settings (`config.*`) under `@sys.config`, and every other id (`machine.temperature`) is a path
// of its own asset. The service holds the same correspondence in one table (ingest/m3da/sys-paths.ts); the simulator
// talks to it over the network only, so the rows of the ids it reports are written out here and
// test/unit/simulator-m3da-paths.test.ts checks them against that table.

const SYS = '@sys'

/** The `@sys` path of each device-management id the device model reports (devices/device-model.ts). */
export const SYS_VARIABLES: Readonly<Record<string, string>> = {
  _RSSI: 'system.cellular.link.rssi',
  _SIGNAL_BARS: 'system.cellular.link.signal_bars',
  _LATITUDE: 'system.gps.latitude',
  _LONGITUDE: 'system.gps.longitude',
  _BYTES_SENT: 'system.cellular.link.bytes_sent',
  _BYTES_RECEIVED: 'system.cellular.link.bytes_rcvd',
  _NUMBER_OF_RESETS: 'system.advanced.reset_nb'
}

/** The agent's configuration subtree: the generic firmware's settings (`config.apn` is `@sys.config.apn`). */
const CONFIG = 'config'

const idOfSysPath = new Map(Object.entries(SYS_VARIABLES).map(([id, path]) => [path, id]))

/** A dotted path without empty segments (docs/protocols/m3da.md: "a..b", ".a.b" and "a.b." all mean "a.b"). */
export function normalise (path: string): string {
  return path.split('.').filter((s) => s !== '').join('.')
}

const inConfig = (p: string): boolean => p === CONFIG || p.startsWith(CONFIG + '.')

/** The full M3DA path of a data id the device reports: `_RSSI` → `@sys.system.cellular.link.rssi`. */
export function m3daPathOf (dataId: string): string {
  const sys = SYS_VARIABLES[dataId]
  if (sys !== undefined) return `${SYS}.${sys}`
  return inConfig(dataId) ? `${SYS}.${dataId}` : dataId
}

/** The data id of a full M3DA path (the inverse of m3daPathOf); a `@sys` path the device does not know keeps its form. */
export function dataIdOfPath (fullPath: string): string {
  const path = normalise(fullPath)
  if (!path.startsWith(SYS + '.')) return path
  const inner = path.slice(SYS.length + 1)
  return idOfSysPath.get(inner) ?? (inConfig(inner) ? inner : path)
}

/**
 * The data ids a ReadNode argument may name (docs/protocols/m3da.md): a node of the `@sys` tree (`system.gps.latitude`,
 * `config.apn`), an asset's path when it starts with an asset id (`@sys.config.apn`), or, as the service asks for
 * application data, the path of another asset (`machine.temperature`). The device reads those it has.
 */
export function dataIdsOfNode (node: string): string[] {
  const n = normalise(node)
  if (n.startsWith('@')) return [dataIdOfPath(n)]
  const sys = dataIdOfPath(`${SYS}.${n}`)
  return sys === `${SYS}.${n}` ? [sys, n] : [sys]
}

/** A full path cut into the Message path and its last segment, the body key (docs/protocols/m3da.md). */
export function splitLast (fullPath: string): { path: string, key: string } {
  const at = fullPath.lastIndexOf('.')
  return at <= 0 ? { path: fullPath, key: '' } : { path: fullPath.slice(0, at), key: fullPath.slice(at + 1) }
}
