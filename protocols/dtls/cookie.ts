// Stateless cookies for HelloVerifyRequest (RFC 6347 §4.2.1): HMAC-SHA256 over the client's address and port and
// the ClientHello's parameters, keyed by a secret that rotates; the previous secret still verifies, so a cookie
// issued just before a rotation stays good for one more period. Nothing is stored per client.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { u16, vec16, vec8 } from './bytes.js'
import type { ClientHello } from './hello.js'

export interface CookieOptions {
  /** How often the secret changes (default 5 minutes); a cookie verifies for one to two periods. */
  rotateMs?: number
  now?: () => number
}

export interface Peer { address: string, port: number }

export class CookieIssuer {
  #current = randomBytes(32)
  #previous = randomBytes(32)
  #rotatedAt: number
  readonly #rotateMs: number
  readonly #now: () => number

  constructor (options: CookieOptions = {}) {
    this.#rotateMs = options.rotateMs ?? 300_000
    this.#now = options.now ?? Date.now
    this.#rotatedAt = this.#now()
  }

  /** The cookie for this client and these hello parameters. */
  issue (peer: Peer, hello: ClientHello): Buffer {
    this.#rotate()
    return mac(this.#current, peer, hello)
  }

  /** Whether the hello's cookie was issued by this issuer (current or previous secret) for this client and hello. */
  verify (peer: Peer, hello: ClientHello): boolean {
    this.#rotate()
    if (hello.cookie.length !== 32) return false
    return timingSafeEqual(hello.cookie, mac(this.#current, peer, hello)) ||
      timingSafeEqual(hello.cookie, mac(this.#previous, peer, hello))
  }

  #rotate (): void {
    const elapsed = this.#now() - this.#rotatedAt
    if (elapsed < this.#rotateMs) return
    // Two periods or more without a rotation: the old current secret is too old to honour as well.
    this.#previous = elapsed >= 2 * this.#rotateMs ? randomBytes(32) : this.#current
    this.#current = randomBytes(32)
    this.#rotatedAt = this.#now()
  }

  toString (): string { return 'CookieIssuer' }
}

/** The fields the client must repeat unchanged in its second ClientHello (RFC 6347 §4.2.1), all but the cookie. */
function mac (secret: Buffer, peer: Peer, hello: ClientHello): Buffer {
  return createHmac('sha256', secret)
    .update(vec8(Buffer.from(peer.address, 'utf8')))
    .update(u16(peer.port))
    .update(u16(hello.version))
    .update(hello.random)
    .update(vec8(hello.sessionId))
    .update(vec16(Buffer.from(hello.cipherSuites.flatMap((s) => [s >> 8, s & 0xff]))))
    .update(vec8(Buffer.from(hello.compressions)))
    .digest()
}
