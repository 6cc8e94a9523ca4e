// The hello messages: ClientHello (RFC 5246 §7.4.1.2 with the cookie of RFC 6347 §4.2.1), HelloVerifyRequest
// (RFC 6347 §4.2.1) and ServerHello (RFC 5246 §7.4.1.3), with their extensions (RFC 5246 §7.4.1.4). Parsers never
// throw; encoders take what our side sends.
import { asBuffer, Reader, u16, u8, vec16, vec8 } from './bytes.js'
import { DTLS_1_0, MAX_COOKIE } from './constants.js'

export interface ClientHello {
  version: number
  random: Buffer
  sessionId: Buffer
  cookie: Buffer
  cipherSuites: number[]
  compressions: number[]
  /** Extension type → its data; a type sent twice is refused (RFC 5246 §7.4.1.4). */
  extensions: Map<number, Buffer>
}

export interface ServerHello {
  version: number
  random: Buffer
  sessionId: Buffer
  cipherSuite: number
  compression: number
  extensions: Map<number, Buffer>
}

export type Parsed<T> = { ok: true, value: T } | { ok: false, reason: string }

function readExtensions (r: Reader): Map<number, Buffer> | undefined {
  const out = new Map<number, Buffer>()
  if (r.remaining === 0) return out // RFC 5246 §7.4.1.2: the extensions block may be absent
  const block = new Reader(r.vec16())
  while (block.remaining > 0 && !block.failed) {
    const type = block.u16()
    const data = block.vec16()
    if (out.has(type)) return undefined
    out.set(type, data)
  }
  return block.failed ? undefined : out
}

function writeExtensions (extensions: Map<number, Buffer>): Buffer {
  if (extensions.size === 0) return Buffer.alloc(0)
  return vec16(Buffer.concat([...extensions].map(([type, data]) => Buffer.concat([u16(type), vec16(data)]))))
}

function listOf (bytes: Buffer, width: 1 | 2): number[] {
  const out: number[] = []
  for (let i = 0; i + width <= bytes.length; i += width) out.push(width === 1 ? bytes[i] ?? 0 : bytes.readUInt16BE(i))
  return out
}

export function parseClientHello (body: Uint8Array): Parsed<ClientHello> {
  const r = new Reader(asBuffer(body))
  const version = r.u16()
  const random = r.bytes(32)
  const sessionId = r.vec8()
  const cookie = r.vec8()
  const suites = r.vec16()
  const compressions = r.vec8()
  if (r.failed) return { ok: false, reason: 'dtls.hello.truncated' }
  const extensions = readExtensions(r)
  if (extensions === undefined || !r.done) return { ok: false, reason: 'dtls.hello.extensions' }
  if (sessionId.length > 32 || suites.length < 2 || suites.length % 2 !== 0 || compressions.length < 1) {
    return { ok: false, reason: 'dtls.hello.invalid' }
  }
  return {
    ok: true,
    value: { version, random, sessionId, cookie, cipherSuites: listOf(suites, 2), compressions: listOf(compressions, 1), extensions }
  }
}

export function encodeClientHello (h: ClientHello): Buffer {
  return Buffer.concat([
    u16(h.version), h.random, vec8(h.sessionId), vec8(h.cookie),
    vec16(Buffer.concat(h.cipherSuites.map(u16))), vec8(Buffer.from(h.compressions)), writeExtensions(h.extensions)
  ])
}

export function parseServerHello (body: Uint8Array): Parsed<ServerHello> {
  const r = new Reader(asBuffer(body))
  const version = r.u16()
  const random = r.bytes(32)
  const sessionId = r.vec8()
  const cipherSuite = r.u16()
  const compression = r.u8()
  if (r.failed || sessionId.length > 32) return { ok: false, reason: 'dtls.hello.truncated' }
  const extensions = readExtensions(r)
  if (extensions === undefined || !r.done) return { ok: false, reason: 'dtls.hello.extensions' }
  return { ok: true, value: { version, random, sessionId, cipherSuite, compression, extensions } }
}

export function encodeServerHello (h: ServerHello): Buffer {
  return Buffer.concat([
    u16(h.version), h.random, vec8(h.sessionId), u16(h.cipherSuite), u8(h.compression), writeExtensions(h.extensions)
  ])
}

/** RFC 6347 §4.2.1: server_version DTLS 1.0 whatever is negotiated later, then the cookie. */
export function encodeHelloVerifyRequest (cookie: Buffer): Buffer {
  return Buffer.concat([u16(DTLS_1_0), vec8(cookie)])
}

export function parseHelloVerifyRequest (body: Uint8Array): Parsed<{ version: number, cookie: Buffer }> {
  const r = new Reader(asBuffer(body))
  const version = r.u16()
  const cookie = r.vec8()
  if (!r.done || cookie.length > MAX_COOKIE) return { ok: false, reason: 'dtls.hello.verify.invalid' }
  return { ok: true, value: { version, cookie } }
}
