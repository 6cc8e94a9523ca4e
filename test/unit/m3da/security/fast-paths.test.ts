// The fast paths of protocols/m3da/security (docs/protocols/m3da.md) answer exactly what the plain ones do: keys kept
// per password are the derived ones and never another device's, the PKCS#7 check written by hand refuses exactly what
// OpenSSL's final() refuses (docs/protocols/m3da.md), and pooled nonces are fresh 16-byte values.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cachedKeys, deriveKeys } from '../../../../protocols/m3da/security/keys.js'
import { cipherIv, cipherKey, decrypt } from '../../../../protocols/m3da/security/cipher.js'
import { newNonce, NONCE_BYTES } from '../../../../protocols/m3da/security/nonce.js'

/** What OpenSSL answers for a CBC text of whole blocks: the plain text, or null when final() refuses the padding. */
function openssl (name: 'aes-128-cbc' | 'aes-256-cbc', key: Buffer, iv: Buffer, data: Buffer): Buffer | null {
  const d = createDecipheriv(name, key, iv)
  try {
    return Buffer.concat([d.update(data), d.final()])
  } catch {
    return null
  }
}

describe('cachedKeys', () => {
  it('answers deriveKeys, for string and byte passwords alike', () => {
    fc.assert(fc.property(fc.string(), fc.string(), fc.string(), fc.boolean(), (password, deviceId, serverId, bytes) => {
      const secret = bytes ? Buffer.from(password, 'utf8') : password
      expect(cachedKeys(secret, deviceId, serverId)).toEqual(deriveKeys(secret, deviceId, serverId))
      expect(cachedKeys(secret, deviceId, serverId)).toEqual(deriveKeys(secret, deviceId, serverId)) // from the cache
    }))
  })

  it('never hands one triple the keys of another whose parts join to the same text', () => {
    const a = cachedKeys('c', 'a\u0000b', 'S')
    const b = cachedKeys('b\u0000c', 'a', 'S')
    const c = cachedKeys('b', 'a', 'S1')
    const d = cachedKeys('b', '1a', 'S')
    expect(a).toEqual(deriveKeys('c', 'a\u0000b', 'S'))
    expect(b).toEqual(deriveKeys('b\u0000c', 'a', 'S'))
    expect(c).toEqual(deriveKeys('b', 'a', 'S1'))
    expect(d).toEqual(deriveKeys('b', '1a', 'S'))
    // A byte password and the same text as a string give the same keys (MD5 of the same bytes).
    expect(cachedKeys(Buffer.from('abc'), 'd', 'S')).toEqual(cachedKeys('abc', 'd', 'S'))
  })

  it('follows a new password at once', () => {
    const before = cachedKeys('old', 'dev', 'AIRVANTAGE')
    const after = cachedKeys('new', 'dev', 'AIRVANTAGE')
    expect(after).toEqual(deriveKeys('new', 'dev', 'AIRVANTAGE'))
    expect(after.k).not.toEqual(before.k)
  })
})

describe('CBC padding checked by hand (§2.8.5)', () => {
  it('refuses exactly what OpenSSL refuses and answers the same text otherwise', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 4 }), fc.constantFrom(16, 32), fc.integer({ min: 0, max: 17 }), fc.integer({ min: 0, max: 255 }), fc.boolean(),
      (blocks, keyBytes, tailLength, tailByte, spoil) => {
        const k = randomBytes(16)
        const n = randomBytes(16)
        const key = cipherKey(k, n, keyBytes as 16 | 32)
        const name = keyBytes === 16 ? 'aes-128-cbc' : 'aes-256-cbc'
        // A text whose deciphered tail is chosen (often a padding, right or off by one byte), ciphered without padding.
        const chosen = randomBytes(16 * blocks)
        chosen.fill(tailByte, Math.max(0, chosen.length - tailLength))
        if (spoil && tailLength > 1) chosen[chosen.length - 2] = (tailByte + 1) % 256
        const c = createCipheriv(name, key, cipherIv(n)).setAutoPadding(false).update(chosen)
        const expected = openssl(name, key, cipherIv(n), c)
        const got = decrypt(keyBytes === 16 ? 'aes-cbc-128' : 'aes-cbc-256', k, n, c)
        expect(got).toEqual(expected === null ? { ok: false, reason: 'cipher.padding' } : { ok: true, plain: expected })
      }), { numRuns: 500 })
  })
})

describe('newNonce', () => {
  it('answers distinct 16-byte nonces across pool refills, none sharing memory with another', () => {
    const seen = new Set<string>()
    const nonces: Buffer[] = []
    for (let i = 0; i < 1000; i++) {
      const n = newNonce()
      expect(n.length).toBe(NONCE_BYTES)
      seen.add(n.toString('hex'))
      nonces.push(n)
    }
    expect(seen.size).toBe(1000)
    const copy = Buffer.from(nonces[0] ?? Buffer.alloc(0))
    for (let i = 0; i < 600; i++) newNonce() // refills the pool more than once
    expect(nonces[0]).toEqual(copy)
  })
})
