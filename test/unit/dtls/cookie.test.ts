// Stateless HelloVerifyRequest cookies (RFC 6347 §4.2.1): bound to the client's address, port and hello parameters,
// verified without any stored state, and still good one rotation of the secret later.
import { describe, expect, it } from 'vitest'
import { CookieIssuer, type ClientHello } from '../../../protocols/dtls/index.js'

const peer = { address: '198.51.100.7', port: 5683 }

function hello (over: Partial<ClientHello> = {}): ClientHello {
  return {
    version: 0xfefd,
    random: Buffer.alloc(32, 9),
    sessionId: Buffer.alloc(0),
    cookie: Buffer.alloc(0),
    cipherSuites: [0xc0a8],
    compressions: [0],
    extensions: new Map(),
    ...over
  }
}

function clock (): { now: () => number, advance: (ms: number) => void } {
  let t = 1_000_000
  return { now: () => t, advance: (ms) => { t += ms } }
}

describe('CookieIssuer', () => {
  it('verifies its own cookie for the same client and hello, with nothing stored in between', () => {
    const c = new CookieIssuer()
    const cookie = c.issue(peer, hello())
    expect(cookie.length).toBe(32)
    expect(c.verify(peer, hello({ cookie }))).toBe(true)
    // The same inputs give the same cookie: nothing per client is kept, the cookie is recomputed.
    expect(c.issue(peer, hello())).toEqual(cookie)
  })

  it('refuses the cookie from another address or port, or with other hello parameters', () => {
    const c = new CookieIssuer()
    const cookie = c.issue(peer, hello())
    expect(c.verify({ ...peer, address: '198.51.100.8' }, hello({ cookie }))).toBe(false)
    expect(c.verify({ ...peer, port: 5684 }, hello({ cookie }))).toBe(false)
    expect(c.verify(peer, hello({ cookie, random: Buffer.alloc(32, 8) }))).toBe(false)
    expect(c.verify(peer, hello({ cookie, cipherSuites: [0xc0a8, 0x00ff] }))).toBe(false)
    expect(c.verify(peer, hello({ cookie, version: 0xfeff }))).toBe(false)
    expect(c.verify(peer, hello({ cookie, sessionId: Buffer.of(1) }))).toBe(false)
    expect(c.verify(peer, hello({ cookie, compressions: [0, 1] }))).toBe(false)
  })

  it('ignores the extensions (not part of the parameters repeated with the cookie)', () => {
    const c = new CookieIssuer()
    const cookie = c.issue(peer, hello())
    expect(c.verify(peer, hello({ cookie, extensions: new Map([[23, Buffer.alloc(0)]]) }))).toBe(true)
  })

  it('refuses empty, short, forged and other issuers\' cookies', () => {
    const c = new CookieIssuer()
    const cookie = c.issue(peer, hello())
    expect(c.verify(peer, hello())).toBe(false)
    expect(c.verify(peer, hello({ cookie: cookie.subarray(0, 31) }))).toBe(false)
    const forged = Buffer.from(cookie)
    forged[0] = (forged[0] ?? 0) ^ 0x80
    expect(c.verify(peer, hello({ cookie: forged }))).toBe(false)
    expect(new CookieIssuer().verify(peer, hello({ cookie }))).toBe(false)
  })

  it('rotates its secret: a cookie holds through one rotation, not two', () => {
    const t = clock()
    const c = new CookieIssuer({ rotateMs: 1000, now: t.now })
    const cookie = c.issue(peer, hello())
    t.advance(999)
    expect(c.verify(peer, hello({ cookie }))).toBe(true)
    t.advance(1) // rotated: the cookie's secret is now the previous one
    expect(c.verify(peer, hello({ cookie }))).toBe(true)
    const fresh = c.issue(peer, hello())
    expect(fresh).not.toEqual(cookie)
    t.advance(1000) // rotated again: the first secret is gone
    expect(c.verify(peer, hello({ cookie }))).toBe(false)
    expect(c.verify(peer, hello({ cookie: fresh }))).toBe(true)
  })

  it('forgets both secrets after two periods without any use', () => {
    const t = clock()
    const c = new CookieIssuer({ rotateMs: 1000, now: t.now })
    const cookie = c.issue(peer, hello())
    t.advance(2500)
    expect(c.verify(peer, hello({ cookie }))).toBe(false)
  })

  it('shows no secret in its string form', () => {
    const c = new CookieIssuer()
    expect(String(c)).toBe('CookieIssuer')
  })
})
