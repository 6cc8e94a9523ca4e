// The artifact store in the database (core/ports/artifacts.ts, ARTIFACT_STORE=database): an artifact's bytes are
// rows of artifact_chunks, its size and digests a row of artifacts (storage/migrations/0032_artifacts_downloads.sql),
// so that every API process of a cluster serves every artifact (docs/decisions/0025-artifact-store.md). The same SQL
// runs on PGlite. Neither direction ever holds more than a chunk or two of an artifact in memory. Bytes cross as base64
// text, not as bytea parameters and columns: 7 times faster into PGlite and about twice out of both engines (the
// figures of the decision).
import { randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import { ArtifactNotFound, type ArtifactInfo, type ArtifactStore, type ByteRange } from '../../core/ports/artifacts.js'
import type { Db } from '../../core/ports/store.js'
import { ARTIFACT_KEY, asBuffer, checkRange, createDigests } from './digests.js'

/** 256 KiB: the figures of docs/decisions/0025-artifact-store.md (a larger chunk was no faster). */
export const DEFAULT_CHUNK_SIZE = 256 * 1024
// Chunks under a partial key this old belong to a put that died with its process (a live one commits or removes them).
const PARTIAL_MAX_AGE_MS = 24 * 3_600_000

export interface DbArtifactsOptions {
  chunkSize?: number
  now?: () => number
}

/** Cuts the bytes that arrive into chunks of exactly `size` (the last one shorter). */
function chunker (size: number): { add: (piece: Buffer) => Buffer[], rest: () => Buffer | undefined } {
  let pieces: Buffer[] = []
  let held = 0
  return {
    add (piece) {
      pieces.push(piece)
      held += piece.length
      if (held < size) return []
      const all = Buffer.concat(pieces, held)
      const out: Buffer[] = []
      let at = 0
      for (; all.length - at >= size; at += size) out.push(all.subarray(at, at + size))
      pieces = at < all.length ? [all.subarray(at)] : []
      held = all.length - at
      return out
    },
    rest: () => held === 0 ? undefined : Buffer.concat(pieces, held)
  }
}

/** Yields the bytes of chunks first..last of `key`, the first and last cut to the range, each read when wanted. */
async function * chunksOf (db: Db, key: string, chunkSize: number, range: ByteRange): AsyncGenerator<Buffer> {
  const first = Math.floor(range.start / chunkSize)
  const last = Math.floor(range.end / chunkSize)
  for (let n = first; n <= last; n++) {
    const from = n === first ? range.start - n * chunkSize : 0
    const to = n === last ? range.end - n * chunkSize : chunkSize - 1
    const { rows } = await db.query<{ b64: string }>(
      "SELECT encode(substring(bytes FROM $3 FOR $4), 'base64') AS b64 FROM artifact_chunks WHERE key = $1 AND n = $2", [key, n, from + 1, to - from + 1])
    const row = rows[0]
    if (row === undefined) throw new ArtifactNotFound(key) // deleted while it was read
    yield Buffer.from(row.b64, 'base64')
  }
}

export function createDbArtifacts (db: Db, opts: DbArtifactsOptions = {}): ArtifactStore {
  const chunkSize = opts.chunkSize ?? DEFAULT_CHUNK_SIZE
  const now = opts.now ?? Date.now
  let swept: Promise<void> | undefined
  const removePartials = async (): Promise<void> => {
    await db.query("DELETE FROM artifact_chunks WHERE key LIKE 'partial:%' AND split_part(key, ':', 2)::bigint < $1", [now() - PARTIAL_MAX_AGE_MS])
  }
  /** Moves the chunks to the artifact's key with its row, in one transaction; the same bytes stored before win. */
  const commit = async (partial: string, info: ArtifactInfo): Promise<void> => {
    await db.transaction(async (tx) => {
      const { rows } = await tx.query(`INSERT INTO artifacts (key, size, sha256, md5, chunk_size, created_at) VALUES ($1, $2, $3, $4, $5, $6)
        ON CONFLICT (key) DO NOTHING RETURNING key`, [info.key, info.size, info.sha256, info.md5, chunkSize, now()])
      if (rows.length === 1) await tx.query('UPDATE artifact_chunks SET key = $1 WHERE key = $2', [info.key, partial])
      else await tx.query('DELETE FROM artifact_chunks WHERE key = $1', [partial])
    })
  }
  return {
    async put (source, putOpts = {}): Promise<ArtifactInfo> {
      swept ??= removePartials().catch(() => {})
      await swept
      const partial = `partial:${now()}:${randomBytes(8).toString('hex')}`
      const digests = createDigests(putOpts.maxBytes)
      const chunks = chunker(chunkSize)
      let n = 0
      const insert = async (bytes: Buffer): Promise<void> => {
        await db.query("INSERT INTO artifact_chunks (key, n, bytes) VALUES ($1, $2, decode($3, 'base64'))", [partial, n++, bytes.toString('base64')])
      }
      try {
        // Awaiting each insert before the next piece is read is the backpressure: the source waits for the store.
        for await (const piece of source) {
          const bytes = asBuffer(piece)
          digests.add(bytes)
          for (const chunk of chunks.add(bytes)) await insert(chunk)
        }
        const rest = chunks.rest()
        if (rest !== undefined) await insert(rest)
        const info = digests.done()
        await commit(partial, info)
        return info
      } catch (err) {
        await db.query('DELETE FROM artifact_chunks WHERE key = $1', [partial]).catch(() => {})
        throw err
      }
    },
    async stat (key) {
      if (!ARTIFACT_KEY.test(key)) return undefined
      const { rows } = await db.query<{ size: string }>('SELECT size FROM artifacts WHERE key = $1', [key])
      return rows[0] === undefined ? undefined : { size: Number(rows[0].size) }
    },
    async open (key: string, range?: ByteRange): Promise<Readable> {
      const { rows } = ARTIFACT_KEY.test(key)
        ? await db.query<{ size: string, chunk_size: number }>('SELECT size, chunk_size FROM artifacts WHERE key = $1', [key])
        : { rows: [] }
      const row = rows[0]
      if (row === undefined) throw new ArtifactNotFound(key)
      const size = Number(row.size)
      if (range !== undefined) checkRange(size, range)
      if (size === 0) return Readable.from([])
      // Bytes, not objects: the stream asks for the next chunk only once the one it holds was taken.
      return Readable.from(chunksOf(db, key, row.chunk_size, range ?? { start: 0, end: size - 1 }), { objectMode: false })
    },
    async delete (key) {
      if (!ARTIFACT_KEY.test(key)) return
      await db.transaction(async (tx) => {
        await tx.query('DELETE FROM artifacts WHERE key = $1', [key])
        await tx.query('DELETE FROM artifact_chunks WHERE key = $1', [key])
      })
    }
  }
}
