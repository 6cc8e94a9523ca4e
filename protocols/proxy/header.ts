// The PROXY protocol header (HAProxy's "PROXY protocol" specification, versions 1 and 2): a reverse proxy that
// forwards a TCP connection writes it first, naming the client it came from. A pure function over the bytes read so
// far: it answers whether they hold a whole header, are the start of one, or cannot be one, and never reads past
// the input.
//
// Version 1, text, at most 107 bytes:   PROXY TCP4 <src> <dst> <srcport> <dstport>\r\n   (TCP6, or UNKNOWN ...\r\n)
// Version 2, binary: the 12-byte signature, version/command, family/transport, a 16-bit length, the addresses
// (IPv4 12 bytes, IPv6 36, UNIX 216) and then type-length-values, which are skipped.

/** The client a header names; absent for a LOCAL (the proxy's own health check), UNKNOWN, UNSPEC or UNIX header. */
export interface ProxiedAddress { address: string, port: number }

export type ProxyHeader =
  | { kind: 'header', version: 1 | 2, /** bytes of the header; the connection's own bytes follow */ length: number, source?: ProxiedAddress }
  | { kind: 'need-more' }
  | { kind: 'invalid', reason: string }

export const V2_SIGNATURE = Uint8Array.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a])
const V1_PREFIX = Uint8Array.from(Buffer.from('PROXY '))
/** The longest version 1 header, CRLF included. */
export const V1_MAX_BYTES = 107

/** Whether buf's first bytes agree with prefix as far as either goes. */
function startsLike (buf: Uint8Array, prefix: Uint8Array): boolean {
  const n = Math.min(buf.length, prefix.length)
  for (let i = 0; i < n; i++) if (buf[i] !== prefix[i]) return false
  return true
}

export function parseProxyHeader (buf: Uint8Array): ProxyHeader {
  if (startsLike(buf, V2_SIGNATURE)) return buf.length < 16 ? { kind: 'need-more' } : parseV2(buf)
  if (startsLike(buf, V1_PREFIX)) return buf.length < V1_PREFIX.length ? { kind: 'need-more' } : parseV1(buf)
  return { kind: 'invalid', reason: 'no PROXY protocol signature' }
}

const u16 = (buf: Uint8Array, at: number): number => ((buf[at] ?? 0) << 8) | (buf[at + 1] ?? 0)

function ipv4 (b: Uint8Array): string { return Array.from(b.subarray(0, 4)).join('.') }

/** RFC 5952's text form: lowercase, the longest run of two or more zero groups as "::", a mapped IPv4 as dotted. */
function ipv6 (b: Uint8Array): string {
  const groups = Array.from({ length: 8 }, (_, i) => u16(b, i * 2))
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) return `::ffff:${ipv4(b.subarray(12, 16))}`
  let best = -1
  let bestLength = 1
  for (let i = 0; i < 8;) {
    let j = i
    while (j < 8 && groups[j] === 0) j++
    if (j - i > bestLength) { best = i; bestLength = j - i }
    i = j === i ? i + 1 : j
  }
  const hex = groups.map((g) => g.toString(16))
  if (best < 0) return hex.join(':')
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLength).join(':')}`
}

function parseV2 (buf: Uint8Array): ProxyHeader {
  const versionCommand = buf[12] ?? 0
  if (versionCommand >> 4 !== 2) return { kind: 'invalid', reason: 'version 2 signature with another version' }
  const command = versionCommand & 0x0f
  if (command > 1) return { kind: 'invalid', reason: 'unknown command' }
  const family = (buf[13] ?? 0) >> 4
  const transport = (buf[13] ?? 0) & 0x0f
  if (family > 3 || transport > 2) return { kind: 'invalid', reason: 'unknown address family or transport' }
  const length = 16 + u16(buf, 14)
  const need = family === 1 ? 12 : family === 2 ? 36 : family === 3 ? 216 : 0
  if (length - 16 < need) return { kind: 'invalid', reason: 'address block shorter than its family' }
  if (buf.length < length) return { kind: 'need-more' }
  // LOCAL: the proxy speaks for itself (a health check), the connection's own endpoints apply. Only stream
  // connections over IPv4 or IPv6 name a client the service can filter on.
  if (command === 0 || transport !== 1 || (family !== 1 && family !== 2)) return { kind: 'header', version: 2, length }
  const block = buf.subarray(16, length)
  const source = family === 1
    ? { address: ipv4(block), port: u16(block, 8) }
    : { address: ipv6(block), port: u16(block, 32) }
  return { kind: 'header', version: 2, length, source }
}

const V1_IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/
const V1_IPV6 = /^[0-9A-Fa-f:.]{2,45}$/
const V1_PORT = /^(?:0|[1-9]\d{0,4})$/

function parseV1 (buf: Uint8Array): ProxyHeader {
  const end = Math.min(buf.length, V1_MAX_BYTES)
  let cr = -1
  for (let i = V1_PREFIX.length; i < end - 1; i++) if (buf[i] === 0x0d && buf[i + 1] === 0x0a) { cr = i; break }
  if (cr < 0) return buf.length >= V1_MAX_BYTES ? { kind: 'invalid', reason: 'version 1 header without CRLF' } : { kind: 'need-more' }
  const length = cr + 2
  for (let i = 0; i < cr; i++) if ((buf[i] ?? 0) < 0x20 || (buf[i] ?? 0) > 0x7e) return { kind: 'invalid', reason: 'version 1 header not printable' }
  const fields = Buffer.from(buf.subarray(V1_PREFIX.length, cr)).toString('latin1').split(' ')
  const [protocol, src = '', dst = '', srcPort = '', dstPort = ''] = fields
  if (protocol === 'UNKNOWN') return { kind: 'header', version: 1, length }
  if ((protocol !== 'TCP4' && protocol !== 'TCP6') || fields.length !== 5) return { kind: 'invalid', reason: 'version 1 header of an unknown form' }
  const source = protocol === 'TCP4' ? (V1_IPV4.test(src) && V1_IPV4.test(dst) ? src : undefined) : v6Text(src, dst)
  if (source === undefined || !V1_PORT.test(srcPort) || !V1_PORT.test(dstPort) || Number(srcPort) > 65535 || Number(dstPort) > 65535) {
    return { kind: 'invalid', reason: 'version 1 header with a bad address or port' }
  }
  return { kind: 'header', version: 1, length, source: { address: source, port: Number(srcPort) } }
}

/** src in RFC 5952's form when both are IPv6 addresses in text (URL's parser is the judge: it throws on others). */
function v6Text (src: string, dst: string): string | undefined {
  const text = (s: string): string | undefined => {
    if (!V1_IPV6.test(s)) return undefined
    let host: string
    try { host = new URL(`http://[${s}]/`).hostname.slice(1, -1) } catch { return undefined }
    // A mapped IPv4 address keeps its dotted form, as Node names such a peer and as version 2 gives it (ipv6()).
    const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host)
    if (mapped === null) return host
    const [hi, lo] = [parseInt(mapped[1] ?? '0', 16), parseInt(mapped[2] ?? '0', 16)]
    return `::ffff:${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`
  }
  return text(dst) === undefined ? undefined : text(src)
}
