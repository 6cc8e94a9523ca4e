// Known-answer tests of the crypto the record layer and the handshake are built on: the TLS 1.2 PRF with SHA-256,
// AES-CCM with 8-byte tags (RFC 3610 packet vector #1, NIST SP 800-38C example 3, whose 12-byte nonce and 8-byte tag
// are the record layer's shape), and the byte layouts of RFC 4279 §2 and RFC 6655 §3 rebuilt here from the RFC text.
import { describe, expect, it } from 'vitest'
import { ccmOpen, ccmSeal, keyBlock, openFragment, prf, pskPremaster, sealFragment } from '../../../protocols/dtls/index.js'

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex')

describe('TLS 1.2 PRF with SHA-256 (RFC 5246 §5)', () => {
  it('gives the published 100 bytes for secret 9bbe…, seed a0ba…, label "test label"', () => {
    // The full value was checked against `openssl kdf -keylen 100 -kdfopt digest:SHA256 … TLS1-PRF` (label in the
    // seed there) and an inline HMAC computation; both agree with the published prefix e3f229ba727be17b….
    const out = prf(hex('9bbe436ba940f017b17652849a71db35'), 'test label', hex('a0ba9f936cda311827a6f796ffd5198c'), 100)
    expect(out.toString('hex')).toBe(
      'e3f229ba727be17b8d122620557cd453c2aab21d07c3d495329b52d4e61edb5a6b301791e90d35c9c9a46b4e14baf9af' +
      '0fa022f7077def17abfd3797c0564bab4fbc91666e9def9b97fce34f796789baa48082d122ee42c5a72e5a5110fff7' +
      '0187347b66')
  })

  it('gives a prefix of the longer output for a shorter length', () => {
    const secret = hex('0102')
    expect(prf(secret, 'x', hex('03'), 20)).toEqual(prf(secret, 'x', hex('03'), 70).subarray(0, 20))
  })
})

describe('AES-128-CCM with an 8-byte tag', () => {
  it('RFC 3610 packet vector #1 (13-byte nonce, 8 bytes of header as AAD)', () => {
    const key = hex('c0c1c2c3c4c5c6c7c8c9cacbcccdcecf')
    const nonce = hex('00000003020100a0a1a2a3a4a5')
    const aad = hex('0001020304050607')
    const plain = hex('08090a0b0c0d0e0f101112131415161718191a1b1c1d1e')
    const sealed = ccmSeal(key, nonce, aad, plain)
    expect(sealed.toString('hex')).toBe('588c979a61c663d2f066d0c2c0f989806d5f6b61dac384' + '17e8d12cfdf926e0')
    expect(ccmOpen(key, nonce, aad, sealed)).toEqual(plain)
  })

  it('NIST SP 800-38C example 3 (12-byte nonce, 8-byte tag)', () => {
    const key = hex('404142434445464748494a4b4c4d4e4f')
    const nonce = hex('101112131415161718191a1b')
    const aad = hex('000102030405060708090a0b0c0d0e0f10111213')
    const plain = hex('202122232425262728292a2b2c2d2e2f3031323334353637')
    const sealed = ccmSeal(key, nonce, aad, plain)
    expect(sealed.toString('hex')).toBe('e3b201a9f5b71a7a9b1ceaeccd97e70b6176aad9a4428aa5' + '484392fbc1b09951')
    expect(ccmOpen(key, nonce, aad, sealed)).toEqual(plain)
  })

  it('refuses a flipped bit anywhere: ciphertext, tag, AAD or nonce', () => {
    const key = hex('404142434445464748494a4b4c4d4e4f')
    const nonce = hex('101112131415161718191a1b')
    const aad = hex('0001')
    const sealed = ccmSeal(key, nonce, aad, Buffer.from('payload'))
    for (let i = 0; i < sealed.length; i++) {
      const bad = Buffer.from(sealed)
      bad[i] = (bad[i] ?? 0) ^ 1
      expect(ccmOpen(key, nonce, aad, bad)).toBeUndefined()
    }
    expect(ccmOpen(key, nonce, hex('0002'), sealed)).toBeUndefined()
    expect(ccmOpen(key, hex('101112131415161718191a1c'), aad, sealed)).toBeUndefined()
    expect(ccmOpen(key, nonce, aad, sealed.subarray(0, 7))).toBeUndefined()
  })
})

describe('record protection layout (RFC 6655 §3, RFC 6347 §4.1.2.1)', () => {
  const keys = { key: hex('000102030405060708090a0b0c0d0e0f'), salt: hex('a0a1a2a3') }
  const header = { type: 23, version: 0xfefd, epoch: 1, seq: 0x0000_0102_0304 }

  it('is explicit nonce (epoch ‖ seq) ‖ CCM(salt ‖ explicit, AAD = epoch ‖ seq ‖ type ‖ version ‖ length)', () => {
    const plain = Buffer.from('hello coap')
    const explicit = hex('0001 000001020304')
    const aad = Buffer.concat([explicit, hex('17 fefd'), hex('000a')])
    const expected = Buffer.concat([explicit, ccmSeal(keys.key, Buffer.concat([keys.salt, explicit]), aad, plain)])
    const sealed = sealFragment(keys, header, plain)
    expect(sealed).toEqual(expected)
    expect(sealed.length).toBe(8 + plain.length + 8)
    expect(openFragment(keys, header, sealed)).toEqual(plain)
  })

  it('does not open under another header (the AAD binds type, version, epoch and sequence number)', () => {
    const sealed = sealFragment(keys, header, Buffer.from('x'))
    expect(openFragment(keys, { ...header, type: 22 }, sealed)).toBeUndefined()
    expect(openFragment(keys, { ...header, seq: header.seq + 1 }, sealed)).toBeUndefined()
    expect(openFragment(keys, { ...header, version: 0xfeff }, sealed)).toBeUndefined()
    expect(openFragment(keys, header, sealed.subarray(0, 15))).toBeUndefined()
  })
})

describe('key schedule layouts', () => {
  it('PSK premaster secret is uint16 N, N zeros, uint16 N, psk (RFC 4279 §2)', () => {
    expect(pskPremaster(hex('aabbcc')).toString('hex')).toBe('0003' + '000000' + '0003' + 'aabbcc')
  })

  it('key block is 40 bytes of PRF "key expansion" over server_random ‖ client_random, split 16/16/4/4', () => {
    const master = Buffer.alloc(48, 7)
    const cr = Buffer.alloc(32, 1)
    const sr = Buffer.alloc(32, 2)
    const block = prf(master, 'key expansion', Buffer.concat([sr, cr]), 40)
    const kb = keyBlock(master, cr, sr)
    expect(Buffer.concat([kb.client.key, kb.server.key, kb.client.salt, kb.server.salt])).toEqual(block)
  })
})
