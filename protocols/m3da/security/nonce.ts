// Nonces of the M3DA security extension (docs/protocols/m3da.md): 16 random bytes that the peer
// must use for its next authenticated envelope. Auto-registration salts have the same size (§2.8.6).
import { randomFillSync } from 'node:crypto'

export const NONCE_BYTES = 16

// One call to the system's random source fills the nonces of 256 envelopes (docs/protocols/m3da.md: a randomBytes call
// per nonce was felt on the secured path). Each nonce is copied out and each byte handed out once: the pool is
// filled again only when all of it was used.
const POOL_NONCES = 256
const pool = Buffer.alloc(POOL_NONCES * NONCE_BYTES)
let offset = pool.length

export function newNonce (): Buffer {
  if (offset === pool.length) {
    randomFillSync(pool)
    offset = 0
  }
  const nonce = Buffer.allocUnsafe(NONCE_BYTES)
  pool.copy(nonce, 0, offset, offset + NONCE_BYTES)
  offset += NONCE_BYTES
  return nonce
}
