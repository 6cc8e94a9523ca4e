// Nested envelopes (docs/protocols/m3da.md), the same construction in both directions:
//   outer{ header:{id}, payload: X, footer:{mac} },  X = [encrypt](serialize(inner{ header:{status, nonce, …}, payload }))
//   mac = HMAC(KX, X ‖ N): encrypt-then-MAC, N the nonce the other side announced last, and the inner `nonce` is
//   the one the other side must use next.
import type { Encodable } from '../../bysant/index.js'
import { decodeEnvelope, encodeEnvelope, type Envelope } from '../index.js'
import { CIPHER_NAMES, decrypt, encrypt, type CipherName } from './cipher.js'
import { bytesField } from './fields.js'
import { computeMac, verifyMac, type MacAlgorithm } from './mac.js'

export type SecurityCipher = CipherName | 'none'

/** What goes inside: header fields besides `nonce` (status defaults to 200, as the Mihini agent sends it) and the payload. */
export interface InnerContent {
  header?: Record<string, Encodable>
  payload?: Buffer
}

export interface SealParams {
  /** The outer `id`: the device id from a device, the server id from the server (§2.4). */
  id: string
  /** KD for a device, KS for the server (§2.8.1). */
  macKey: Buffer
  /** K, the encryption master key (§2.8.5). */
  k: Buffer
  /** The current nonce: the one the other side announced last (or sent in its challenge). */
  nonce: Buffer
  /** The nonce announced in the inner header, for the other side's next envelope. */
  nextNonce: Buffer
  algorithm: MacAlgorithm
  cipher: SecurityCipher
}

export function seal (inner: InnerContent, p: SealParams): Buffer {
  const plain = encodeEnvelope({
    header: { status: 200, ...inner.header, nonce: p.nextNonce },
    payload: inner.payload ?? Buffer.alloc(0),
    footer: {}
  })
  const x = p.cipher === 'none' ? plain : encrypt(p.cipher, p.k, p.nonce, plain)
  return encodeEnvelope({ header: { id: p.id }, payload: x, footer: { mac: computeMac(p.algorithm, p.macKey, x, p.nonce) } })
}

export type UnsealReason =
  | 'mac.missing' // no `mac` in the outer footer
  | 'mac.mismatch' // wrong key (password), wrong nonce (replay, lost sync) or altered payload
  | 'payload.undecodable' // authentic, but no cipher turns it into one whole inner envelope
  | 'payload.not.encrypted' // authentic and readable in clear, where a cipher is required (§2.4: status 450)
  | 'nonce.missing' // authentic, but the inner header announces no next nonce

export type Unsealed =
  | { ok: true, inner: Envelope, algorithm: MacAlgorithm, cipher: SecurityCipher, nextNonce: Buffer }
  | { ok: false, reason: UnsealReason }

export interface UnsealParams {
  macKey: Buffer
  k: Buffer
  /** The nonce this side announced last; null when there is none, so no MAC can check. */
  nonce: Buffer | null
  /** The cipher to use, or null to take the first (none first) under which the payload decodes. */
  cipher: SecurityCipher | null
}

/** Checks the MAC, decrypts and decodes the inner envelope. Never throws. */
export function unseal (outer: Envelope, p: UnsealParams): Unsealed {
  const mac = bytesField(outer.footer, 'mac')
  if (mac === null) return { ok: false, reason: 'mac.missing' }
  const algorithm = p.nonce === null ? null : verifyMac(p.macKey, outer.payload, p.nonce, mac)
  if (algorithm === null || p.nonce === null) return { ok: false, reason: 'mac.mismatch' }
  const candidates: readonly SecurityCipher[] = p.cipher === null ? ['none', ...CIPHER_NAMES] : [p.cipher]
  for (const cipher of candidates) {
    const inner = openWith(cipher, outer.payload, p.k, p.nonce)
    if (inner === null) continue
    const nextNonce = bytesField(inner.header, 'nonce')
    if (nextNonce === null || nextNonce.length === 0) return { ok: false, reason: 'nonce.missing' }
    return { ok: true, inner, algorithm, cipher, nextNonce }
  }
  if (p.cipher !== null && p.cipher !== 'none' && openWith('none', outer.payload, p.k, p.nonce) !== null) {
    return { ok: false, reason: 'payload.not.encrypted' }
  }
  return { ok: false, reason: 'payload.undecodable' }
}

function openWith (cipher: SecurityCipher, x: Buffer, k: Buffer, nonce: Buffer): Envelope | null {
  let plain = x
  if (cipher !== 'none') {
    const decrypted = decrypt(cipher, k, nonce, x)
    if (!decrypted.ok) return null
    plain = decrypted.plain
  }
  const decoded = decodeEnvelope(plain)
  return decoded.ok ? decoded.envelope : null
}
