// Bytes → JSON value, with the refusals every AirVantage payload shares (size, UTF-8, emptiness, syntax).
import { MAX_ID_LENGTH, MAX_PAYLOAD_BYTES, type Refusal } from './types.js'

export type TextReason = 'payload.too.large' | 'payload.empty' | 'payload.invalid.utf8' | 'payload.invalid.json'

const utf8 = new TextDecoder('utf-8', { fatal: true })
// In a /u regex a well-formed pair is one code point, so \p{Cs} matches lone surrogates only.
const LONE_SURROGATE = /\p{Cs}/u

/** Parses a payload as UTF-8 JSON. A leading BOM is ignored. Never throws. */
export function parseJson (input: Buffer | Uint8Array | string): { ok: true, json: unknown } | Refusal<TextReason> {
  let text: string
  if (typeof input === 'string') {
    // each UTF-16 unit is at least one UTF-8 byte: the length alone settles most oversized strings
    if (input.length > MAX_PAYLOAD_BYTES || Buffer.byteLength(input, 'utf8') > MAX_PAYLOAD_BYTES) {
      return { ok: false, reason: 'payload.too.large' }
    }
    if (LONE_SURROGATE.test(input)) return { ok: false, reason: 'payload.invalid.utf8' }
    text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input
  } else if (input instanceof Uint8Array) {
    if (input.length > MAX_PAYLOAD_BYTES) return { ok: false, reason: 'payload.too.large' }
    try {
      text = utf8.decode(input) // strips a leading BOM
    } catch {
      return { ok: false, reason: 'payload.invalid.utf8' }
    }
  } else {
    return { ok: false, reason: 'payload.empty' } // no bytes at all (a caller bug, but never a throw)
  }
  if (text.trim() === '') return { ok: false, reason: 'payload.empty' }
  try {
    return { ok: true, json: JSON.parse(text) }
  } catch {
    return { ok: false, reason: 'payload.invalid.json' }
  }
}

export function isRecord (v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * Text PostgreSQL cannot store: NUL, or a lone surrogate written as a JSON escape ("\ud800").
 * Refusing it here keeps a storage error from ever reaching a device.
 */
export function unstorable (s: string): boolean {
  return s.includes('\u0000') || LONE_SURROGATE.test(s)
}

/** Length in characters (code points), counted only when the UTF-16 length could exceed the bound. */
export function tooLong (s: string, max = MAX_ID_LENGTH): boolean {
  return s.length > max && [...s].length > max
}
