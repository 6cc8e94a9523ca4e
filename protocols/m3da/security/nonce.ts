// Nonces of the M3DA security extension (shared/spec/protocols.md §2.4, §2.8.3): 16 random bytes that the peer
// must use for its next authenticated envelope. Auto-registration salts have the same size (§2.8.6).
import { randomBytes } from 'node:crypto'

export const NONCE_BYTES = 16

export function newNonce (): Buffer {
  return randomBytes(NONCE_BYTES)
}
