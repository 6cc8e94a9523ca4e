// Types and limits shared by the AirVantage JSON codecs (docs/protocols/README.md).
// Pure: this folder imports nothing of ours (docs/architecture.md#layout).

/** A data value as devices send it: JSON scalars only (docs/protocols/mqtt.md; binary is base64 text, a date is ms). */
export type DataValue = number | string | boolean | null

/** One decoded data point. Structurally the DataPoint of core/domain/device-message.ts. */
export interface Point { dataId: string, ts: number, value: DataValue }

/** What a decoder answers instead of throwing: a dotted reason for logs and metrics
 * (docs/architecture.md#how-data-flows). */
export interface Refusal<R extends string> { ok: false, reason: R }

/** A payload bigger than this is refused before it is even decoded as text. */
export const MAX_PAYLOAD_BYTES = 1024 * 1024
/** Points per payload; duplicates count (docs/devices.md counts them). */
export const MAX_POINTS = 10_000
/** Data ids, ack and task uids; the same bound as the MQTT password (docs/protocols/mqtt.md). */
export const MAX_ID_LENGTH = 255
/** Acknowledgements per payload. */
export const MAX_ACKS = 1000
