// The device's side of an authenticated M3DA exchange (docs/protocols/m3da.md), as the Mihini
// agent does it (luafwk/m3da/session/security.lua): used by the simulator and the tests. Pure: the caller keeps
// its nonce persistently (§2.8.3) and the announced nonce until the reply is checked.
import type { Envelope } from '../index.js'
import { encodeChallenge, readChallenge } from './challenge.js'
import { intField } from './fields.js'
import type { SessionKeys } from './keys.js'
import type { MacAlgorithm } from './mac.js'
import { seal, unseal, type InnerContent, type SecurityCipher, type UnsealReason } from './nested.js'
import { newNonce } from './nonce.js'

export interface DeviceSealParams {
  deviceId: string
  /** deriveKeys(password, deviceId, serverId), or keysFromMasterKey(k, …) after auto-registration. */
  keys: SessionKeys
  /** The current nonce: the one the server announced last, the one of its challenge, or a random one. */
  nonce: Buffer
  /** The nonce to announce; give the same one again when re-sending after a challenge, as the agent does. */
  nextNonce?: Buffer
  algorithm: MacAlgorithm
  cipher: SecurityCipher
}

/** Seals a request (§2.8.2): keep `nextNonce`, the server's reply is signed with it. */
export function sealDeviceEnvelope (inner: InnerContent, p: DeviceSealParams): { bytes: Buffer, nextNonce: Buffer } {
  const nextNonce = p.nextNonce ?? newNonce()
  const bytes = seal(inner, { id: p.deviceId, macKey: p.keys.kd, k: p.keys.k, nonce: p.nonce, nextNonce, algorithm: p.algorithm, cipher: p.cipher })
  return { bytes, nextNonce }
}

export interface ServerEnvelopeParams {
  keys: SessionKeys
  /** The nonce this device announced in its request (or in its own challenge). */
  nonce: Buffer
  cipher: SecurityCipher
}

export type OpenedServerEnvelope =
  /** Authentic: handle `inner`; store `nextNonce` persistently, the next session starts with it. */
  | { kind: 'open', inner: Envelope, nextNonce: Buffer }
  /** The server challenged the request (401/407): re-seal it once with `nonce` (a second challenge is an error). */
  | { kind: 'challenge', status: number | null, nonce: Buffer, algorithm: MacAlgorithm | null }
  /** An unsigned envelope with a status and no challenge (e.g. 403): the exchange failed. */
  | { kind: 'error', status: number }
  /** The reply's MAC does not check: challenge it (encodeDeviceChallenge) and expect it re-sealed with that nonce. */
  | { kind: 'bad-signature', reason: 'mac.missing' | 'mac.mismatch' }
  | { kind: 'refused', reason: Exclude<UnsealReason, 'mac.missing' | 'mac.mismatch'> | 'challenge.without.nonce' }

/** Opens the server's reply. Never throws. */
export function openServerEnvelope (outer: Envelope, p: ServerEnvelopeParams): OpenedServerEnvelope {
  const challenge = readChallenge(outer)
  if (challenge !== null) {
    if (challenge.nonce === null) return { kind: 'refused', reason: 'challenge.without.nonce' }
    return { kind: 'challenge', status: challenge.status, nonce: challenge.nonce, algorithm: challenge.algorithm }
  }
  const opened = unseal(outer, { macKey: p.keys.ks, k: p.keys.k, nonce: p.nonce, cipher: p.cipher })
  if (opened.ok) return { kind: 'open', inner: opened.inner, nextNonce: opened.nextNonce }
  if (opened.reason === 'mac.missing') {
    const status = intField(outer.header, 'status')
    if (status !== null) return { kind: 'error', status }
    return { kind: 'bad-signature', reason: opened.reason }
  }
  if (opened.reason === 'mac.mismatch') return { kind: 'bad-signature', reason: opened.reason }
  return { kind: 'refused', reason: opened.reason }
}

/**
 * The device's challenge to a reply whose signature does not check (§2.8.4; the agent sends status 401): keep
 * `nonce`, the server re-sends its reply signed with it.
 */
export function encodeDeviceChallenge (p: { deviceId: string, algorithm: MacAlgorithm }): { bytes: Buffer, nonce: Buffer } {
  const nonce = newNonce()
  return { bytes: encodeChallenge({ id: p.deviceId, status: 401, algorithm: p.algorithm, nonce }), nonce }
}
