// Task acknowledgements (docs/protocols/mqtt.md, docs/devices.md): devices publish
// `[{"uid", "status": "OK"|"ERROR", "message"?}]` to `<id>/acks/json` or POST it to /device/acks.
import { MAX_ACKS, type Refusal } from './types.js'
import { isRecord, parseJson, tooLong, unstorable, type TextReason } from './text.js'

export type AckStatus = 'OK' | 'ERROR'
export interface Ack { uid: string, status: AckStatus, message: string | null }

export type AckReason = TextReason
  | 'ack.invalid.shape'
  | 'ack.invalid.uid'
  | 'ack.invalid.status'
  | 'ack.invalid.message'
  | 'ack.too.many'

export type DecodedAcks = { ok: true, acks: Ack[] } | Refusal<AckReason>

// One Sierra sample sends "KO" for "ERROR" (docs/protocols/mqtt.md: accept both); case is not significant.
const STATUSES = new Map<string, AckStatus>([['OK', 'OK'], ['ERROR', 'ERROR'], ['KO', 'ERROR']])

/** Decodes an ack payload: an array of acks, or a single ack object. Never throws. */
export function decodeAcks (input: Buffer | Uint8Array | string): DecodedAcks {
  const parsed = parseJson(input)
  if (!parsed.ok) return parsed
  const items = Array.isArray(parsed.json) ? parsed.json : [parsed.json]
  if (items.length === 0) return { ok: false, reason: 'payload.empty' }
  if (items.length > MAX_ACKS) return { ok: false, reason: 'ack.too.many' }
  const acks: Ack[] = []
  for (const item of items) {
    const ack = readAck(item)
    if (typeof ack === 'string') return { ok: false, reason: ack }
    acks.push(ack)
  }
  return { ok: true, acks }
}

function readAck (item: unknown): Ack | AckReason {
  if (!isRecord(item)) return 'ack.invalid.shape'
  const { uid, status, message } = item
  if (typeof uid !== 'string' || uid.trim() === '' || tooLong(uid) || unstorable(uid)) return 'ack.invalid.uid'
  const normalised = typeof status === 'string' ? STATUSES.get(status.toUpperCase()) : undefined
  if (normalised === undefined) return 'ack.invalid.status'
  if (message !== undefined && message !== null && (typeof message !== 'string' || unstorable(message))) {
    return 'ack.invalid.message'
  }
  return { uid, status: normalised, message: message ?? null }
}

/** Encodes acks as a device sends them (simulator, tests); a null message is left out. */
export function encodeAcks (acks: readonly Ack[]): string {
  return JSON.stringify(acks.map((a) => a.message === null
    ? { uid: a.uid, status: a.status }
    : { uid: a.uid, status: a.status, message: a.message }))
}
