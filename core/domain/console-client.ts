// The web console signs in with the service's own OAuth 2: the authorization_code grant with PKCE, as a
// public client (no secret: a page cannot keep one). The client exists in every store (bootstrap.service.ts).
import { isIP } from 'node:net'
import { hostname } from 'node:os'
import { plainAddress } from './trusted-proxies.js'

export const CONSOLE_CLIENT_ID = 'fleet-console'
export const CONSOLE_PATH = '/console/'

/** Where a request came in: what the console's address may be taken from when PUBLIC_URL is not set. */
export interface Listener {
  /** The Host header as the browser sent it. */
  host: string | undefined
  /** The local side of the connection: the address and port the service was reached at. */
  localAddress: string | undefined
  localPort: number | undefined
  /** The connection is TLS (HTTPS_PORT): the console's address is then https, its default port 443. */
  secure?: boolean
  /** HTTP_HOST: the address or name the service listens on (0.0.0.0 or :: for all). */
  httpHost: string
}

const HOST = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/i

/**
 * The names this listener answers to: the address the connection came to, `localhost` on a loopback address, the
 * machine's name and HTTP_HOST when it is a name.
 */
function ownNames (l: Listener): Set<string> {
  const local = plainAddress(l.localAddress ?? '').toLowerCase()
  const names = new Set([local, hostname().toLowerCase()])
  if (local === '::1' || local.startsWith('127.')) names.add('localhost')
  if (isIP(l.httpHost) === 0) names.add(l.httpHost.toLowerCase())
  return names
}

/**
 * The console's origin: PUBLIC_URL (the address users reach the service at, e.g. behind a TLS proxy); without it,
 * `http://<Host>` (`https://` on the HTTPS port) only when the Host header names this very listener (its address or
 * port as connected to, or one of the machine's names). Never the Host header alone: a browser sent to the service
 * with `Host: evil.test` would otherwise have its code sent to evil.test. The scheme is the connection's, never a
 * header's: the console opened over HTTPS sends an https redirect URI, and one over HTTP an http one. Undefined: the
 * console cannot sign in through this request.
 */
export function consoleBase (publicUrl: string | undefined, l: Listener): string | undefined {
  if (publicUrl !== undefined) return publicUrl
  const m = HOST.exec(l.host ?? '')
  if (m === null || l.localPort === undefined) return undefined
  const secure = l.secure === true
  const [, name = '', port = secure ? '443' : '80'] = m
  if (Number(port) !== l.localPort || !ownNames(l).has(name.replace(/^\[|\]$/g, '').toLowerCase())) return undefined
  return `${secure ? 'https' : 'http'}://${l.host ?? ''}`
}

/**
 * The console client's only redirect URI: the console's own address, `<base>/console/` (consoleBase). Computed per
 * request rather than stored, so the same store serves the console under every address it may be reached at.
 */
export function consoleRedirectUri (base: string): string {
  // Relative: a PUBLIC_URL with a path (a proxy serving the service under /fleet/) keeps it.
  return new URL(CONSOLE_PATH.slice(1), base.endsWith('/') ? base : `${base}/`).toString()
}
