// AES-128-CCM-8 record protection (RFC 6655 §3, over RFC 5246 §6.2.3.3 as RFC 6347 §4.1.2.1 adapts it to DTLS):
// nonce = the 4-byte salt from the key block ‖ an 8-byte explicit nonce, which we set to epoch ‖ sequence number
// (RFC 6655 §3 allows it, RFC 7925 §4.2 asks for it); the explicit nonce is sent before the ciphertext and tag.
// AAD = epoch ‖ sequence number (8 bytes) ‖ type ‖ version ‖ plaintext length.
import { createCipheriv, createDecipheriv } from 'node:crypto'
import { u16, u48, u8 } from './bytes.js'
import { CCM_TAG_BYTES, EXPLICIT_NONCE_BYTES } from './constants.js'
import type { TrafficKeys } from './prf.js'

export interface RecordHeaderFields { type: number, version: number, epoch: number, seq: number }

/** AES-128-CCM with an 8-byte tag (RFC 3610 with M = 8): ciphertext ‖ tag. Nonces of 7 to 13 bytes. */
export function ccmSeal (key: Buffer, nonce: Buffer, aad: Buffer, plaintext: Buffer): Buffer {
  const cipher = createCipheriv('aes-128-ccm', key, nonce, { authTagLength: CCM_TAG_BYTES })
  cipher.setAAD(aad, { plaintextLength: plaintext.length })
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()])
  return Buffer.concat([body, cipher.getAuthTag()])
}

/** The plaintext of ciphertext ‖ tag, or undefined when the tag does not verify. */
export function ccmOpen (key: Buffer, nonce: Buffer, aad: Buffer, sealed: Buffer): Buffer | undefined {
  const length = sealed.length - CCM_TAG_BYTES
  if (length < 0) return undefined
  try {
    const decipher = createDecipheriv('aes-128-ccm', key, nonce, { authTagLength: CCM_TAG_BYTES })
    decipher.setAuthTag(sealed.subarray(length))
    decipher.setAAD(aad, { plaintextLength: length })
    const plain = decipher.update(sealed.subarray(0, length))
    decipher.final() // throws when the tag does not match
    return plain
  } catch {
    return undefined
  }
}

function sequenceBytes (epoch: number, seq: number): Buffer {
  return Buffer.concat([u16(epoch), u48(seq)])
}

function additionalData (h: RecordHeaderFields, plaintextLength: number): Buffer {
  return Buffer.concat([sequenceBytes(h.epoch, h.seq), u8(h.type), u16(h.version), u16(plaintextLength)])
}

/** The protected fragment: explicit nonce ‖ ciphertext ‖ 8-byte tag. */
export function sealFragment (keys: TrafficKeys, h: RecordHeaderFields, plaintext: Buffer): Buffer {
  const explicit = sequenceBytes(h.epoch, h.seq)
  const nonce = Buffer.concat([keys.salt, explicit])
  return Buffer.concat([explicit, ccmSeal(keys.key, nonce, additionalData(h, plaintext.length), plaintext)])
}

/** The plaintext of a protected fragment, or undefined when it is too short or fails authentication. */
export function openFragment (keys: TrafficKeys, h: RecordHeaderFields, fragment: Buffer): Buffer | undefined {
  const length = fragment.length - EXPLICIT_NONCE_BYTES - CCM_TAG_BYTES
  if (length < 0) return undefined
  // The nonce takes the explicit part the peer sent (RFC 6655 §3); the AAD the record header's epoch and sequence.
  const nonce = Buffer.concat([keys.salt, fragment.subarray(0, EXPLICIT_NONCE_BYTES)])
  return ccmOpen(keys.key, nonce, additionalData(h, length), fragment.subarray(EXPLICIT_NONCE_BYTES))
}
