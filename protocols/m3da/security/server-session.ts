// The server's side of an authenticated M3DA exchange (docs/protocols/m3da.md): open what a
// device sends (or say how to challenge it), and seal the reply. Pure: the transport keeps the nonce, the session's
// "already challenged" flag and the last reply (to re-seal it when the device challenges it).
import type { Envelope } from '../index.js'
import { encodeChallenge, readChallenge, type ChallengeStatus } from './challenge.js'
import { bytesField, intField, isEmptyPayload } from './fields.js'
import { cachedKeys } from './keys.js'
import { macAlgorithmOf, type MacAlgorithm } from './mac.js'
import { seal, unseal, type InnerContent, type SecurityCipher, type UnsealReason } from './nested.js'
import { newNonce } from './nonce.js'

export interface DeviceCredentials {
  /** The device id, as the outer header `id` names it. */
  deviceId: string
  /** The system's M3DA password. */
  password: string | Buffer
  /** M3DA_SERVER_ID (default AIRVANTAGE): part of KS (§2.8.1) and the `id` of what the server sends. */
  serverId: string
  /** The nonce the device must sign with: the one the server announced last; null when none was ever agreed. */
  nonce: Buffer | null
  /** The application's `encryption`; null = the one under which the payload decodes. */
  cipher: SecurityCipher | null
  /** Named in a 407 challenge, where no MAC tells the algorithm; default hmac-sha1. */
  algorithm?: MacAlgorithm
  /** A challenge was already sent in this session: a second failure is refused, never challenged again (§2.8.4). */
  challenged?: boolean
}

export type OpenRefusal = UnsealReason
  | 'auth.failed.after.challenge' // a second failure in one session (§2.8.4): close the session
  | 'challenge.without.nonce' // the device challenged us without a nonce: nothing to sign with

export type OpenedDeviceEnvelope =
  /** Authentic: handle `inner` (its payload holds the messages); the reply is sealed with `nextNonce`. */
  | { kind: 'open', inner: Envelope, algorithm: MacAlgorithm, cipher: SecurityCipher, nextNonce: Buffer }
  /** Send `reply` (unsigned); store `nonce`: the device re-sends signed with it. */
  | { kind: 'challenge', status: ChallengeStatus, reply: Buffer, nonce: Buffer }
  /** The device challenged the server's last reply: re-seal that reply with this nonce (sealServerEnvelope). */
  | { kind: 'peer-challenge', nonce: Buffer, algorithm: MacAlgorithm | null }
  /** An unsigned `{id, status}` the Mihini agent sends after a failure on its side: log it, answer nothing. */
  | { kind: 'peer-error', status: number }
  | { kind: 'refused', reason: OpenRefusal }

/** Opens an outer envelope from a device that must authenticate (§2.8.7). Never throws. */
export function openDeviceEnvelope (outer: Envelope, creds: DeviceCredentials): OpenedDeviceEnvelope {
  const challenge = readChallenge(outer)
  if (challenge !== null) {
    return challenge.nonce === null
      ? { kind: 'refused', reason: 'challenge.without.nonce' }
      : { kind: 'peer-challenge', nonce: challenge.nonce, algorithm: challenge.algorithm }
  }
  const keys = cachedKeys(creds.password, creds.deviceId, creds.serverId)
  const opened = unseal(outer, { macKey: keys.kd, k: keys.k, nonce: creds.nonce, cipher: creds.cipher })
  if (opened.ok) return { kind: 'open', inner: opened.inner, algorithm: opened.algorithm, cipher: opened.cipher, nextNonce: opened.nextNonce }
  switch (opened.reason) {
    case 'mac.missing': {
      const status = intField(outer.header, 'status')
      if (status !== null && isEmptyPayload(outer.payload)) return { kind: 'peer-error', status }
      return challengeOrRefuse(407, creds.algorithm ?? 'hmac-sha1', creds)
    }
    case 'mac.mismatch':
      return challengeOrRefuse(401, macAlgorithmOf(bytesField(outer.footer, 'mac') ?? Buffer.alloc(0)) ?? creds.algorithm ?? 'hmac-sha1', creds)
    default:
      return { kind: 'refused', reason: opened.reason }
  }
}

function challengeOrRefuse (status: ChallengeStatus, algorithm: MacAlgorithm, creds: DeviceCredentials): OpenedDeviceEnvelope {
  if (creds.challenged === true) return { kind: 'refused', reason: 'auth.failed.after.challenge' }
  const nonce = newNonce()
  return { kind: 'challenge', status, nonce, reply: encodeChallenge({ id: creds.serverId, status, algorithm, nonce }) }
}

export interface ServerSealParams {
  deviceId: string
  password: string | Buffer
  serverId: string
  /** The nonce the device announced (OpenedDeviceEnvelope.nextNonce), or the nonce of its challenge. */
  nonce: Buffer
  /** As the device signed (OpenedDeviceEnvelope.algorithm / cipher). */
  algorithm: MacAlgorithm
  cipher: SecurityCipher
}

/**
 * Seals the server's reply (§2.8.7): inner `{status: 200 unless given, nonce: fresh, …header}` around the payload,
 * encrypted, signed with KS. Store `nextNonce` once the reply is sent: the device signs its next envelope with it.
 */
export function sealServerEnvelope (inner: InnerContent, p: ServerSealParams): { bytes: Buffer, nextNonce: Buffer } {
  const keys = cachedKeys(p.password, p.deviceId, p.serverId)
  const nextNonce = newNonce()
  const bytes = seal(inner, { id: p.serverId, macKey: keys.ks, k: keys.k, nonce: p.nonce, nextNonce, algorithm: p.algorithm, cipher: p.cipher })
  return { bytes, nextNonce }
}
