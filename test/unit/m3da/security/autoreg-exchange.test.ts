// protocols/m3da/security auto-registration, both sides (docs/protocols/m3da.md): the five steps end with
// the server holding a new password and the device K = MD5(that password); then the first secured request.
import { createHash, randomBytes } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeEnvelope, encodeEnvelope, type Envelope } from '../../../../protocols/m3da/index.js'
import {
  answerAutoregKey, answerServerSalt, finishDeviceAutoreg, finishServerAutoreg, isAutoregStart, newNonce, openDeviceEnvelope,
  sealDeviceEnvelope, startDeviceAutoreg, startServerAutoreg, type AutoregCredentials
} from '../../../../protocols/m3da/security/index.js'
import { autoregMac } from '../../../../protocols/m3da/security/autoreg.js'

const creds: AutoregCredentials = { deviceId: '359377060000002', registrationPassword: 'batch-2026', serverId: 'AIRVANTAGE' }
const md5 = (...parts: Array<string | Buffer>): Buffer => {
  const h = createHash('md5')
  for (const p of parts) h.update(p)
  return h.digest()
}

function envelope (bytes: Buffer): Envelope {
  const decoded = decodeEnvelope(bytes)
  if (!decoded.ok) throw new Error(`undecodable envelope: ${decoded.reason}`)
  return decoded.envelope
}

function ok<T extends { ok: boolean }> (r: T): T & { ok: true } {
  if (!r.ok) throw new Error(`refused: ${JSON.stringify(r)}`)
  return r as T & { ok: true }
}

/** Runs steps 1 to 4; answers what both sides hold before step 5. */
function toStep4 (deviceCreds = creds) {
  const step1 = startDeviceAutoreg(deviceCreds.deviceId)
  const env1 = envelope(step1.bytes)
  expect(isAutoregStart(env1)).toBe(true)
  const s2 = ok(startServerAutoreg(env1))
  const s3 = ok(answerServerSalt(step1.state, envelope(s2.reply), deviceCreds))
  return { step1, s2, s3, serverState: s2.state }
}

describe('auto-registration', () => {
  it('runs the five steps, both sides ending with the same new password, then the first secured request', () => {
    const { step1, s3, serverState } = toStep4()
    const env3 = envelope(s3.bytes)
    // Step 3 is signed with PROVIS_KD over the inner bytes and the server's salt.
    const provisKd = md5(creds.deviceId, md5(creds.registrationPassword))
    expect(env3.footer.autoreg_mac).toEqual(autoregMac(provisKd, env3.payload, serverState.serverSalt))
    expect(envelope(env3.payload).header.autoreg_pubkey).toHaveLength(133)

    const s4 = ok(answerAutoregKey(serverState, env3, creds))
    expect(s4.newPassword).toMatch(/^[A-Za-z0-9]+$/)
    const env4 = envelope(s4.reply)
    const provisKs = md5(creds.serverId, md5(creds.registrationPassword))
    expect(env4.footer.autoreg_mac).toEqual(autoregMac(provisKs, env4.payload, step1.state.deviceSalt))

    const s5 = ok(finishDeviceAutoreg(s3.state, env4, creds))
    expect(s5.keys.k).toEqual(md5(s4.newPassword))
    expect(s5.keys.kd).toEqual(md5(creds.deviceId, md5(s4.newPassword)))
    const done = ok(finishServerAutoreg(s4.state, envelope(s5.bytes), creds))
    expect(done.newPassword).toBe(s4.newPassword)

    // The agent's next request, at once: new keys, a nonce the server does not know → 401, then accepted.
    const first = sealDeviceEnvelope({ payload: Buffer.from('hello') }, { deviceId: creds.deviceId, keys: s5.keys, nonce: newNonce(), algorithm: 'hmac-sha1', cipher: 'aes-cbc-128' })
    const server = { deviceId: creds.deviceId, password: done.newPassword, serverId: creds.serverId, cipher: null }
    const challenged = openDeviceEnvelope(envelope(first.bytes), { ...server, nonce: null })
    expect(challenged).toMatchObject({ kind: 'challenge', status: 401 })
    if (challenged.kind !== 'challenge') return
    const again = sealDeviceEnvelope({ payload: Buffer.from('hello') }, { deviceId: creds.deviceId, keys: s5.keys, nonce: challenged.nonce, nextNonce: first.nextNonce, algorithm: 'hmac-sha1', cipher: 'aes-cbc-128' })
    expect(openDeviceEnvelope(envelope(again.bytes), { ...server, nonce: challenged.nonce, challenged: true }))
      .toMatchObject({ kind: 'open', cipher: 'aes-cbc-128', nextNonce: first.nextNonce })
  })

  it('refuses a device with the wrong registration password at step 3', () => {
    const { s3, serverState } = toStep4({ ...creds, registrationPassword: 'guess' })
    expect(answerAutoregKey(serverState, envelope(s3.bytes), creds)).toEqual({ ok: false, reason: 'autoreg.mac.mismatch' })
  })

  it('makes the device refuse a step 4 not signed with the registration password', () => {
    const { s3, serverState } = toStep4()
    const s4 = ok(answerAutoregKey(serverState, envelope(s3.bytes), creds))
    expect(finishDeviceAutoreg(s3.state, envelope(s4.reply), { ...creds, registrationPassword: 'other' }))
      .toEqual({ ok: false, reason: 'autoreg.mac.mismatch' })
  })

  it('refuses a step 5 that is not a signed {status: 200}', () => {
    const { s3, serverState } = toStep4()
    const s4 = ok(answerAutoregKey(serverState, envelope(s3.bytes), creds))
    const salt = s4.state.serverSalt
    const provisKd = md5(creds.deviceId, md5(creds.registrationPassword))
    const inner = encodeEnvelope({ header: { status: 500 }, payload: Buffer.alloc(0), footer: {} })
    const bad = encodeEnvelope({ header: { id: creds.deviceId }, payload: inner, footer: { autoreg_mac: autoregMac(provisKd, inner, salt) } })
    expect(finishServerAutoreg(s4.state, envelope(bad), creds)).toEqual({ ok: false, reason: 'autoreg.status' })
    const unsigned = encodeEnvelope({ header: { id: creds.deviceId }, payload: inner, footer: {} })
    expect(finishServerAutoreg(s4.state, envelope(unsigned), creds)).toEqual({ ok: false, reason: 'autoreg.mac.missing' })
  })

  it('lets a device read a challenge at step 2 as "will not re-provision" (a system that has a password)', () => {
    const step1 = startDeviceAutoreg(creds.deviceId)
    const answer = openDeviceEnvelope(envelope(step1.bytes), { deviceId: creds.deviceId, password: 'set', serverId: creds.serverId, nonce: null, cipher: null })
    expect(answer.kind).toBe('challenge')
    if (answer.kind !== 'challenge') return
    expect(answerServerSalt(step1.state, envelope(answer.reply), creds)).toEqual({ ok: false, reason: 'autoreg.refused' })
  })

  it('refuses a step 1 without salt, and a signed public key that is not on P-521', () => {
    expect(startServerAutoreg(envelope(encodeEnvelope({ header: { id: 'x' }, payload: Buffer.alloc(0), footer: {} }))))
      .toEqual({ ok: false, reason: 'autoreg.salt.missing' })
    const { serverState } = toStep4()
    const provisKd = md5(creds.deviceId, md5(creds.registrationPassword))
    const inner = encodeEnvelope({ header: { autoreg_pubkey: Buffer.concat([Buffer.from([4]), randomBytes(132)]) }, payload: Buffer.alloc(0), footer: {} })
    const outer = encodeEnvelope({ header: { id: creds.deviceId }, payload: inner, footer: { autoreg_mac: autoregMac(provisKd, inner, serverState.serverSalt) } })
    expect(answerAutoregKey(serverState, envelope(outer), creds)).toEqual({ ok: false, reason: 'autoreg.pubkey.invalid' })
  })

  it('never throws on steps 1, 3 and 5 whatever the types of their fields', () => {
    const { serverState, s3 } = toStep4()
    const value = fc.oneof(fc.constant(null), fc.integer(), fc.boolean(), fc.uint8Array({ maxLength: 140 }).map((u) => Buffer.from(u)))
    const fields = fc.record({ id: value, autoreg_salt: value, autoreg_mac: value, challenge: value, autoreg_pubkey: value, autoreg_ctext: value }, { requiredKeys: [] })
    fc.assert(fc.property(fields, fields, fc.uint8Array({ maxLength: 80 }), (header, footer, payload) => {
      const outer = { header, footer, payload: Buffer.from(payload) } as unknown as Envelope
      startServerAutoreg(outer)
      expect(answerAutoregKey(serverState, outer, creds).ok).toBe(false)
      answerServerSalt(startDeviceAutoreg('d').state, outer, creds)
      expect(finishDeviceAutoreg(s3.state, outer, creds).ok).toBe(false)
    }))
  })

  it('never throws on random steps 3 and 5', () => {
    const { serverState } = toStep4()
    const waitAck = { step: 'wait-ack' as const, deviceSalt: newNonce(), serverSalt: serverState.serverSalt, newPassword: 'p' }
    fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), fc.uint8Array({ maxLength: 20 }), (payload, mac) => {
      const outer: Envelope = { header: {}, payload: Buffer.from(payload), footer: { autoreg_mac: Buffer.from(mac) } }
      expect(answerAutoregKey(serverState, outer, creds).ok).toBe(false)
      expect(finishServerAutoreg(waitAck, outer, creds).ok).toBe(false)
    }))
  })
})
