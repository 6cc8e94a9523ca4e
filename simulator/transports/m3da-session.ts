// The security of a simulated M3DA agent (docs/protocols/m3da.md), over the device-side functions of
// protocols/m3da/security: without security the payload travels in a plain envelope; with a password each request is
// sealed (HMAC-MD5 or HMAC-SHA1 over the nonce the service announced last, optionally AES), a 401/407 challenge is
// answered once by sealing again with the challenge's nonce, and the reply is checked and opened with the nonce the
// request announced (the nonce chain of §2.8.3, kept in memory: a simulated device's "persistent" store). An
// auto-registering agent first runs the exchange of §2.8.6 with its registration password and keeps the key of the
// new password the service generated (K = MD5(newPassword), never the password itself).
import { encodeEnvelope, type Envelope } from '../../protocols/m3da/index.js'
import {
  answerServerSalt, deriveKeys, encodeDeviceChallenge, finishDeviceAutoreg, newNonce, openServerEnvelope,
  sealDeviceEnvelope, startDeviceAutoreg, type SessionKeys
} from '../../protocols/m3da/security/index.js'
import type { M3daLink } from './m3da-link.js'
import type { M3daSecurity } from './m3da-options.js'
import { TransportError } from './transport.js'

export interface M3daSessionOptions {
  link: M3daLink
  deviceId: string
  /** The M3DA password, or the registration password when the security is `autoreg`. */
  password: string
  security: M3daSecurity
  serverId: string
}

export interface M3daSession {
  /** Sends a payload (Messages and Responses, docs/protocols/m3da.md) and answers the reply's payload. @throws
  * TransportError */
  request (payload: Buffer): Promise<Buffer>
  /** Auto-registers now when the agent has no key yet (otherwise its first request does). @throws TransportError */
  register (): Promise<void>
  /** Whether the agent holds a key for the service: always with a password, after the exchange with autoreg. */
  readonly registered: boolean
  /** Challenges answered so far (the first signed request of a run is always challenged: no nonce yet). */
  readonly challenges: number
  close (): Promise<void>
}

const OK = 200

const statusOf = (e: Envelope): number | null => typeof e.header.status === 'number' ? e.header.status : null

/** The reply's payload when its status is 200 (§2.4: the status of the previous request). */
function payloadOf (reply: Envelope, what: string): Buffer {
  const status = statusOf(reply)
  if (status !== OK) throw new TransportError(`M3DA ${what} answered status ${status ?? 'none'}`, status ?? undefined)
  return reply.payload
}

export function m3daSession (opts: M3daSessionOptions): M3daSession {
  const { link, deviceId, security } = opts
  let keys: SessionKeys | undefined = security.mode === 'password' ? deriveKeys(opts.password, deviceId, opts.serverId) : undefined
  // No nonce from the service yet: a random one, so the first signed request is challenged and learns one (§2.8.3).
  let nonce = newNonce()
  let challenges = 0

  async function plain (payload: Buffer): Promise<Buffer> {
    return payloadOf(await link.exchange(encodeEnvelope({ header: { id: deviceId }, payload })), 'request')
  }

  /** §2.8.6 steps 1 to 5; the service does not answer step 5, the next request follows on the same connection. */
  async function autoregister (): Promise<SessionKeys> {
    const creds = { deviceId, registrationPassword: opts.password, serverId: opts.serverId }
    const start = startDeviceAutoreg(deviceId)
    const salted = answerServerSalt(start.state, await link.exchange(start.bytes), creds)
    if (!salted.ok) throw new TransportError(`M3DA auto-registration: ${salted.reason}`)
    const finished = finishDeviceAutoreg(salted.state, await link.exchange(salted.bytes), creds)
    if (!finished.ok) throw new TransportError(`M3DA auto-registration: ${finished.reason}`)
    await link.send(finished.bytes)
    return finished.keys
  }

  async function signed (payload: Buffer): Promise<Buffer> {
    if (security.mode === 'none') return await plain(payload)
    keys ??= await autoregister()
    const k = keys
    let announced: Buffer | undefined
    let challenged = false
    for (;;) {
      // Sent again after a challenge with the same announced nonce, as the Mihini agent does (§2.8.4).
      const sealed = sealDeviceEnvelope({ payload }, { deviceId, keys: k, nonce, ...(announced === undefined ? {} : { nextNonce: announced }), algorithm: security.mac, cipher: security.cipher })
      announced = sealed.nextNonce
      let opened = openServerEnvelope(await link.exchange(sealed.bytes), { keys: k, nonce: announced, cipher: security.cipher })
      if (opened.kind === 'bad-signature') {
        // A reply whose signature does not check is challenged once; the service re-sends it signed with our nonce.
        const ours = encodeDeviceChallenge({ deviceId, algorithm: security.mac })
        opened = openServerEnvelope(await link.exchange(ours.bytes), { keys: k, nonce: ours.nonce, cipher: security.cipher })
        if (opened.kind === 'bad-signature') throw new TransportError(`M3DA reply signature: ${opened.reason}`)
      }
      switch (opened.kind) {
        case 'open':
          nonce = opened.nextNonce
          return payloadOf(opened.inner, 'request')
        case 'challenge':
          // A second challenge ends the session (§2.8.4): the password is wrong or the service refuses.
          if (challenged) throw new TransportError(`M3DA challenged twice (status ${opened.status ?? 'none'})`, opened.status ?? undefined)
          challenged = true
          challenges++
          nonce = opened.nonce
          continue
        case 'error':
          throw new TransportError(`M3DA request answered status ${opened.status}`, opened.status)
        default:
          throw new TransportError(`M3DA reply refused: ${opened.reason}`)
      }
    }
  }

  return {
    request: signed,
    async register () { if (security.mode === 'autoreg') keys ??= await autoregister() },
    get registered () { return keys !== undefined },
    get challenges () { return challenges },
    async close () { await link.disconnect() }
  }
}
