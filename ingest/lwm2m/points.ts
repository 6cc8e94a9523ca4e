// LwM2M values → data points (docs/protocols/lwm2m.md): every value under its data id `lwm2m.<object>.<instance>.
// <resource>[.<resource instance>]` (AirVantage's form, docs/protocols/lwm2m.md), plus the device-management
// ids (`_RSSI`...) of the System data fields the conventions map from objects 3, 4 and 6, which
// core/domain/system-data.ts folds into System data as for every protocol.
import type { DataPoint, DataValue } from '../../core/domain/device-message.js'
import { dataIdToPath, formatObjectLink, pathToDataId, type LwM2mEntry, type LwM2mPath, type LwM2mValue } from '../../protocols/lwm2m/index.js'

/** Resource path → the device-management id it feeds (conventions §LwM2M). */
const SYSTEM_IDS: ReadonlyMap<string, string> = new Map([
  ['3/0/3', '_FIRMWARE_VERSION'],
  ['4/0/2', '_RSSI'],
  ['4/0/8', '_CELL_ID'],
  ['6/0/0', '_LATITUDE'],
  ['6/0/1', '_LONGITUDE']
])

/**
 * The path a data id reads: its `lwm2m.` path, or the resource a device-management id comes from (`_RSSI` → /4/0/2),
 * so that a retrieve of the generic application's ids reaches an LwM2M device too.
 */
export function pathOfDataId (dataId: string): LwM2mPath | undefined {
  const own = dataIdToPath(dataId)
  if (own !== undefined) return own
  for (const [key, id] of SYSTEM_IDS) {
    if (id !== dataId) continue
    const [objectId, instanceId, resourceId] = key.split('/').map(Number)
    return { objectId: objectId as number, instanceId, resourceId }
  }
  return undefined
}

/** A stored value: bigints beyond 2^53 and bytes as text (base64), times as ms, object links as `3:0`. */
export function dataValue (v: LwM2mValue): DataValue {
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString()
  if (v instanceof Date) return v.getTime()
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64')
  if (typeof v === 'object') return formatObjectLink(v)
  return v
}

const keyOf = (e: LwM2mEntry): string => `${e.path.objectId}/${e.path.instanceId ?? ''}/${e.path.resourceId ?? ''}`

/**
 * The points of one Read answer or notification, stamped `receivedAt` where the device gave no time. Cell ids go as
 * text (System data's cellId is a string); networkOperator is MCC then MNC (/4/0/10, /4/0/9, the MNC written on at
 * least two digits) when both are in the payload.
 */
export function pointsOf (entries: readonly LwM2mEntry[], receivedAt: number): DataPoint[] {
  const out: DataPoint[] = []
  const byKey = new Map<string, DataPoint>()
  for (const e of entries) {
    const ts = e.timestamp ?? receivedAt
    const point = { dataId: pathToDataId(e.path), ts, value: dataValue(e.value) }
    out.push(point)
    if (e.path.resourceInstanceId !== undefined) continue
    byKey.set(keyOf(e), point)
    const system = SYSTEM_IDS.get(keyOf(e))
    if (system !== undefined) out.push({ dataId: system, ts, value: system === '_CELL_ID' ? String(point.value) : point.value })
  }
  const mcc = byKey.get('4/0/10')
  const mnc = byKey.get('4/0/9')
  if (mcc !== undefined && mnc !== undefined && mcc.value !== null && mnc.value !== null) {
    out.push({ dataId: '_NETWORK_OPERATOR', ts: Math.max(mcc.ts, mnc.ts), value: `${String(mcc.value)}${String(mnc.value).padStart(2, '0')}` })
  }
  return out
}
