import { BlockList, isIP } from 'node:net'

// TRUST_PROXY (docs/security.md#behind-a-proxy): the proxies whose word on the client's address is believed. A list is
// turned into a BlockList once; the configuration's list is one frozen array for the process's life.
const built = new WeakMap<readonly string[], BlockList>()

function blockList (list: readonly string[]): BlockList {
  let b = built.get(list)
  if (b !== undefined) return b
  b = new BlockList()
  for (const entry of list) {
    const [ip = '', bits] = entry.split('/')
    const family = isIP(ip)
    if (family === 0) continue // config.ts refuses such entries; a hand-made list just does not trust them
    const type = family === 6 ? 'ipv6' : 'ipv4'
    if (bits === undefined) b.addAddress(ip, type)
    else b.addSubnet(ip, Number(bits), type)
  }
  built.set(list, b)
  return b
}

/** An IPv4 address as Node gives it on a dual-stack socket (::ffff:10.0.0.1) is that IPv4 address. */
export function plainAddress (address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address
}

/** Whether address (a socket's remote address) is one of list's addresses or inside one of its CIDR ranges. */
export function isTrustedProxy (address: string | undefined, list: readonly string[]): boolean {
  if (address === undefined || list.length === 0) return false
  const plain = plainAddress(address)
  const family = isIP(plain)
  if (family === 0) return false
  return blockList(list).check(plain, family === 6 ? 'ipv6' : 'ipv4')
}
