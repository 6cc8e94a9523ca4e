// Download links of install tasks (docs/packages.md#downloads): an unguessable URL per task and binary, valid until
// the operation's timeout, that agents fetch with a plain GET and no header. The token is 32 random bytes; the store
// keeps only its SHA-256, so neither a copy of the table nor a log of its rows gives anybody a working link.
import { createHash, randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import type { PortOrOff } from '../../config.js'
import type { Logger } from '../../logger.js'
import type { MetricsRegistry } from '../../metrics.js'
import type { DownloadLinkInput, PackageDownload, PackageDownloadsRepository } from '../../ports/package-downloads.js'
import { createServedBytes } from './served-bytes.js'

export const DOWNLOAD_PATH = '/device/packages/'

const TOKEN = /^[A-Za-z0-9_-]{43}$/

/** A link found by its token: the row, and the hash that names it. */
export interface ResolvedDownload extends PackageDownload { tokenSha256: string }

export interface DownloadLinksDeps {
  downloads: PackageDownloadsRepository
  /** PUBLIC_URL: the address devices reach the service at; absent, the listener's (see base below). */
  publicUrl: string | undefined
  /** HTTP_HOST and HTTP_PORT: the listener's address until listening() says which port was bound. */
  httpHost: string
  httpPort: number
  /** `https` when the links name the HTTPS listener (HTTP_PORT=off: docs/security.md#tls); default `http`. */
  scheme?: 'http' | 'https'
  now: () => number
  log: Logger
  metrics?: MetricsRegistry
  /** How long served bytes wait before they are written (default 1 s). */
  flushMs?: number
}

/** The listener the links name before the service is bound: HTTP_PORT, or HTTPS_PORT when HTTP_PORT is off. */
export function downloadListener (config: { HTTP_PORT: PortOrOff, HTTPS_PORT: number }): { httpPort: number, scheme: 'http' | 'https' } {
  return config.HTTP_PORT === 'off' ? { httpPort: config.HTTPS_PORT, scheme: 'https' } : { httpPort: config.HTTP_PORT, scheme: 'http' }
}

const tokenHash = (token: string): string => createHash('sha256').update(token).digest('hex')

/** `http://<address>:<port>` of a listener: its own address, or the machine's name when it listens on all of them. */
function listenerBase (scheme: string, host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' || host === '' ? hostname() : host
  return `${scheme}://${name.includes(':') ? `[${name}]` : name}:${port}`
}

export function createDownloadLinks (deps: DownloadLinksDeps) {
  let host = deps.httpHost
  let port = deps.httpPort
  let scheme = deps.scheme ?? 'http'
  const base = (): string => (deps.publicUrl ?? listenerBase(scheme, host, port)).replace(/\/+$/, '')
  const served = createServedBytes({ downloads: deps.downloads, log: deps.log, metrics: deps.metrics, flushMs: deps.flushMs })
  return {
    /**
     * Makes the link of one binary for one task and answers its URL. `downloads`: the repository of the caller's
     * transaction when the link is made with the task (it then goes if the task is rolled back).
     */
    async link (input: DownloadLinkInput, downloads: PackageDownloadsRepository = deps.downloads): Promise<string> {
      const token = randomBytes(32).toString('base64url')
      await downloads.insert(tokenHash(token), input, deps.now())
      return `${base()}${DOWNLOAD_PATH}${token}`
    },
    /** The link of a token while it is valid at `now`; undefined for a malformed, unknown, removed or expired one. */
    async resolve (token: string, now = deps.now()): Promise<ResolvedDownload | undefined> {
      if (!TOKEN.test(token)) return undefined
      const hash = tokenHash(token)
      const found = await deps.downloads.find(hash)
      if (found === undefined || found.expiresAt < now) return undefined
      return { ...found, tokenSha256: hash }
    },
    /** Counts bytes sent through a link (written in batches, never per piece: served-bytes.ts). */
    served (tokenSha256: string, bytes: number, at = deps.now()): void { served.add(tokenSha256, bytes, at) },
    /** Removes the links of these tasks (an install cancelled or over): they answer 404 from now on. */
    async revoke (taskUids: readonly string[]): Promise<number> { return await deps.downloads.removeForTasks(taskUids) },
    /** Removes the links that expired before `before`. */
    async removeExpired (before: number): Promise<number> { return await deps.downloads.removeExpired(before) },
    /**
     * The listener once bound (port 0 in tests): the links' address without PUBLIC_URL. The HTTP one when it listens,
     * else the HTTPS one (agents follow the link as given, and a link to a closed port would fail every install).
     */
    listening (boundHost: string, boundPort: number, boundScheme: 'http' | 'https' = 'http'): void {
      host = boundHost
      port = boundPort
      scheme = boundScheme
    },
    /** Writes what was counted and not written yet. */
    flush: served.flush
  }
}

export type DownloadLinks = ReturnType<typeof createDownloadLinks>
