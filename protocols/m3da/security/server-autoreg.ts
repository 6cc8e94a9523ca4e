// Password auto-registration, the server's steps (docs/protocols/m3da.md), for a system that has only a
// registration password. One state per connection, kept by the transport:
//   1 D→S {id, autoreg_salt: saltD}              → startServerAutoreg: reply 2 {autoreg_salt: saltS}
//   3 D→S inner{autoreg_pubkey} + autoreg_mac    → answerAutoregKey: reply 4 inner{autoreg_pubkey, autoreg_ctext}
//   5 D→S inner{status: 200} + autoreg_mac       → finishServerAutoreg: no reply (the agent sends its next
//                                                  request at once, on the same connection), store the password.
// The new password is stored at step 5, as the Java reference server does: before the device acknowledged it, the
// device may not hold it.
import { encodeEnvelope, type Envelope } from '../index.js'
import { createAutoregKeyPair, generatePassword, provisioningKeys, xorWithSecret } from './autoreg.js'
import { openAutoreg, sealAutoreg, type AutoregOpenReason } from './autoreg-envelopes.js'
import { bytesField, intField } from './fields.js'
import { md5 } from './keys.js'
import { newNonce } from './nonce.js'

export interface AutoregCredentials {
  deviceId: string
  /** The system's registration password (shared by a batch of devices). */
  registrationPassword: string | Buffer
  serverId: string
}

export interface ServerWaitingKey { step: 'wait-pubkey', deviceSalt: Buffer, serverSalt: Buffer }
export interface ServerWaitingAck { step: 'wait-ack', deviceSalt: Buffer, serverSalt: Buffer, newPassword: string }
export type ServerAutoregState = ServerWaitingKey | ServerWaitingAck

export type ServerAutoregReason = AutoregOpenReason
  | 'autoreg.salt.missing' | 'autoreg.pubkey.missing' | 'autoreg.pubkey.invalid' | 'autoreg.status'

type Refused = { ok: false, reason: ServerAutoregReason }

/** Whether an envelope opens an auto-registration (step 1: it carries `autoreg_salt`). */
export function isAutoregStart (outer: Envelope): boolean {
  return bytesField(outer.header, 'autoreg_salt') !== null
}

/** Step 1 → 2: takes the device's salt, answers the server's. */
export function startServerAutoreg (outer: Envelope): { ok: true, reply: Buffer, state: ServerWaitingKey } | Refused {
  const deviceSalt = bytesField(outer.header, 'autoreg_salt')
  if (deviceSalt === null || deviceSalt.length === 0) return { ok: false, reason: 'autoreg.salt.missing' }
  const serverSalt = newNonce()
  return {
    ok: true,
    reply: encodeEnvelope({ header: { autoreg_salt: serverSalt }, payload: Buffer.alloc(0), footer: {} }),
    state: { step: 'wait-pubkey', deviceSalt, serverSalt }
  }
}

/**
 * Step 3 → 4: checks the device's signed public key, generates the new password and sends it ciphered with the
 * ECDH secret. The password is not to be stored yet (finishServerAutoreg).
 */
export function answerAutoregKey (state: ServerWaitingKey, outer: Envelope, creds: AutoregCredentials):
{ ok: true, reply: Buffer, state: ServerWaitingAck, newPassword: string } | Refused {
  const provis = provisioningKeys(creds.registrationPassword, creds.deviceId, creds.serverId)
  const opened = openAutoreg(outer, provis.kd, state.serverSalt)
  if (!opened.ok) return opened
  const devicePublicKey = bytesField(opened.inner.header, 'autoreg_pubkey')
  if (devicePublicKey === null) return { ok: false, reason: 'autoreg.pubkey.missing' }
  const pair = createAutoregKeyPair()
  const secret = pair.secretWith(devicePublicKey)
  if (secret === null) return { ok: false, reason: 'autoreg.pubkey.invalid' }
  const newPassword = generatePassword()
  const ctext = xorWithSecret(md5(newPassword), secret) ?? Buffer.alloc(0) // MD5 is always 16 bytes
  const reply = sealAutoreg({ autoreg_pubkey: pair.publicKey, autoreg_ctext: ctext }, provis.ks, state.deviceSalt, {})
  return { ok: true, reply, newPassword, state: { step: 'wait-ack', deviceSalt: state.deviceSalt, serverSalt: state.serverSalt, newPassword } }
}

/** Step 5: checks the device's signed `{status: 200}`; answers the password to store as the system's M3DA password. */
export function finishServerAutoreg (state: ServerWaitingAck, outer: Envelope, creds: AutoregCredentials):
{ ok: true, newPassword: string } | Refused {
  const provis = provisioningKeys(creds.registrationPassword, creds.deviceId, creds.serverId)
  const opened = openAutoreg(outer, provis.kd, state.serverSalt)
  if (!opened.ok) return opened
  if (intField(opened.inner.header, 'status') !== 200) return { ok: false, reason: 'autoreg.status' }
  return { ok: true, newPassword: state.newPassword }
}
