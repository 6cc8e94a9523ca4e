// The one representation every device protocol produces (docs/architecture.md#how-data-flows; docs/devices.md: "Every
// accepted device payload is stored as one device message ... with its data points"). Nothing downstream of a
// normaliser knows which protocol carried the message, except through `protocol`.

/**
 * docs/devices.md shows MSCI; docs/devices.md adds MQTT, REST and M3DA; DDI is hawkBit's Direct Device Integration of
 * Linux gateways (docs/protocols/ddi.md), a communication type an application declares like the others; LWM2M is
 * OMA LwM2M over CoAP (docs/protocols/lwm2m.md).
 */
export const DEVICE_PROTOCOLS = ['MQTT', 'REST', 'M3DA', 'MSCI', 'SNMP', 'SPARKPLUG', 'DDI', 'LWM2M'] as const
export type DeviceProtocol = typeof DEVICE_PROTOCOLS[number]

/** A stored value: numbers, strings, booleans, or null (docs/devices.md: number, string or null). */
export type DataValue = number | string | boolean | null

/** One point of a time series: device-management ids (`_RSSI`…) and application ids alike. */
export interface DataPoint {
  dataId: string
  /** ms since epoch, as the device stamped it (or the reception time when it did not). */
  ts: number
  value: DataValue
}

export interface DeviceMessage {
  uid: string
  systemUid: string
  companyUid: string
  protocol: DeviceProtocol
  /** Server time of reception, ms. */
  receivedAt: number
  /** The message timestamp of docs/devices.md: its latest point, or receivedAt when it has none. */
  timestamp: number
  /** In payload order, duplicates kept. */
  points: DataPoint[]
  /** docs/devices.md: "duplicates are counted". */
  nbDataPoints: number
}

/** The latest point timestamp, or receivedAt for a message without points. */
export function messageTimestamp (points: readonly DataPoint[], receivedAt: number): number {
  let latest: number | undefined
  for (const p of points) if (latest === undefined || p.ts > latest) latest = p.ts
  return latest ?? receivedAt
}
