// GET and HEAD /device/packages/<token> (docs/packages.md#downloads): the binaries of install tasks, fetched by device
// agents with no header at all. A token that is malformed, unknown, expired or removed answers 404 and serves nothing.
// The bytes stream from the artifact store with backpressure: a client that stops reading stops the reads, and holds
// no more than its socket's buffers and a chunk; each download runs on its own, so a slow one never holds another.
import { pipeline, Transform, type Readable } from 'node:stream'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ArtifactNotFound, type ArtifactStore } from '../../core/ports/artifacts.js'
import { DOWNLOAD_PATH, type DownloadLinks, type ResolvedDownload } from '../../core/services/packages/download-links.js'
import { noneMatch, rangeOf, rangeStillValid } from './byte-range.js'

export interface PackageDownloadRoutesOptions {
  downloads: Pick<DownloadLinks, 'resolve' | 'served'>
  artifacts: Pick<ArtifactStore, 'stat' | 'open'>
}

// A download that moves no byte for this long is closed: a client that stopped reading gives its socket back.
const IDLE_MS = 120_000

interface Params { token: string }

const one = (h: string | string[] | undefined): string | undefined => Array.isArray(h) ? h[0] : h

const notFound = (reply: FastifyReply): FastifyReply => reply.status(404).send({ error: 'not.found', errorParameters: [] })

/** `attachment` with the binary's own name: ASCII for every client, the exact name for those that read RFC 6266. */
function disposition (file: string): string {
  const name = file.split('/').pop() ?? file
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_')
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`
}

/** The stream sent, counting its bytes as they leave; destroyed with the response, it destroys the store's stream. */
function counted (source: Readable, link: ResolvedDownload, downloads: PackageDownloadRoutesOptions['downloads']): Transform {
  const counter = new Transform({
    transform (piece: Buffer, _enc, done) {
      downloads.served(link.tokenSha256, piece.length)
      done(null, piece)
    }
  })
  return pipeline(source, counter, () => {})
}

export default async function packageDownloadRoutes (app: FastifyInstance, opts: PackageDownloadRoutesOptions): Promise<void> {
  const { downloads, artifacts } = opts
  const serve = async (req: FastifyRequest<{ Params: Params }>, reply: FastifyReply): Promise<FastifyReply> => {
    const link = await downloads.resolve(req.params.token)
    const stat = link === undefined ? undefined : await artifacts.stat(link.artifact)
    if (link === undefined || stat === undefined) return notFound(reply)
    const etag = `"${link.artifact}"` // the SHA-256 of the bytes: the same bytes, the same tag, whatever the link
    const common = { etag, 'accept-ranges': 'bytes', 'cache-control': 'private, no-cache' }
    if (noneMatch(one(req.headers['if-none-match']), etag)) return reply.status(304).headers(common).send()
    // Range applies to GET only (RFC 9110 §14.2); under If-Range, only while the tag is still this one.
    const range = req.method === 'GET' && rangeStillValid(one(req.headers['if-range']), etag) ? rangeOf(req.headers.range, stat.size) : { kind: 'whole' as const }
    if (range.kind === 'unsatisfiable') {
      return reply.status(416).headers({ ...common, 'content-range': `bytes */${stat.size}` }).send({ error: 'range.not.satisfiable', errorParameters: [] })
    }
    const part = range.kind === 'partial' ? range.range : undefined
    // Deleted since stat: as unknown as any other.
    const bytes = req.method === 'HEAD'
      ? undefined
      : await artifacts.open(link.artifact, part).catch((err: unknown) => { if (err instanceof ArtifactNotFound) return null; throw err })
    if (bytes === null) return notFound(reply)
    reply.headers({ ...common, 'content-type': 'application/octet-stream', 'content-disposition': disposition(link.file) })
    reply.header('content-length', part === undefined ? stat.size : part.end - part.start + 1)
    if (part !== undefined) reply.status(206).header('content-range', `bytes ${part.start}-${part.end}/${stat.size}`)
    if (bytes === undefined) return reply.send()
    // Until the answer ends; after it, the server's keep-alive timeout takes the socket over.
    req.raw.socket.setTimeout(IDLE_MS)
    return reply.send(counted(bytes, link, downloads))
  }
  const route = { schema: { hide: true }, exposeHeadRoute: false }
  app.get<{ Params: Params }>(`${DOWNLOAD_PATH}:token`, route, serve)
  app.head<{ Params: Params }>(`${DOWNLOAD_PATH}:token`, route, serve)
}
