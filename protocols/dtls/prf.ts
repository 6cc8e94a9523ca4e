// The key schedule of TLS 1.2 for a PSK suite: the PRF with SHA-256 (RFC 5246 §5), the PSK premaster secret
// (RFC 4279 §2), the master secret (RFC 5246 §8.1, or RFC 7627 §4 with extended master secret), the key block of
// AES-128-CCM-8 (RFC 5246 §6.3, RFC 6655 §3) and Finished's verify_data (RFC 5246 §7.4.9).
import { createHash, createHmac } from 'node:crypto'
import { VERIFY_DATA_BYTES } from './constants.js'

/** PRF(secret, label, seed) = P_SHA256(secret, label + seed), cut to `length` bytes (RFC 5246 §5). */
export function prf (secret: Buffer, label: string, seed: Buffer, length: number): Buffer {
  const labelled = Buffer.concat([Buffer.from(label, 'latin1'), seed])
  const out: Buffer[] = []
  let produced = 0
  let a = labelled // A(0)
  while (produced < length) {
    a = createHmac('sha256', secret).update(a).digest()
    const block = createHmac('sha256', secret).update(a).update(labelled).digest()
    out.push(block)
    produced += block.length
  }
  return Buffer.concat(out).subarray(0, length)
}

/** RFC 4279 §2: uint16 N, N zero bytes, uint16 N, the PSK (N its length). */
export function pskPremaster (psk: Buffer): Buffer {
  const n = psk.length
  const out = Buffer.alloc(4 + 2 * n)
  out.writeUInt16BE(n, 0)
  out.writeUInt16BE(n, 2 + n)
  psk.copy(out, 4 + n)
  return out
}

/** RFC 5246 §8.1. */
export function masterSecret (premaster: Buffer, clientRandom: Buffer, serverRandom: Buffer): Buffer {
  return prf(premaster, 'master secret', Buffer.concat([clientRandom, serverRandom]), 48)
}

/** RFC 7627 §4: the seed is the hash of the handshake up to and including ClientKeyExchange. */
export function extendedMasterSecret (premaster: Buffer, sessionHash: Buffer): Buffer {
  return prf(premaster, 'extended master secret', sessionHash, 48)
}

export interface TrafficKeys {
  /** The AES-128 write key. */
  key: Buffer
  /** The 4-byte implicit part of the CCM nonce (RFC 6655 §3: client_write_IV / server_write_IV). */
  salt: Buffer
}

export interface KeyBlock { client: TrafficKeys, server: TrafficKeys }

/**
 * RFC 5246 §6.3 with AES-128-CCM-8's sizes: no MAC keys, two 16-byte keys, two 4-byte IVs (40 bytes). The seed is
 * server_random + client_random, the reverse of the master secret's.
 */
export function keyBlock (master: Buffer, clientRandom: Buffer, serverRandom: Buffer): KeyBlock {
  // Copied out of the PRF's output into memory of its own, so that wiping the keys leaves no other copy in a pool.
  const block = Buffer.alloc(40)
  prf(master, 'key expansion', Buffer.concat([serverRandom, clientRandom]), 40).copy(block)
  return {
    client: { key: block.subarray(0, 16), salt: block.subarray(32, 36) },
    server: { key: block.subarray(16, 32), salt: block.subarray(36, 40) }
  }
}

/** RFC 5246 §7.4.9: PRF(master, finished_label, SHA-256(handshake_messages)) cut to 12 bytes. */
export function verifyData (master: Buffer, label: 'client finished' | 'server finished', handshakeHash: Buffer): Buffer {
  return prf(master, label, handshakeHash, VERIFY_DATA_BYTES)
}

export function sha256 (parts: Buffer[]): Buffer {
  const h = createHash('sha256')
  for (const p of parts) h.update(p)
  return h.digest()
}
