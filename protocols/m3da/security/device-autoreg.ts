// Password auto-registration, the device's steps (docs/protocols/m3da.md), as the Mihini agent does them
// (luafwk/m3da/session/provisioning.lua): used by the simulator and the tests. The device ends with K =
// MD5(newPassword), never the password itself.
import { encodeEnvelope, type Envelope } from '../index.js'
import { createAutoregKeyPair, provisioningKeys, xorWithSecret, type AutoregKeyPair } from './autoreg.js'
import { openAutoreg, sealAutoreg, type AutoregOpenReason } from './autoreg-envelopes.js'
import { bytesField, hasField } from './fields.js'
import { keysFromMasterKey, type SessionKeys } from './keys.js'
import { newNonce } from './nonce.js'
import type { AutoregCredentials } from './server-autoreg.js'

export interface DeviceWaitingSalt { step: 'wait-salt', deviceSalt: Buffer }
export interface DeviceWaitingKey { step: 'wait-key', deviceSalt: Buffer, serverSalt: Buffer, keyPair: AutoregKeyPair }
export type DeviceAutoregState = DeviceWaitingSalt | DeviceWaitingKey

export type DeviceAutoregReason = AutoregOpenReason
  | 'autoreg.refused' // the server answered step 1 with a challenge: it will not provision this device
  | 'autoreg.salt.missing' | 'autoreg.pubkey.missing' | 'autoreg.pubkey.invalid' | 'autoreg.ctext.invalid'

type Refused = { ok: false, reason: DeviceAutoregReason }

/** Step 1: the unsigned `{id, autoreg_salt}`. */
export function startDeviceAutoreg (deviceId: string): { bytes: Buffer, state: DeviceWaitingSalt } {
  const deviceSalt = newNonce()
  return {
    bytes: encodeEnvelope({ header: { id: deviceId, autoreg_salt: deviceSalt }, payload: Buffer.alloc(0), footer: {} }),
    state: { step: 'wait-salt', deviceSalt }
  }
}

/** Step 2 → 3: takes the server's salt, sends the device's public key signed with PROVIS_KD. */
export function answerServerSalt (state: DeviceWaitingSalt, outer: Envelope, creds: AutoregCredentials):
{ ok: true, bytes: Buffer, state: DeviceWaitingKey } | Refused {
  if (hasField(outer.header, 'challenge')) return { ok: false, reason: 'autoreg.refused' }
  const serverSalt = bytesField(outer.header, 'autoreg_salt')
  if (serverSalt === null || serverSalt.length === 0) return { ok: false, reason: 'autoreg.salt.missing' }
  const keyPair = createAutoregKeyPair()
  const { kd } = provisioningKeys(creds.registrationPassword, creds.deviceId, creds.serverId)
  const bytes = sealAutoreg({ autoreg_pubkey: keyPair.publicKey }, kd, serverSalt, { id: creds.deviceId })
  return { ok: true, bytes, state: { step: 'wait-key', deviceSalt: state.deviceSalt, serverSalt, keyPair } }
}

/**
 * Step 4 → 5: checks the server's signature, recovers K from the ciphered password, and acknowledges with a signed
 * `{status: 200}` that the server does not answer. The keys are those of the new password.
 */
export function finishDeviceAutoreg (state: DeviceWaitingKey, outer: Envelope, creds: AutoregCredentials):
{ ok: true, bytes: Buffer, keys: SessionKeys } | Refused {
  const provis = provisioningKeys(creds.registrationPassword, creds.deviceId, creds.serverId)
  const opened = openAutoreg(outer, provis.ks, state.deviceSalt)
  if (!opened.ok) return opened
  const serverPublicKey = bytesField(opened.inner.header, 'autoreg_pubkey')
  const ctext = bytesField(opened.inner.header, 'autoreg_ctext')
  if (serverPublicKey === null) return { ok: false, reason: 'autoreg.pubkey.missing' }
  const secret = state.keyPair.secretWith(serverPublicKey)
  if (secret === null) return { ok: false, reason: 'autoreg.pubkey.invalid' }
  const k = ctext === null ? null : xorWithSecret(ctext, secret)
  if (k === null) return { ok: false, reason: 'autoreg.ctext.invalid' }
  const bytes = sealAutoreg({ status: 200 }, provis.kd, state.serverSalt, { id: creds.deviceId })
  return { ok: true, bytes, keys: keysFromMasterKey(k, creds.deviceId, creds.serverId) }
}
