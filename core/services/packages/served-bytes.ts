// The bytes served through download links (docs/packages.md#downloads): counted as they are sent, as a Prometheus
// counter at once and in the store in batches, at most one write per interval whatever the number of downloads.
import type { Logger } from '../../logger.js'
import type { MetricsRegistry } from '../../metrics.js'
import type { PackageDownloadsRepository, ServedBytes } from '../../ports/package-downloads.js'

const FLUSH_MS = 1000

export interface ServedBytesDeps {
  downloads: Pick<PackageDownloadsRepository, 'addServed'>
  log: Logger
  metrics?: MetricsRegistry
  flushMs?: number
}

export function createServedBytes (deps: ServedBytesDeps) {
  const flushMs = deps.flushMs ?? FLUSH_MS
  const total = deps.metrics?.counter({ name: 'fleet_package_download_bytes_total', help: 'Bytes of packages sent to devices through download links' })
  let pending = new Map<string, ServedBytes>()
  let timer: NodeJS.Timeout | undefined
  let writing: Promise<void> | undefined

  const write = async (): Promise<void> => {
    timer = undefined
    if (pending.size === 0) return
    const batch = pending
    pending = new Map()
    try {
      await deps.downloads.addServed([...batch.values()])
    } catch (err) {
      // Kept for the next write: a store that is back counts them then.
      for (const s of batch.values()) add(s.tokenSha256, s.bytes, s.first, s.last)
      deps.log.warn({ err }, 'bytes served by package downloads not written')
    }
  }
  const flush = async (): Promise<void> => {
    if (timer !== undefined) clearTimeout(timer)
    await writing
    writing = write()
    await writing
  }
  function add (tokenSha256: string, bytes: number, first: number, last = first): void {
    const s = pending.get(tokenSha256)
    if (s === undefined) pending.set(tokenSha256, { tokenSha256, bytes, first, last })
    else {
      s.bytes += bytes
      s.first = Math.min(s.first, first)
      s.last = Math.max(s.last, last)
    }
    if (timer === undefined) {
      timer = setTimeout(() => { flush().catch(() => {}) }, flushMs)
      timer.unref()
    }
  }
  return {
    /** Bytes of one link sent at `at` (epoch ms). */
    add (tokenSha256: string, bytes: number, at: number): void {
      total?.inc(undefined, bytes)
      add(tokenSha256, bytes, at)
    },
    flush
  }
}
