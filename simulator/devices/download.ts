// How a simulated device fetches a package from its task's link, as the agents of docs/packages.md#installs do: HEAD
// for the size and the tag, then GET, the bytes hashed (MD5 and SHA-256) as they arrive and dropped: a fleet holds
// thousands of devices, and none keeps a package in memory. A cut (a reset connection, a body shorter than announced)
// is resumed with `Range: bytes=<n>-` under `If-Range`, up to `tries` requests; a server that answers the whole body
// again (200) starts the hashes over. Each request takes a slot of a limiter, so that a fleet of 10,000 devices opens
// at most that many sockets for downloads at once.
import { createHash, type Hash } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { createLimiter, DEFAULT_DOWNLOADS, type Limiter } from './limiter.js'

/** Where the bytes go besides the hashes (an update package's Manifest is read on the way); `start` at byte 0. */
export interface ByteSink {
  start (): void
  write (piece: Uint8Array): void
}

export interface DownloadOptions {
  /** Requests in flight across the process (default: a limiter of DEFAULT_DOWNLOADS shared by every device). */
  limiter?: Limiter
  /** Tries before giving up (default 5): each is a GET from where the last one stopped (the first one a HEAD too). */
  tries?: number
  /** Pause between two tries (ms, default 1000). */
  retryDelayMs?: number
  /** Share (0..1) of GETs the device cuts itself at a random byte, to exercise resuming (`--download-cut-rate`). */
  cutRate?: number
  /** Random source in [0, 1) for the cuts (tests pass their own). */
  random?: () => number
  sink?: ByteSink
  signal?: AbortSignal
}

export type DownloadResult =
  | { ok: true, size: number, md5: string, sha256: string, etag: string | undefined, requests: number, resumed: number, filename?: string }
  | { ok: false, message: string, requests: number }

const shared = createLimiter(DEFAULT_DOWNLOADS)

/** What one download has so far: the bytes hashed, how many, what the server said of the whole. */
interface Progress {
  received: number
  total: number | undefined
  etag: string | undefined
  /** The file name of the HEAD's Content-Disposition, when it names one (an LwM2M device takes its version from it). */
  filename?: string
  md5: Hash
  sha256: Hash
  resumed: number
}

class Cut extends Error {}

function restart (p: Progress, sink: ByteSink | undefined): void {
  p.received = 0
  p.md5 = createHash('md5')
  p.sha256 = createHash('sha256')
  sink?.start()
}

const lengthOf = (res: Response): number | undefined => {
  const raw = res.headers.get('content-length')
  const n = raw === null ? Number.NaN : Number(raw)
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined
}

async function head (url: string, p: Progress, signal: AbortSignal | undefined): Promise<void> {
  const res = await fetch(url, { method: 'HEAD', ...(signal === undefined ? {} : { signal }) })
  if (res.status !== 200) throw new Error(`HEAD answered ${res.status}`)
  p.total = lengthOf(res)
  p.etag = res.headers.get('etag') ?? undefined
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1]
  if (name !== undefined) p.filename = name
}

/** Where the answer starts: the resumed offset for a 206 that fits, 0 for a whole body. @throws on anything else */
function startOf (res: Response, p: Progress, sink: ByteSink | undefined): void {
  if (res.status === 206) {
    const m = /^bytes (\d+)-\d+\/(\d+)$/.exec(res.headers.get('content-range') ?? '')
    if (m === null || Number(m[1]) !== p.received) throw new Error(`206 with Content-Range "${res.headers.get('content-range') ?? ''}" for byte ${p.received}`)
    p.total = Number(m[2])
    p.resumed++
    return
  }
  if (res.status !== 200) throw new Error(`GET answered ${res.status}`)
  const etag = res.headers.get('etag') ?? undefined
  if (p.received > 0 || etag !== p.etag) restart(p, sink) // the server sends it all again, or other bytes
  p.etag = etag
  p.total = lengthOf(res)
}

/** The byte after which this GET is cut by the device itself (Infinity: not cut). */
function cutPoint (p: Progress, o: DownloadOptions): number {
  const random = o.random ?? Math.random
  const left = (p.total ?? 0) - p.received
  if (left < 2 || random() >= (o.cutRate ?? 0)) return Infinity
  return p.received + 1 + Math.floor(random() * (left - 1))
}

/** One GET from where the download stands to its end. @throws Cut or the network's error when it stops short */
async function fetchRest (url: string, p: Progress, o: DownloadOptions): Promise<void> {
  const headers: Record<string, string> = p.received === 0 ? {} : { range: `bytes=${p.received}-`, ...(p.etag === undefined ? {} : { 'if-range': p.etag }) }
  const res = await fetch(url, { headers, ...(o.signal === undefined ? {} : { signal: o.signal }) })
  if (res.status === 416 && p.received === p.total) { await res.body?.cancel(); return } // it had every byte
  try { startOf(res, p, o.sink) } catch (err) { await res.body?.cancel(); throw err }
  const cutAt = cutPoint(p, o)
  if (res.body === null) return
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    const piece = p.received + chunk.length > cutAt ? chunk.subarray(0, cutAt - p.received) : chunk
    p.md5.update(piece)
    p.sha256.update(piece)
    o.sink?.write(piece)
    p.received += piece.length
    if (p.received >= cutAt) throw new Cut(`cut by the device at byte ${p.received} (download cut rate)`)
  }
  if (p.total !== undefined && p.received < p.total) throw new Error(`the body ended at byte ${p.received} of ${p.total}`)
}

/** Fetches `url` to its end; answers its size and digests, or why it gave up after `tries` requests. */
export async function download (url: string, o: DownloadOptions = {}): Promise<DownloadResult> {
  const limiter = o.limiter ?? shared
  const tries = o.tries ?? 5
  const p: Progress = { received: 0, total: undefined, etag: undefined, md5: createHash('md5'), sha256: createHash('sha256'), resumed: 0 }
  o.sink?.start()
  let headed = false
  let requests = 0
  let last = ''
  const counted = <T>(fn: () => Promise<T>): Promise<T> => limiter.run(async () => { requests++; return await fn() })
  for (let attempt = 1; attempt <= tries; attempt++) {
    try {
      if (!headed) { await counted(async () => { await head(url, p, o.signal) }); headed = true }
      // A cut's body is left mid-stream: leaving its loop cancels it, and the slot is given back.
      await counted(async () => { await fetchRest(url, p, o) })
      return { ok: true, size: p.received, md5: p.md5.digest('hex'), sha256: p.sha256.digest('hex'), etag: p.etag, requests, resumed: p.resumed, ...(p.filename === undefined ? {} : { filename: p.filename }) }
    } catch (err) {
      if (o.signal?.aborted === true) return { ok: false, message: 'download stopped', requests }
      last = err instanceof Cut ? err.message : `${(err as Error).message}${causeOf(err)}`
    }
    if (attempt < tries) await sleep(o.retryDelayMs ?? 1000, undefined, o.signal === undefined ? {} : { signal: o.signal }).catch(() => {})
  }
  return { ok: false, message: `download failed after ${tries} tries: ${last}`, requests }
}

/** fetch's "fetch failed" / "terminated" say little; their cause says what the network did (ECONNRESET...). */
function causeOf (err: unknown): string {
  const cause = (err as { cause?: { code?: string, message?: string } }).cause
  return cause === undefined ? '' : ` (${cause.code ?? cause.message ?? ''})`
}

export { createLimiter, DEFAULT_DOWNLOADS, type Limiter }
