// AirVantage JSON (MQTT or REST) → DeviceMessage (docs/architecture.md#how-data-flows). Pure: decoded points in, one
// message out. Every point is kept, device-management ids (`_RSSI`…) and application ids alike: all are stored as time
// series (docs/devices.md); core/domain/system-data.ts applyPoints folds the mapped ones into System data downstream.
// AirVantage ids already carry the units of docs/devices.md (rsrp in 1/10 dBm…), so nothing is converted.
import type { Point } from '../../protocols/airvantage/index.js'
import { messageTimestamp, type DeviceMessage, type DeviceProtocol } from '../../core/domain/device-message.js'

/** The authenticated device the payload came from. */
export interface DeviceRef { systemUid: string, companyUid: string }

export function normaliseAirVantage (
  points: readonly Point[],
  device: DeviceRef,
  protocol: DeviceProtocol,
  receivedAt: number,
  newUid: () => string
): DeviceMessage {
  const own = points.map((p) => ({ dataId: p.dataId, ts: p.ts, value: p.value }))
  return {
    uid: newUid(),
    systemUid: device.systemUid,
    companyUid: device.companyUid,
    protocol,
    receivedAt,
    timestamp: messageTimestamp(own, receivedAt),
    points: own,
    nbDataPoints: own.length // duplicates counted (docs/devices.md)
  }
}
