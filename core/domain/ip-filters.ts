import { BlockList, isIP } from 'node:net'
import type { IpFilters } from './company.js'

export type IpFilterProblem = 'address' | 'range'

function family (ip: string): 'ipv4' | 'ipv6' | undefined {
  const f = isIP(ip)
  return f === 4 ? 'ipv4' : f === 6 ? 'ipv6' : undefined
}

/**
 * Checks a filters object (docs/api.md#users-and-companies edit): every address must be an IPv4 or IPv6 address;
 * a range needs both ends, of one family, with start not greater than end.
 */
export function ipFiltersProblem (f: IpFilters): IpFilterProblem | undefined {
  const { startIPAddress: start, endIPAddress: end } = f
  for (const ip of [...f.ipAddresses, start, end]) {
    if (ip !== null && family(ip) === undefined) return 'address'
  }
  if ((start === null) !== (end === null)) return 'range'
  if (start !== null && end !== null) {
    const fam = family(start)
    if (fam === undefined || fam !== family(end)) return 'range'
    try { new BlockList().addRange(start, end, fam) } catch { return 'range' } // throws when start > end
  }
  return undefined
}

export function hasFilters (f: IpFilters): boolean {
  return f.ipAddresses.length > 0 || (f.startIPAddress !== null && f.endIPAddress !== null)
}

/** Whether ip is one of the listed addresses or inside the range. */
export function ipAllowed (f: IpFilters, ip: string): boolean {
  const plain = ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip
  const fam = family(plain)
  if (fam === undefined) return false
  const list = new BlockList()
  for (const a of f.ipAddresses) {
    const af = family(a)
    if (af !== undefined) list.addAddress(a, af)
  }
  if (f.startIPAddress !== null && f.endIPAddress !== null && ipFiltersProblem(f) === undefined) {
    list.addRange(f.startIPAddress, f.endIPAddress, family(f.startIPAddress))
  }
  return list.check(plain, fam)
}
