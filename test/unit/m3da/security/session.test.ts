// protocols/m3da/security server and device sessions (docs/protocols/m3da.md–2.8.4, docs/protocols/m3da.md): round
// trips for each algorithm × cipher, the nonce chain, the 407 and 401 challenges, a wrong password, a replayed
// envelope, the device challenging a reply, and random input that never throws.
import { randomBytes } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeEnvelope, encodeEnvelope, type Envelope } from '../../../../protocols/m3da/index.js'
import {
  CIPHER_NAMES, computeMac, deriveKeys, encodeDeviceChallenge, encrypt, newNonce, openDeviceEnvelope, openServerEnvelope,
  sealDeviceEnvelope, sealServerEnvelope, type DeviceCredentials, type MacAlgorithm, type SecurityCipher
} from '../../../../protocols/m3da/security/index.js'

const DEVICE = '359377060000001'
const SERVER = 'AIRVANTAGE'
const PASSWORD = 'letMeIn'
const deviceKeys = deriveKeys(PASSWORD, DEVICE, SERVER)

function envelope (bytes: Buffer): Envelope {
  const decoded = decodeEnvelope(bytes)
  if (!decoded.ok) throw new Error(`undecodable envelope: ${decoded.reason}`)
  return decoded.envelope
}

const creds = (over: Partial<DeviceCredentials>): DeviceCredentials =>
  ({ deviceId: DEVICE, password: PASSWORD, serverId: SERVER, nonce: null, cipher: null, ...over })

const text = (v: unknown): string | undefined => Buffer.isBuffer(v) ? v.toString('utf8') : undefined

const ALGORITHMS: MacAlgorithm[] = ['hmac-md5', 'hmac-sha1']
const CIPHERS: SecurityCipher[] = ['none', ...CIPHER_NAMES]

describe('device ↔ server round trips', () => {
  for (const algorithm of ALGORITHMS) {
    for (const cipher of CIPHERS) {
      it(`${algorithm} × ${cipher}: two exchanges along the nonce chain`, () => {
        let serverNonce = newNonce() // provisioned N0, known to both
        let deviceNonce = serverNonce
        for (const round of [1, 2]) {
          const payload = randomBytes(30 + round)
          const request = sealDeviceEnvelope({ payload }, { deviceId: DEVICE, keys: deviceKeys, nonce: deviceNonce, algorithm, cipher })
          const outer = envelope(request.bytes)
          expect(text(outer.header.id)).toBe(DEVICE)
          expect(outer.footer.mac).toHaveLength(algorithm === 'hmac-md5' ? 16 : 20)

          // The application names the cipher, or not (then the one that decodes is found).
          for (const named of [cipher, null]) {
            const opened = openDeviceEnvelope(outer, creds({ nonce: serverNonce, cipher: named }))
            expect(opened).toMatchObject({ kind: 'open', algorithm, cipher, nextNonce: request.nextNonce })
            if (opened.kind === 'open') expect(opened.inner.payload).toEqual(payload)
          }

          const replyPayload = randomBytes(12)
          const reply = sealServerEnvelope({ payload: replyPayload }, {
            deviceId: DEVICE, password: PASSWORD, serverId: SERVER, nonce: request.nextNonce, algorithm, cipher
          })
          serverNonce = reply.nextNonce
          const replyOuter = envelope(reply.bytes)
          expect(text(replyOuter.header.id)).toBe(SERVER)
          const got = openServerEnvelope(replyOuter, { keys: deviceKeys, nonce: request.nextNonce, cipher })
          expect(got).toMatchObject({ kind: 'open', nextNonce: reply.nextNonce })
          if (got.kind !== 'open') return
          expect(got.inner.payload).toEqual(replyPayload)
          expect(got.inner.header.status).toBe(200)
          deviceNonce = got.nextNonce
        }
      })
    }
  }

  it('builds X exactly as §2.8.3/§2.8.5 say: encrypt-then-MAC under the current nonce, KD from the device', () => {
    const nonce = newNonce()
    const next = newNonce()
    const { bytes } = sealDeviceEnvelope({ payload: Buffer.from([1, 2, 3]) }, {
      deviceId: DEVICE, keys: deviceKeys, nonce, nextNonce: next, algorithm: 'hmac-sha1', cipher: 'aes-cbc-128'
    })
    const outer = envelope(bytes)
    const plainInner = encodeEnvelope({ header: { status: 200, nonce: next }, payload: Buffer.from([1, 2, 3]), footer: {} })
    expect(outer.payload).toEqual(encrypt('aes-cbc-128', deviceKeys.k, nonce, plainInner))
    expect(outer.footer.mac).toEqual(computeMac('hmac-sha1', deviceKeys.kd, outer.payload, nonce))
  })

  it('keeps a status the server gives in the inner header, and other inner fields', () => {
    const nonce = newNonce()
    const reply = sealServerEnvelope({ header: { status: 450 } }, { deviceId: DEVICE, password: PASSWORD, serverId: SERVER, nonce, algorithm: 'hmac-md5', cipher: 'none' })
    const got = openServerEnvelope(envelope(reply.bytes), { keys: deviceKeys, nonce, cipher: 'none' })
    expect(got.kind === 'open' && got.inner.header.status).toBe(450)
  })

  it('tells a payload in clear where the application names a cipher (450) from one that does not decode', () => {
    const nonce = newNonce()
    const { bytes } = sealDeviceEnvelope({ payload: Buffer.from('x') }, { deviceId: DEVICE, keys: deviceKeys, nonce, algorithm: 'hmac-md5', cipher: 'none' })
    expect(openDeviceEnvelope(envelope(bytes), creds({ nonce, cipher: 'aes-cbc-128' }))).toEqual({ kind: 'refused', reason: 'payload.not.encrypted' })
    expect(openDeviceEnvelope(envelope(bytes), creds({ nonce, cipher: null }))).toMatchObject({ kind: 'open', cipher: 'none' })
  })

  it('refuses an authentic payload under a cipher other than the application names', () => {
    const nonce = newNonce()
    const { bytes } = sealDeviceEnvelope({ payload: Buffer.from('x') }, { deviceId: DEVICE, keys: deviceKeys, nonce, algorithm: 'hmac-md5', cipher: 'aes-ctr-256' })
    expect(openDeviceEnvelope(envelope(bytes), creds({ nonce, cipher: 'aes-cbc-256' }))).toEqual({ kind: 'refused', reason: 'payload.undecodable' })
  })
})

describe('challenges (§2.8.4)', () => {
  it('answers an unsigned envelope with an unsigned 407 challenge, then opens the re-sent one', () => {
    const unsigned = encodeEnvelope({ header: { id: DEVICE }, payload: Buffer.from([0x00]), footer: {} })
    const opened = openDeviceEnvelope(envelope(unsigned), creds({ nonce: newNonce(), algorithm: 'hmac-md5' }))
    expect(opened).toMatchObject({ kind: 'challenge', status: 407 })
    if (opened.kind !== 'challenge') return
    const reply = envelope(opened.reply)
    expect(reply.header).toMatchObject({ status: 407, nonce: opened.nonce })
    expect(text(reply.header.challenge)).toBe('hmac-md5')
    expect(reply.footer.mac ?? null).toBeNull()
    expect(reply.payload.length).toBe(0)

    const seen = openServerEnvelope(reply, { keys: deviceKeys, nonce: newNonce(), cipher: 'none' })
    expect(seen).toEqual({ kind: 'challenge', status: 407, nonce: opened.nonce, algorithm: 'hmac-md5' })
    if (seen.kind !== 'challenge') return
    const again = sealDeviceEnvelope({ payload: Buffer.from('data') }, { deviceId: DEVICE, keys: deviceKeys, nonce: seen.nonce, algorithm: 'hmac-md5', cipher: 'none' })
    expect(openDeviceEnvelope(envelope(again.bytes), creds({ nonce: opened.nonce, challenged: true }))).toMatchObject({ kind: 'open' })
  })

  it('answers a wrong password with a 401 naming the MAC\'s algorithm, and refuses the second failure', () => {
    const stored = newNonce()
    const wrong = deriveKeys('not-the-password', DEVICE, SERVER)
    const first = sealDeviceEnvelope({ payload: Buffer.from('a') }, { deviceId: DEVICE, keys: wrong, nonce: stored, algorithm: 'hmac-sha1', cipher: 'none' })
    const opened = openDeviceEnvelope(envelope(first.bytes), creds({ nonce: stored }))
    expect(opened).toMatchObject({ kind: 'challenge', status: 401 })
    if (opened.kind !== 'challenge') return
    expect(text(envelope(opened.reply).header.challenge)).toBe('hmac-sha1')
    const second = sealDeviceEnvelope({ payload: Buffer.from('a') }, { deviceId: DEVICE, keys: wrong, nonce: opened.nonce, algorithm: 'hmac-sha1', cipher: 'none' })
    expect(openDeviceEnvelope(envelope(second.bytes), creds({ nonce: opened.nonce, challenged: true })))
      .toEqual({ kind: 'refused', reason: 'auth.failed.after.challenge' })
    // An unsigned envelope after a challenge is refused too.
    const unsigned = encodeEnvelope({ header: { id: DEVICE }, payload: Buffer.from('b'), footer: {} })
    expect(openDeviceEnvelope(envelope(unsigned), creds({ nonce: opened.nonce, challenged: true })))
      .toEqual({ kind: 'refused', reason: 'auth.failed.after.challenge' })
  })

  it('challenges a signed envelope when no nonce was ever agreed', () => {
    const { bytes } = sealDeviceEnvelope({}, { deviceId: DEVICE, keys: deviceKeys, nonce: newNonce(), algorithm: 'hmac-md5', cipher: 'none' })
    expect(openDeviceEnvelope(envelope(bytes), creds({ nonce: null }))).toMatchObject({ kind: 'challenge', status: 401 })
  })

  it('refuses a replayed envelope once the chain has moved on', () => {
    const n0 = newNonce()
    const first = sealDeviceEnvelope({ payload: Buffer.from('reboot done') }, { deviceId: DEVICE, keys: deviceKeys, nonce: n0, algorithm: 'hmac-sha1', cipher: 'aes-cbc-128' })
    const opened = openDeviceEnvelope(envelope(first.bytes), creds({ nonce: n0 }))
    expect(opened.kind).toBe('open')
    if (opened.kind !== 'open') return
    const reply = sealServerEnvelope({}, { deviceId: DEVICE, password: PASSWORD, serverId: SERVER, nonce: opened.nextNonce, algorithm: opened.algorithm, cipher: opened.cipher })
    // The server now expects reply.nextNonce: the same bytes again do not authenticate.
    expect(openDeviceEnvelope(envelope(first.bytes), creds({ nonce: reply.nextNonce }))).toMatchObject({ kind: 'challenge', status: 401 })
    expect(openDeviceEnvelope(envelope(first.bytes), creds({ nonce: reply.nextNonce, challenged: true })).kind).toBe('refused')
  })

  it('lets the device challenge a reply whose signature does not check, and opens the re-sealed reply', () => {
    const announced = newNonce()
    // A reply signed with another password (or altered on the way) does not check on the device.
    const bad = sealServerEnvelope({ payload: Buffer.from('tasks') }, { deviceId: DEVICE, password: 'other', serverId: SERVER, nonce: announced, algorithm: 'hmac-md5', cipher: 'none' })
    expect(openServerEnvelope(envelope(bad.bytes), { keys: deviceKeys, nonce: announced, cipher: 'none' })).toEqual({ kind: 'bad-signature', reason: 'mac.mismatch' })

    const challenge = encodeDeviceChallenge({ deviceId: DEVICE, algorithm: 'hmac-md5' })
    const seen = openDeviceEnvelope(envelope(challenge.bytes), creds({ nonce: newNonce() }))
    expect(seen).toEqual({ kind: 'peer-challenge', nonce: challenge.nonce, algorithm: 'hmac-md5' })
    if (seen.kind !== 'peer-challenge') return
    const resealed = sealServerEnvelope({ payload: Buffer.from('tasks') }, { deviceId: DEVICE, password: PASSWORD, serverId: SERVER, nonce: seen.nonce, algorithm: 'hmac-md5', cipher: 'none' })
    const got = openServerEnvelope(envelope(resealed.bytes), { keys: deviceKeys, nonce: challenge.nonce, cipher: 'none' })
    expect(got).toMatchObject({ kind: 'open', nextNonce: resealed.nextNonce })
  })

  it('reads the agent\'s unsigned {id, status} error envelope as a peer error (empty payload or 00)', () => {
    for (const payload of [Buffer.alloc(0), Buffer.from([0])]) {
      const bytes = encodeEnvelope({ header: { id: DEVICE, status: 407 }, payload, footer: {} })
      expect(openDeviceEnvelope(envelope(bytes), creds({ nonce: newNonce() }))).toEqual({ kind: 'peer-error', status: 407 })
    }
    const fromServer = encodeEnvelope({ header: { status: 403 }, payload: Buffer.alloc(0), footer: {} })
    expect(openServerEnvelope(envelope(fromServer), { keys: deviceKeys, nonce: newNonce(), cipher: 'none' })).toEqual({ kind: 'error', status: 403 })
  })

  it('refuses a challenge without a nonce', () => {
    const bytes = encodeEnvelope({ header: { id: DEVICE, status: 401, challenge: 'hmac-md5' }, payload: Buffer.alloc(0), footer: {} })
    expect(openDeviceEnvelope(envelope(bytes), creds({}))).toEqual({ kind: 'refused', reason: 'challenge.without.nonce' })
  })
})

describe('random input', () => {
  const macs = fc.oneof(fc.uint8Array({ maxLength: 24 }), fc.uint8Array({ minLength: 16, maxLength: 16 }), fc.uint8Array({ minLength: 20, maxLength: 20 }))

  it('never throws out of openDeviceEnvelope, whatever the payload, MAC and cipher', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), macs, fc.constantFrom<SecurityCipher | null>(null, ...CIPHERS), fc.boolean(),
      (payload, mac, cipher, challenged) => {
        const outer: Envelope = { header: { id: Buffer.from(DEVICE) }, payload: Buffer.from(payload), footer: { mac: Buffer.from(mac) } }
        const r = openDeviceEnvelope(outer, creds({ nonce: newNonce(), cipher, challenged }))
        expect(r.kind).not.toBe('open')
      }))
  })

  it('never throws when the MAC checks but the payload is random (a device with the right key)', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), fc.constantFrom<SecurityCipher | null>(null, ...CIPHERS), (bytes, cipher) => {
      const nonce = newNonce()
      const payload = Buffer.from(bytes)
      const outer: Envelope = { header: { id: Buffer.from(DEVICE) }, payload, footer: { mac: computeMac('hmac-md5', deviceKeys.kd, payload, nonce) } }
      const r = openDeviceEnvelope(outer, creds({ nonce, cipher }))
      expect(['open', 'refused']).toContain(r.kind)
    }))
  })

  it('never throws whatever the types of the header and footer fields', () => {
    const value = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.bigInt(), fc.double(), fc.string().map((t) => Buffer.from(t)),
      fc.uint8Array({ maxLength: 24 }).map((u) => Buffer.from(u)), fc.array(fc.integer(), { maxLength: 3 }))
    const fields = fc.record({ id: value, status: value, challenge: value, nonce: value, mac: value, autoreg_salt: value, autoreg_mac: value }, { requiredKeys: [] })
    fc.assert(fc.property(fields, fields, fc.uint8Array({ maxLength: 60 }), fc.boolean(), (header, footer, payload, challenged) => {
      const outer = { header, footer, payload: Buffer.from(payload) } as unknown as Envelope
      openDeviceEnvelope(outer, creds({ nonce: newNonce(), challenged }))
      openServerEnvelope(outer, { keys: deviceKeys, nonce: newNonce(), cipher: 'aes-ctr-128' })
    }))
  })

  it('never throws out of openServerEnvelope', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), macs, fc.constantFrom(...CIPHERS), (payload, mac, cipher) => {
      const outer: Envelope = { header: {}, payload: Buffer.from(payload), footer: { mac: Buffer.from(mac) } }
      openServerEnvelope(outer, { keys: deviceKeys, nonce: newNonce(), cipher })
    }))
  })
})
