// A stand-in for the service's download links (docs/packages.md#installs) on 127.0.0.1:0, for the simulator's
// downloader: HEAD answers the size and the tag, GET the bytes or, with `Range: bytes=<n>-` under a matching
// `If-Range`, 206 from n. It can misbehave as networks and servers do: cut the first GETs mid-body (the socket
// destroyed after half of what is left), ignore Range, answer a status, hold every GET until released.
import { createHash } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { listenLocal } from '../../helpers/http-receiver.js'

export interface PackageServerOptions {
  /** GETs cut mid-body, the first ones (default 0). */
  cutGets?: number
  /** Answer 200 with the whole body, whatever Range says. */
  ignoreRange?: boolean
  /** Answer every request with this status and no body. */
  status?: number
  /** The tag served (default the bytes' SHA-256, quoted, as the service tags them). */
  etag?: string
  /** GETs wait for it before answering. */
  hold?: Promise<void>
}

export interface PackageServer {
  url: string
  /** Each request: its method, Range and If-Range. */
  requests: Array<{ method: string, range: string | undefined, ifRange: string | undefined }>
  /** GETs being answered now, and the most at once. */
  readonly inFlight: number
  readonly maxInFlight: number
  close: () => Promise<void>
}

export const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex')
export const md5 = (b: Buffer): string => createHash('md5').update(b).digest('hex')

export async function packageServer (bytes: Buffer, o: PackageServerOptions = {}): Promise<PackageServer> {
  const etag = o.etag ?? `"${sha256(bytes)}"`
  const requests: PackageServer['requests'] = []
  let gets = 0
  let inFlight = 0
  let maxInFlight = 0
  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    requests.push({ method: req.method ?? '', range: req.headers.range, ifRange: req.headers['if-range'] as string | undefined })
    if (o.status !== undefined) { res.writeHead(o.status).end(); return }
    if (req.method === 'HEAD') { res.writeHead(200, { 'content-length': bytes.length, etag, 'accept-ranges': 'bytes' }).end(); return }
    const n = ++gets
    await o.hold
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '')
    const from = m !== null && !o.ignoreRange && req.headers['if-range'] === etag ? Number(m[1]) : 0
    const body = bytes.subarray(from)
    res.writeHead(from > 0 ? 206 : 200, { 'content-length': body.length, etag, ...(from > 0 ? { 'content-range': `bytes ${from}-${bytes.length - 1}/${bytes.length}` } : {}) })
    if (n > (o.cutGets ?? 0)) { res.end(body); return }
    res.write(body.subarray(0, Math.floor(body.length / 2)), () => { res.socket?.destroy() })
  }
  const r = await listenLocal((req, res) => {
    inFlight++
    maxInFlight = Math.max(maxInFlight, inFlight)
    res.on('close', () => { inFlight-- })
    answer(req, res).catch(() => { res.destroy() })
  })
  return {
    url: `http://${r.origin}/device/packages/token`,
    requests,
    get inFlight () { return inFlight },
    get maxInFlight () { return maxInFlight },
    close: r.close
  }
}
