// Alerts (RFC 5246 §7.2, RFC 4279 §2 for unknown_psk_identity): level and description, two bytes.
import { asBuffer } from './bytes.js'

export const AlertLevel = { warning: 1, fatal: 2 } as const

export const AlertDescription = {
  closeNotify: 0,
  unexpectedMessage: 10,
  badRecordMac: 20,
  handshakeFailure: 40,
  illegalParameter: 47,
  decodeError: 50,
  decryptError: 51,
  protocolVersion: 70,
  internalError: 80,
  noRenegotiation: 100,
  unsupportedExtension: 110,
  unknownPskIdentity: 115
} as const

const NAMES: Record<number, string> = {
  0: 'close_notify',
  10: 'unexpected_message',
  20: 'bad_record_mac',
  40: 'handshake_failure',
  42: 'bad_certificate',
  47: 'illegal_parameter',
  50: 'decode_error',
  51: 'decrypt_error',
  70: 'protocol_version',
  71: 'insufficient_security',
  80: 'internal_error',
  90: 'user_canceled',
  100: 'no_renegotiation',
  110: 'unsupported_extension',
  115: 'unknown_psk_identity'
}

/** The RFC name of a description, or its number for one not listed. */
export function alertName (description: number): string {
  return NAMES[description] ?? String(description)
}

export interface Alert { level: number, description: number }

export function parseAlert (fragment: Uint8Array): Alert | undefined {
  const b = asBuffer(fragment)
  if (b.length !== 2) return undefined
  return { level: b[0] ?? 0, description: b[1] ?? 0 }
}

export function encodeAlert (level: number, description: number): Buffer {
  return Buffer.of(level, description)
}
