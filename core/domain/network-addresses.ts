// Which addresses the service may be made to connect to on a user's word: the host of an operation callback
// (storage/notify/http-callback.ts) and an AirLink gateway's MSCI host (ingest/msci/host-guard.ts). Both take an
// address from a user of a company and send it something (an event, the gateway's stored credentials), so an
// address inside the service's own machine or cloud must never be one of them. Every form of an address is
// classified by the address it reaches: ::ffff:a.b.c.d, NAT64 64:ff9b::/96 and 6to4 2002::/16 by their IPv4.
import { BlockList, isIP } from 'node:net'

type Range = readonly [string, number]

function blockList (v4: readonly Range[], v6: readonly Range[]): BlockList {
  const list = new BlockList()
  for (const [net, prefix] of v4) list.addSubnet(net, prefix, 'ipv4')
  for (const [net, prefix] of v6) list.addSubnet(net, prefix, 'ipv6')
  return list
}

// The machine itself, its link, the cloud's instance metadata (AWS, GCP and Azure at 169.254.169.254 inside the
// link-local range; AWS's IPv6 fd00:ec2::254; Alibaba's 100.100.100.200), and what is no single host (unspecified,
// multicast, broadcast). ::/96 holds ::, ::1 and the deprecated IPv4-compatible forms. Only the metadata addresses
// themselves, not the CGNAT and unique-local ranges around them: cellular gateways live there.
const LOOPBACK = blockList([['127.0.0.0', 8]], [['::1', 128]])
const INTERNAL = blockList(
  [['0.0.0.0', 8], ['169.254.0.0', 16], ['100.100.100.200', 32], ['224.0.0.0', 4], ['255.255.255.255', 32]],
  [['::', 96], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8], ['fd00:ec2::254', 128]]
)

// Everything that is not a public host: the above with private (RFC 1918, unique-local), CGNAT, benchmarking and
// reserved ranges; the local-use NAT64 prefix 64:ff9b:1::/48 (RFC 8215: it translates into the operator's own
// networks) and Teredo 2001::/32 (a tunnel whose far end an address does not show).
const NOT_PUBLIC = blockList(
  [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
    ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]],
  [['::', 96], ['100::', 64], ['64:ff9b:1::', 48], ['2001::', 32], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8]]
)

/** The eight 16-bit words of an IPv6 address, or undefined when it is not one. */
function ipv6Words (address: string): number[] | undefined {
  if (isIP(address) !== 6) return undefined
  let text = address
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1]
  if (dotted !== undefined) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted.split('.').map(Number)
    text = text.slice(0, -dotted.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head = '', tail] = text.split('::')
  const parse = (s: string): number[] => s === '' ? [] : s.split(':').map((w) => parseInt(w, 16))
  const left = parse(head)
  const right = tail === undefined ? [] : parse(tail)
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right]
}

const v4 = (hi: number, lo: number): string => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`

/** IPv4 addresses carried inside an IPv6 address (NAT64 64:ff9b::/96, 6to4 2002::/16, ::ffff:0:a.b.c.d). */
function embeddedIpv4 (w: number[]): string | undefined {
  const [w0, w1, w2, w3, w4, w5, w6 = 0, w7 = 0] = w
  if (w0 === 0x64 && w1 === 0xff9b && w2 === 0 && w3 === 0 && w4 === 0 && w5 === 0) return v4(w6, w7)
  if (w0 === 0x2002) return v4(w1 ?? 0, w2 ?? 0)
  if (w0 === 0 && w1 === 0 && w2 === 0 && w3 === 0 && w4 === 0xffff && w5 === 0) return v4(w6, w7)
  return undefined
}

/** Whether the address, in any of its forms, is in the list; anything that is no IP address is. */
function listed (list: BlockList, address: string): boolean {
  const bare = address.replace(/%.*$/, '') // a zone id (fe80::1%eth0) only names the interface
  const family = isIP(bare)
  if (family === 0) return true
  if (family === 4) return list.check(bare, 'ipv4')
  if (list.check(bare, 'ipv6')) return true
  const words = ipv6Words(bare)
  const inner = words === undefined ? undefined : embeddedIpv4(words)
  return inner !== undefined && list.check(inner, 'ipv4')
}

/** True for loopback, unspecified, link-local, private, CGNAT, multicast and reserved addresses, in any form. */
export const isForbiddenAddress = (address: string): boolean => listed(NOT_PUBLIC, address)

/**
 * What an address inside the service's own reach is: `loopback` (this machine), `internal` (link-local, cloud
 * metadata, unspecified, multicast, broadcast; and anything that is no IP address), undefined for any other host.
 */
export function internalAddress (address: string): 'loopback' | 'internal' | undefined {
  if (isIP(address.replace(/%.*$/, '')) === 0) return 'internal'
  if (listed(INTERNAL, address)) return 'internal'
  return listed(LOOPBACK, address) ? 'loopback' : undefined
}

/** `a.b.c.d`, `a.b.c.d/n`, `v6` or `v6/n` as a list to check addresses against; undefined when one is none. */
export function networkList (cidrs: readonly string[]): BlockList | undefined {
  const list = new BlockList()
  for (const c of cidrs) {
    const [ip = '', bits, ...rest] = c.split('/')
    const family = isIP(ip)
    const max = family === 6 ? 128 : 32
    if (family === 0 || rest.length > 0 || (bits !== undefined && (!/^\d+$/.test(bits) || Number(bits) > max))) return undefined
    const type = family === 6 ? 'ipv6' : 'ipv4'
    if (bits === undefined) list.addAddress(ip, type)
    else list.addSubnet(ip, Number(bits), type)
  }
  return list
}

/** Whether the address (an IPv4-mapped IPv6 address as its IPv4) is in the list. */
export function inNetworks (list: BlockList, address: string): boolean {
  const plain = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address
  const family = isIP(plain)
  return family !== 0 && list.check(plain, family === 6 ? 'ipv6' : 'ipv4')
}
