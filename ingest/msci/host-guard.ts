// Where a poll may go (docs/protocols/msci.md): a company user sets a gateway's host, and the poll sends
// it the gateway's stored credentials (an AceManager login, an SNMP community), so a host must never lead the
// service to itself, its link or its cloud's metadata. The name is resolved here, every address it has is checked,
// and the poll connects to the checked address itself, so no second answer of the DNS can send it elsewhere.
// Refused always: link-local (with the cloud metadata addresses), unspecified, multicast, broadcast. Loopback only
// when MSCI_ALLOWED_NETWORKS names a loopback network itself (a simulator on the same machine, the tests); when
// MSCI_ALLOWED_NETWORKS is set, an address outside it is refused too.
import { promises as dns, type LookupAddress } from 'node:dns'
import { isIP } from 'node:net'
import { inNetworks, internalAddress, networkList } from '../../core/domain/network-addresses.js'

export type HostCheck = { ok: true, address: string } | { ok: false, reason: 'msci.host.forbidden' | 'unreachable' }

export interface HostGuard {
  /** The address to connect to for this host, or why there is none. Never throws. */
  resolve (host: string): Promise<HostCheck>
}

export interface HostGuardOptions {
  /** MSCI_ALLOWED_NETWORKS: addresses or CIDR ranges; undefined: any address that is not refused always. */
  allowed: readonly string[] | undefined
  /** Bound on the name's resolution. */
  timeoutMs: number
  /** All addresses of a name; defaults to dns.lookup. */
  lookup?: (host: string) => Promise<LookupAddress[]>
}

async function addressesOf (host: string, lookup: (host: string) => Promise<LookupAddress[]>, timeoutMs: number): Promise<string[] | undefined> {
  if (isIP(host) !== 0) return [host]
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<undefined>((resolve) => { timer = setTimeout(() => { resolve(undefined) }, timeoutMs) })
  try {
    const found = await Promise.race([lookup(host), late])
    return found?.map((a) => a.address)
  } catch {
    return undefined
  } finally {
    clearTimeout(timer)
  }
}

export function createHostGuard (opts: HostGuardOptions): HostGuard {
  const lookup = opts.lookup ?? ((host: string) => dns.lookup(host, { all: true }))
  const allowed = opts.allowed === undefined ? undefined : networkList(opts.allowed)
  // Only a loopback network named as such admits loopback: 0.0.0.0/0 or ::/0 does not.
  const loopback = networkList((opts.allowed ?? []).filter((c) => internalAddress(c.split('/')[0] ?? '') === 'loopback'))
  const admitted = (address: string): boolean => {
    const kind = internalAddress(address)
    if (kind === 'internal') return false
    if (kind === 'loopback') return loopback !== undefined && inNetworks(loopback, address)
    return allowed === undefined || inNetworks(allowed, address)
  }
  return {
    async resolve (host) {
      const addresses = await addressesOf(host, lookup, opts.timeoutMs)
      if (addresses === undefined || addresses.length === 0) return { ok: false, reason: 'unreachable' }
      if (!addresses.every(admitted)) return { ok: false, reason: 'msci.host.forbidden' }
      return { ok: true, address: addresses[0] as string }
    }
  }
}
