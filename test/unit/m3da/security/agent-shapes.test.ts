// protocols/m3da/security against envelopes shaped as the Mihini agent writes them (luafwk/m3da/bysant.lua,
// session/security.lua; docs/protocols/m3da.md): header and footer maps without declared length, a null
// footer on unsigned and inner envelopes, the inner header {status: 200, nonce} on every request, its challenge
// {id, challenge, nonce, status: 401} and its error envelope {id, status}.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { unsizedMap } from '../../../../protocols/bysant/index.js'
import { decodeEnvelope, encodeEnvelope, type Envelope } from '../../../../protocols/m3da/index.js'
import {
  CIPHER_NAMES, computeMac, deriveKeys, encrypt, newNonce, openDeviceEnvelope, type MacAlgorithm, type SecurityCipher
} from '../../../../protocols/m3da/security/index.js'

const DEVICE = '012345678901234'
const SERVER = 'AIRVANTAGE'
const PASSWORD = 'MySecret'
const keys = deriveKeys(PASSWORD, DEVICE, SERVER)

function envelope (bytes: Buffer): Envelope {
  const decoded = decodeEnvelope(bytes)
  if (!decoded.ok) throw new Error(`undecodable envelope: ${decoded.reason}`)
  return decoded.envelope
}

/** A request as security.lua sendmsg builds it: inner {status: 200, nonce} with a null footer, then cipher, then MAC. */
function agentRequest (payload: Buffer, nonce: Buffer, next: Buffer, algorithm: MacAlgorithm, cipher: SecurityCipher): Buffer {
  const inner = encodeEnvelope({ header: unsizedMap({ status: 200, nonce: next }), payload, footer: null })
  const x = cipher === 'none' ? inner : encrypt(cipher, keys.k, nonce, inner)
  return encodeEnvelope({ header: unsizedMap({ id: DEVICE }), payload: x, footer: unsizedMap({ mac: computeMac(algorithm, keys.kd, x, nonce) }) })
}

const server = (nonce: Buffer | null, cipher: SecurityCipher | null = null) =>
  ({ deviceId: DEVICE, password: PASSWORD, serverId: SERVER, nonce, cipher })

describe('envelopes shaped as the Mihini agent writes them', () => {
  it('opens a request with unsized maps and null footers, for every algorithm and cipher, the empty poll included', () => {
    fc.assert(fc.property(fc.constantFrom<MacAlgorithm>('hmac-md5', 'hmac-sha1'), fc.constantFrom<SecurityCipher>('none', ...CIPHER_NAMES),
      fc.uint8Array({ maxLength: 300 }), (algorithm, cipher, payload) => {
        const nonce = newNonce()
        const next = newNonce()
        const opened = openDeviceEnvelope(envelope(agentRequest(Buffer.from(payload), nonce, next, algorithm, cipher)), server(nonce))
        expect(opened).toMatchObject({ kind: 'open', algorithm, cipher, nextNonce: next })
        if (opened.kind !== 'open') return
        expect(opened.inner.payload).toEqual(Buffer.from(payload))
        // The agent says status 200 on every request, even an empty poll: it still waits for the reply.
        expect(opened.inner.header.status).toBe(200)
      }), { numRuns: 60 })
  })

  it('reads the agent\'s challenge of a reply, and its error envelope, both with a null footer', () => {
    const nonce = newNonce()
    const challenge = encodeEnvelope({ header: unsizedMap({ id: DEVICE, challenge: 'hmac-sha1', nonce, status: 401 }), payload: Buffer.alloc(0), footer: null })
    expect(openDeviceEnvelope(envelope(challenge), server(newNonce()))).toEqual({ kind: 'peer-challenge', nonce, algorithm: 'hmac-sha1' })
    const error = encodeEnvelope({ header: unsizedMap({ id: DEVICE, status: 408 }), payload: Buffer.alloc(0), footer: null })
    expect(openDeviceEnvelope(envelope(error), server(newNonce()))).toEqual({ kind: 'peer-error', status: 408 })
  })

  it('challenges the first request of a fresh agent (random nonce), and opens it re-sent with the challenge nonce', () => {
    const next = newNonce()
    const first = openDeviceEnvelope(envelope(agentRequest(Buffer.alloc(0), newNonce(), next, 'hmac-md5', 'aes-ctr-128')), server(newNonce()))
    expect(first).toMatchObject({ kind: 'challenge', status: 401 })
    if (first.kind !== 'challenge') return
    // Re-sent with the same announced nonce (security.lua unprotectedsend).
    const again = openDeviceEnvelope(envelope(agentRequest(Buffer.alloc(0), first.nonce, next, 'hmac-md5', 'aes-ctr-128')), { ...server(first.nonce), challenged: true })
    expect(again).toMatchObject({ kind: 'open', nextNonce: next, cipher: 'aes-ctr-128' })
  })
})
