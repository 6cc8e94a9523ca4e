// Payload encryption (docs/protocols/m3da.md): AES-CBC (PKCS#7 padding) or AES-CTR (big-endian counter
// from the IV, no padding), 128 or 256 bits. The key and IV change with every nonce:
//   CK = first L bytes of HMAC-MD5(K, N) ‖ HMAC-MD5(K, N ‖ N), IV = MD5(N), K = MD5(password).
import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto'
import { md5 } from './keys.js'

export type CipherName = 'aes-cbc-128' | 'aes-cbc-256' | 'aes-ctr-128' | 'aes-ctr-256'
export const CIPHER_NAMES: readonly CipherName[] = ['aes-cbc-128', 'aes-cbc-256', 'aes-ctr-128', 'aes-ctr-256']

export type DecryptReason = 'cipher.length' | 'cipher.padding'
export type Decrypted = { ok: true, plain: Buffer } | { ok: false, reason: DecryptReason }

interface CipherSpec { node: string, keyBytes: 16 | 32, padded: boolean }

const SPECS: Record<CipherName, CipherSpec> = {
  'aes-cbc-128': { node: 'aes-128-cbc', keyBytes: 16, padded: true },
  'aes-cbc-256': { node: 'aes-256-cbc', keyBytes: 32, padded: true },
  'aes-ctr-128': { node: 'aes-128-ctr', keyBytes: 16, padded: false },
  'aes-ctr-256': { node: 'aes-256-ctr', keyBytes: 32, padded: false }
}

const BLOCK = 16

export function isCipherName (value: unknown): value is CipherName {
  return typeof value === 'string' && Object.hasOwn(SPECS, value)
}

/** CK for a key of `bytes` bytes (§2.8.5): the second HMAC block only for AES-256. */
export function cipherKey (k: Buffer, nonce: Uint8Array, bytes: 16 | 32): Buffer {
  const first = createHmac('md5', k).update(nonce).digest()
  if (bytes === 16) return first
  return Buffer.concat([first, createHmac('md5', k).update(nonce).update(nonce).digest()])
}

/** IV = MD5(N) (§2.8.5). */
export function cipherIv (nonce: Uint8Array): Buffer {
  return md5(nonce)
}

/** Encrypts with the master key K under the current nonce. */
export function encrypt (name: CipherName, k: Buffer, nonce: Uint8Array, plain: Uint8Array): Buffer {
  const spec = SPECS[name]
  const cipher = createCipheriv(spec.node, cipherKey(k, nonce, spec.keyBytes), cipherIv(nonce))
  if (!spec.padded) return cipher.update(plain)
  // PKCS#7 written here and the text ciphered in one call (no final() nor concatenation).
  const pad = BLOCK - (plain.length % BLOCK)
  const padded = Buffer.allocUnsafe(plain.length + pad)
  padded.set(plain, 0)
  padded.fill(pad, plain.length)
  return cipher.setAutoPadding(false).update(padded)
}

/**
 * Decrypts with the master key K under the current nonce. Never throws: a CBC text that is not whole blocks, or
 * whose padding is wrong (a wrong key or nonce, most often), is refused.
 */
export function decrypt (name: CipherName, k: Buffer, nonce: Uint8Array, data: Uint8Array): Decrypted {
  const spec = SPECS[name]
  if (spec.padded && (data.length === 0 || data.length % BLOCK !== 0)) return { ok: false, reason: 'cipher.length' }
  const decipher = createDecipheriv(spec.node, cipherKey(k, nonce, spec.keyBytes), cipherIv(nonce))
  if (!spec.padded) return { ok: true, plain: decipher.update(data) }
  // Whole blocks deciphered in one call, the PKCS#7 padding checked here as OpenSSL's final() would (every one of
  // the last n bytes is n, 1 ≤ n ≤ 16), without the exception it throws on a wrong one.
  const padded = decipher.setAutoPadding(false).update(data)
  const pad = padded[padded.length - 1] ?? 0
  if (pad === 0 || pad > BLOCK || pad > padded.length) return { ok: false, reason: 'cipher.padding' }
  for (let i = padded.length - pad; i < padded.length - 1; i++) if (padded[i] !== pad) return { ok: false, reason: 'cipher.padding' }
  return { ok: true, plain: padded.subarray(0, padded.length - pad) }
}
