// protocols/m3da/security keys, MAC, ciphers and auto-registration crypto (docs/protocols/m3da.md), checked against
// answers computed here from lower primitives: RFC 2104 HMAC built from plain hashes, CBC and CTR built from single AES
// blocks, ECDH through KeyObjects.
import { createCipheriv, createHash, createPublicKey, diffieHellman, generateKeyPairSync, randomBytes } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { deriveKeys, keysFromMasterKey } from '../../../../protocols/m3da/security/keys.js'
import { computeMac, macAlgorithmOf, verifyMac } from '../../../../protocols/m3da/security/mac.js'
import { CIPHER_NAMES, cipherIv, cipherKey, decrypt, encrypt } from '../../../../protocols/m3da/security/cipher.js'
import {
  autoregMac, createAutoregKeyPair, generatePassword, provisioningKeys, verifyAutoregMac, xorWithSecret
} from '../../../../protocols/m3da/security/autoreg.js'

const hash = (name: string, ...parts: Uint8Array[]): Buffer => {
  const h = createHash(name)
  for (const p of parts) h.update(p)
  return h.digest()
}
const b = (s: string): Buffer => Buffer.from(s, 'utf8')

/** RFC 2104 with a 64-byte block, written out (the Java reference server does the same by hand). */
function rfc2104 (name: 'md5' | 'sha1', key: Buffer, message: Buffer): Buffer {
  const k = Buffer.alloc(64)
  key.copy(k)
  const ipad = Buffer.from(k.map((x) => x ^ 0x36))
  const opad = Buffer.from(k.map((x) => x ^ 0x5c))
  return hash(name, opad, hash(name, ipad, message))
}

function aesBlock (key: Buffer, block: Buffer): Buffer {
  const c = createCipheriv(`aes-${key.length * 8}-ecb`, key, null).setAutoPadding(false)
  return Buffer.concat([c.update(block), c.final()])
}

function cbcByHand (key: Buffer, iv: Buffer, plain: Buffer): Buffer {
  const pad = 16 - (plain.length % 16)
  const padded = Buffer.concat([plain, Buffer.alloc(pad, pad)])
  const out: Buffer[] = []
  let prev = iv
  for (let i = 0; i < padded.length; i += 16) {
    prev = aesBlock(key, Buffer.from(padded.subarray(i, i + 16).map((x, j) => x ^ (prev[j] ?? 0))))
    out.push(prev)
  }
  return Buffer.concat(out)
}

function ctrByHand (key: Buffer, iv: Buffer, plain: Buffer): Buffer {
  let counter = BigInt('0x' + iv.toString('hex'))
  const out = Buffer.alloc(plain.length)
  for (let i = 0; i < plain.length; i += 16) {
    const stream = aesBlock(key, Buffer.from(counter.toString(16).padStart(32, '0'), 'hex'))
    for (let j = i; j < Math.min(i + 16, plain.length); j++) out[j] = (plain[j] ?? 0) ^ (stream[j - i] ?? 0)
    counter = (counter + 1n) % (1n << 128n) // big-endian counter over the whole block (§2.8.5)
  }
  return out
}

describe('keys (§2.8.1)', () => {
  it('derives K = MD5(password), KD = MD5(deviceId ‖ K), KS = MD5(serverId ‖ K)', () => {
    const keys = deriveKeys('letMeIn', '359377060000001', 'AIRVANTAGE')
    const k = hash('md5', b('letMeIn'))
    expect(keys.k).toEqual(k)
    expect(keys.kd).toEqual(hash('md5', b('359377060000001'), k))
    expect(keys.ks).toEqual(hash('md5', b('AIRVANTAGE'), k))
    expect(keysFromMasterKey(k, '359377060000001', 'AIRVANTAGE')).toEqual(keys)
    // ids are UTF-8
    expect(deriveKeys('pé', 'dé', 'sé').kd).toEqual(hash('md5', b('dé'), hash('md5', b('pé'))))
  })
})

describe('reference values (the Java reference server\'s codec tests)', () => {
  it('gives the same key, master key and IV', () => {
    // KX = MD5(id ‖ MD5(password)) for id "myUsername", password "myPassword".
    expect(deriveKeys('myPassword', 'myUsername', 'AIRVANTAGE').kd.toString('hex')).toBe('4234f2270b88d6ed6a8aabd64fbdac6c')
    expect(deriveKeys('password', 'd', 's').k.toString('hex')).toBe('5f4dcc3b5aa765d61d8327deb882cf99')
    expect(cipherIv(Buffer.from('1234567890abcdef', 'hex')).toString('hex')).toBe('799d4f0bec27aff89de30b35e3ca4332')
  })
})

describe('mac (§2.8.3)', () => {
  it('is RFC 2104 HMAC over X ‖ N, MD5 or SHA-1', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ minLength: 16, maxLength: 16 }), fc.uint8Array({ minLength: 16, maxLength: 16 }),
      (x, n, key) => {
        const k = Buffer.from(key)
        const m = Buffer.concat([x, n])
        expect(computeMac('hmac-md5', k, x, n)).toEqual(rfc2104('md5', k, m))
        expect(computeMac('hmac-sha1', k, x, n)).toEqual(rfc2104('sha1', k, m))
      }))
  })

  it('takes the algorithm from the MAC length and refuses a wrong MAC, key or nonce', () => {
    const { kd } = deriveKeys('pw', 'dev', 'AIRVANTAGE')
    const x = randomBytes(40)
    const n = randomBytes(16)
    for (const algorithm of ['hmac-md5', 'hmac-sha1'] as const) {
      const mac = computeMac(algorithm, kd, x, n)
      expect(macAlgorithmOf(mac)).toBe(algorithm)
      expect(verifyMac(kd, x, n, mac)).toBe(algorithm)
      expect(verifyMac(kd, x, randomBytes(16), mac)).toBeNull()
      expect(verifyMac(deriveKeys('other', 'dev', 'AIRVANTAGE').kd, x, n, mac)).toBeNull()
      const flipped = Buffer.from(mac)
      flipped[3] = (flipped[3] ?? 0) ^ 1
      expect(verifyMac(kd, x, n, flipped)).toBeNull()
    }
    expect(macAlgorithmOf(Buffer.alloc(17))).toBeNull()
    expect(verifyMac(kd, x, n, Buffer.alloc(0))).toBeNull()
    expect(verifyMac(kd, x, n, computeMac('hmac-sha1', kd, x, n).subarray(0, 16))).toBeNull()
  })
})

describe('cipher (§2.8.5)', () => {
  const k = hash('md5', b('letMeIn'))

  it('derives CK = HMAC-MD5(K, N) [‖ HMAC-MD5(K, N ‖ N)] and IV = MD5(N)', () => {
    const n = randomBytes(16)
    expect(cipherKey(k, n, 16)).toEqual(rfc2104('md5', k, n))
    expect(cipherKey(k, n, 32)).toEqual(Buffer.concat([rfc2104('md5', k, n), rfc2104('md5', k, Buffer.concat([n, n]))]))
    expect(cipherIv(n)).toEqual(hash('md5', n))
  })

  it('encrypts like CBC with PKCS#7 and a big-endian CTR built from AES blocks, and decrypts back', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 100 }), fc.uint8Array({ minLength: 16, maxLength: 16 }), (plainBytes, nonceBytes) => {
      const plain = Buffer.from(plainBytes)
      const n = Buffer.from(nonceBytes)
      const iv = hash('md5', n)
      const ck16 = rfc2104('md5', k, n)
      const ck32 = Buffer.concat([ck16, rfc2104('md5', k, Buffer.concat([n, n]))])
      expect(encrypt('aes-cbc-128', k, n, plain)).toEqual(cbcByHand(ck16, iv, plain))
      expect(encrypt('aes-cbc-256', k, n, plain)).toEqual(cbcByHand(ck32, iv, plain))
      expect(encrypt('aes-ctr-128', k, n, plain)).toEqual(ctrByHand(ck16, iv, plain))
      expect(encrypt('aes-ctr-256', k, n, plain)).toEqual(ctrByHand(ck32, iv, plain))
      for (const name of CIPHER_NAMES) expect(decrypt(name, k, n, encrypt(name, k, n, plain))).toEqual({ ok: true, plain })
    }))
  })

  it('carries the CTR counter from one byte into the next (big-endian counter over the whole block)', () => {
    // IV = MD5(N): pick a nonce whose IV ends in a byte ≥ 0xe0, so 40 blocks carry into byte 14.
    let n = randomBytes(16)
    while ((cipherIv(n)[15] ?? 0) < 0xe0) n = randomBytes(16)
    const plain = randomBytes(16 * 40 + 5)
    expect(encrypt('aes-ctr-128', k, n, plain)).toEqual(ctrByHand(cipherKey(k, n, 16), cipherIv(n), plain))
  })

  it('refuses CBC texts that are not whole blocks or whose padding is wrong, without throwing', () => {
    const n = randomBytes(16)
    expect(decrypt('aes-cbc-128', k, n, Buffer.alloc(0))).toEqual({ ok: false, reason: 'cipher.length' })
    expect(decrypt('aes-cbc-256', k, n, Buffer.alloc(15))).toEqual({ ok: false, reason: 'cipher.length' })
    const sealed = encrypt('aes-cbc-128', k, n, b('hello, device'))
    // Another nonce gives another key: the padding no longer checks (1 chance in ~256 that it does by luck).
    let refused = 0
    for (let i = 0; i < 20; i++) if (!decrypt('aes-cbc-128', k, randomBytes(16), sealed).ok) refused++
    expect(refused).toBeGreaterThan(10)
  })

  it('never throws on random bytes, keys and nonces', () => {
    fc.assert(fc.property(fc.constantFrom(...CIPHER_NAMES), fc.uint8Array({ maxLength: 80 }), fc.uint8Array({ maxLength: 20 }),
      (name, data, nonce) => { decrypt(name, k, nonce, data) }))
  })
})

describe('auto-registration crypto (§2.8.6)', () => {
  it('derives PROVIS_KD and PROVIS_KS from the registration password', () => {
    const reg = hash('md5', b('shared-reg'))
    expect(provisioningKeys('shared-reg', 'dev-1', 'AIRVANTAGE')).toEqual({
      kd: hash('md5', b('dev-1'), reg), ks: hash('md5', b('AIRVANTAGE'), reg)
    })
  })

  it('signs with HMAC-MD5(PROVIS_KX, innerBytes ‖ salt) and checks in constant time', () => {
    const key = randomBytes(16)
    const inner = randomBytes(50)
    const salt = randomBytes(16)
    const mac = autoregMac(key, inner, salt)
    expect(mac).toEqual(rfc2104('md5', key, Buffer.concat([inner, salt])))
    expect(verifyAutoregMac(key, inner, salt, mac)).toBe(true)
    expect(verifyAutoregMac(key, inner, randomBytes(16), mac)).toBe(false)
    expect(verifyAutoregMac(key, inner, salt, mac.subarray(1))).toBe(false)
  })

  it('agrees on the P-521 secret with an independent KeyObject pair, in X9.63 uncompressed form', () => {
    const ours = createAutoregKeyPair()
    expect(ours.publicKey.length).toBe(133)
    expect(ours.publicKey[0]).toBe(0x04)
    const theirs = generateKeyPairSync('ec', { namedCurve: 'P-521' })
    const jwk = theirs.publicKey.export({ format: 'jwk' })
    const theirRaw = Buffer.concat([Buffer.from([4]),
      Buffer.from(jwk.x ?? '', 'base64url'), Buffer.from(jwk.y ?? '', 'base64url')])
    const ourKeyObject = createPublicKey({
      format: 'jwk',
      key: { kty: 'EC', crv: 'P-521', x: ours.publicKey.subarray(1, 67).toString('base64url'), y: ours.publicKey.subarray(67).toString('base64url') }
    })
    const expected = diffieHellman({ privateKey: theirs.privateKey, publicKey: ourKeyObject })
    const secret = ours.secretWith(theirRaw)
    expect(secret).toEqual(expected)
    expect(secret?.length).toBe(66)
  })

  it('refuses a public key that is not a P-521 point, without throwing', () => {
    const pair = createAutoregKeyPair()
    expect(pair.secretWith(Buffer.alloc(0))).toBeNull()
    expect(pair.secretWith(Buffer.concat([Buffer.from([4]), Buffer.alloc(132, 1)]))).toBeNull()
    fc.assert(fc.property(fc.uint8Array({ maxLength: 140 }), (bytes) => { pair.secretWith(bytes) }))
  })

  it('ciphers MD5(newPassword) with MD5(secret), and the device gets K back with the same XOR', () => {
    const device = createAutoregKeyPair()
    const server = createAutoregKeyPair()
    const password = generatePassword()
    const secret = server.secretWith(device.publicKey) ?? Buffer.alloc(0)
    const ctext = xorWithSecret(hash('md5', b(password)), secret)
    expect(ctext).toEqual(Buffer.from(hash('md5', b(password)).map((x, i) => x ^ (hash('md5', secret)[i] ?? 0))))
    expect(xorWithSecret(ctext ?? Buffer.alloc(0), device.secretWith(server.publicKey) ?? Buffer.alloc(0))).toEqual(hash('md5', b(password)))
    expect(xorWithSecret(Buffer.alloc(15), secret)).toBeNull()
  })

  it('generates ASCII passwords without , or ;', () => {
    for (let i = 0; i < 50; i++) expect(generatePassword()).toMatch(/^[A-Za-z0-9]{50}$/)
    expect(new Set(Array.from({ length: 20 }, () => generatePassword())).size).toBe(20)
  })
})
