// Challenges (docs/protocols/m3da.md): an unsigned, payload-less envelope whose public header carries the
// status (401 wrong MAC, 407 no MAC), the algorithm and the nonce the challenged peer must sign its next envelope
// with. Either peer may challenge the other; the Mihini agent adds its `id`, and so do we.
import { encodeEnvelope, type Envelope } from '../index.js'
import { bytesField, intField, textField } from './fields.js'
import { isMacAlgorithm, type MacAlgorithm } from './mac.js'

export type ChallengeStatus = 401 | 407

export interface Challenge {
  status: number | null
  /** Null when the peer named an algorithm we do not know (the challenged peer keeps its own). */
  algorithm: MacAlgorithm | null
  /** Null when the challenge carries no usable nonce: it cannot be answered. */
  nonce: Buffer | null
}

export function encodeChallenge (opts: { id: string, status: ChallengeStatus, algorithm: MacAlgorithm, nonce: Buffer }): Buffer {
  return encodeEnvelope({
    header: { id: opts.id, status: opts.status, challenge: opts.algorithm, nonce: opts.nonce }
  })
}

/** The challenge an envelope carries, or null when it carries none (no `challenge` field). */
export function readChallenge (envelope: Envelope): Challenge | null {
  const name = textField(envelope.header, 'challenge')
  if (name === null) return null
  const nonce = bytesField(envelope.header, 'nonce')
  return {
    status: intField(envelope.header, 'status'),
    algorithm: isMacAlgorithm(name) ? name : null,
    nonce: nonce !== null && nonce.length > 0 ? nonce : null
  }
}
