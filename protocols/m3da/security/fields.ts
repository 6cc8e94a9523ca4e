// Reading the security fields of envelope headers and footers (docs/protocols/m3da.md). Bysant strings
// decode as bytes (§1.8), so ids and algorithm names arrive as Buffers and are read here as UTF-8 text.
import type { BysantValue } from '../../bysant/index.js'

type Fields = Readonly<Record<string, BysantValue>> | null | undefined

/** A byte-string field, or null when absent or of another type. */
export function bytesField (fields: Fields, name: string): Buffer | null {
  const value = fields?.[name]
  return Buffer.isBuffer(value) ? value : null
}

/** A text field (UTF-8), or null. */
export function textField (fields: Fields, name: string): string | null {
  const value = bytesField(fields, name)
  return value === null ? null : value.toString('utf8')
}

/** An integer field (a status), or null. */
export function intField (fields: Fields, name: string): number | null {
  const value = fields?.[name]
  if (typeof value === 'number' && Number.isInteger(value)) return value
  if (typeof value === 'bigint' && value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(value)
  return null
}

export function hasField (fields: Fields, name: string): boolean {
  return fields?.[name] !== undefined && fields[name] !== null
}

/**
 * An empty payload: no bytes, or the single `00` (Bysant null) that the Mihini agent also reads as "no payload"
 * (§2.2).
 */
export function isEmptyPayload (payload: Uint8Array): boolean {
  return payload.length === 0 || (payload.length === 1 && payload[0] === 0)
}
