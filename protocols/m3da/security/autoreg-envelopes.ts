// Signed auto-registration envelopes (docs/protocols/m3da.md, steps 3 to 5): the payload is a serialized
// inner envelope (never encrypted), the outer footer carries autoreg_mac = HMAC-MD5(PROVIS_KX, innerBytes ‖ salt).
import type { Encodable } from '../../bysant/index.js'
import { decodeEnvelope, encodeEnvelope, type Envelope } from '../index.js'
import { autoregMac, verifyAutoregMac } from './autoreg.js'
import { bytesField } from './fields.js'

export type AutoregOpenReason = 'autoreg.mac.missing' | 'autoreg.mac.mismatch' | 'autoreg.inner.undecodable'

/** Signs `innerHeader` with `key` and the peer's salt; `outerHeader` is `{id}` from a device, empty from the server. */
export function sealAutoreg (innerHeader: Record<string, Encodable>, key: Buffer, salt: Buffer, outerHeader: Record<string, Encodable>): Buffer {
  const inner = encodeEnvelope({ header: innerHeader, payload: Buffer.alloc(0), footer: {} })
  return encodeEnvelope({ header: outerHeader, payload: inner, footer: { autoreg_mac: autoregMac(key, inner, salt) } })
}

/** Checks autoreg_mac against this side's salt and decodes the inner envelope. Never throws. */
export function openAutoreg (outer: Envelope, key: Buffer, salt: Buffer): { ok: true, inner: Envelope } | { ok: false, reason: AutoregOpenReason } {
  const mac = bytesField(outer.footer, 'autoreg_mac')
  if (mac === null) return { ok: false, reason: 'autoreg.mac.missing' }
  if (!verifyAutoregMac(key, outer.payload, salt, mac)) return { ok: false, reason: 'autoreg.mac.mismatch' }
  const decoded = decodeEnvelope(outer.payload)
  return decoded.ok ? { ok: true, inner: decoded.envelope } : { ok: false, reason: 'autoreg.inner.undecodable' }
}
