// The PSK key exchange messages (RFC 4279 §2): ServerKeyExchange holds psk_identity_hint, ClientKeyExchange holds
// psk_identity, both opaque<0..2^16-1>; and Finished's verify_data (RFC 5246 §7.4.9). Parsers never throw.
import { asBuffer, Reader, vec16 } from './bytes.js'
import { MAX_PSK_IDENTITY, VERIFY_DATA_BYTES } from './constants.js'
import type { Parsed } from './hello.js'

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** An identity or hint as text: RFC 4279 §5.1 says UTF-8; bytes that are not UTF-8 answer undefined. */
export function identityText (bytes: Buffer): string | undefined {
  try {
    return utf8.decode(bytes)
  } catch {
    return undefined
  }
}

/** ClientKeyExchange (and ServerKeyExchange, the same shape): the one opaque<0..2^16-1> it holds. */
export function parsePskIdentity (body: Uint8Array): Parsed<Buffer> {
  const r = new Reader(asBuffer(body))
  const identity = r.vec16()
  if (!r.done) return { ok: false, reason: 'dtls.psk.identity.invalid' }
  if (identity.length > MAX_PSK_IDENTITY) return { ok: false, reason: 'dtls.psk.identity.too.long' }
  return { ok: true, value: identity }
}

export function encodePskIdentity (identity: string): Buffer {
  return vec16(Buffer.from(identity, 'utf8'))
}

export function parseFinished (body: Uint8Array): Parsed<Buffer> {
  return body.length === VERIFY_DATA_BYTES ? { ok: true, value: asBuffer(body) } : { ok: false, reason: 'dtls.finished.invalid' }
}
