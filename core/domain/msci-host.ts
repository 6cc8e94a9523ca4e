// The `communication.msci.host` of a system (docs/protocols/msci.md): `host`, `host:port`, `[v6]` or
// `[v6]:port`. Read where a system is written (an address the service must never poll is refused there) and where
// a gateway is polled (ingest/msci/params.ts).
import { isIP } from 'node:net'
import { internalAddress } from './network-addresses.js'

const validPort = (n: number): boolean => Number.isInteger(n) && n >= 1 && n <= 65535

/** `host`, `host:port`, `[v6]` or `[v6]:port`; undefined when it is none of them. */
export function splitHost (text: string): { host: string, port?: number } | undefined {
  const t = text.trim()
  const v6 = /^\[([0-9a-fA-F:.]+)\](?::(\d{1,5}))?$/.exec(t)
  const plain = /^([A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(t)
  const m = v6 ?? plain
  if (m === null) return undefined
  const port = m[2] === undefined ? undefined : Number(m[2])
  if (port !== undefined && !validPort(port)) return undefined
  return { host: m[1] as string, ...(port === undefined ? {} : { port }) }
}

/**
 * Whether a host names an address no configuration lets the service poll (link-local and cloud metadata,
 * unspecified, multicast, broadcast): refused when the system is written. Names and loopback are checked at each
 * poll, once resolved, against MSCI_ALLOWED_NETWORKS (ingest/msci/host-guard.ts).
 */
export function isNeverPolled (host: string): boolean {
  const where = splitHost(host)
  if (where === undefined || isIP(where.host) === 0) return false
  return internalAddress(where.host) === 'internal'
}
