// The artifact store in files (core/ports/artifacts.ts), the embedded default: one file per artifact, named by its
// SHA-256, under DATA_DIR/artifacts (docs/decisions/0025-artifact-store.md). Bytes are written to a partial file in
// the same folder while they are hashed, made durable, then renamed to their key: a key names a complete artifact or
// nothing, whatever happens mid-write, and the same bytes put twice leave one file.
import { randomBytes } from 'node:crypto'
import { mkdir, open, readdir, rename, stat, unlink } from 'node:fs/promises'
import { createWriteStream } from 'node:fs'
import { join } from 'node:path'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { ArtifactNotFound, type ArtifactInfo, type ArtifactStore, type ByteRange } from '../../core/ports/artifacts.js'
import { ARTIFACT_KEY, asBuffer, checkRange, createDigests } from './digests.js'

const PARTIAL = '.partial-'
// A partial file this old belongs to a put that died with its process (a live one renames or removes its own).
const PARTIAL_MAX_AGE_MS = 24 * 3_600_000
// Read 64 KiB at a time (Node's default for files): the stream's buffer, hence a slow reader's cost, stays that size.
const READ_CHUNK = 64 * 1024

const isMissing = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === 'ENOENT'

/** Removes what puts that died left behind; one file that cannot go does not stop the others. */
async function removePartials (dir: string, before: number): Promise<void> {
  const names = await readdir(dir).catch((err: unknown) => { if (isMissing(err)) return []; throw err })
  for (const name of names) {
    if (!name.startsWith(PARTIAL)) continue
    const started = Number(name.slice(PARTIAL.length).split('-')[0])
    if (Number.isFinite(started) && started < before) await unlink(join(dir, name)).catch(() => {})
  }
}

/** Flushes a file's bytes, then the folder's entry for it, to the disk. */
async function sync (path: string): Promise<void> {
  const fh = await open(path, 'r')
  try { await fh.sync() } finally { await fh.close() }
}

export function createFileArtifacts (dir: string, now: () => number = Date.now): ArtifactStore {
  let ready: Promise<void> | undefined
  const pathOf = (key: string): string | undefined => ARTIFACT_KEY.test(key) ? join(dir, key) : undefined
  return {
    async put (source, opts = {}): Promise<ArtifactInfo> {
      ready ??= (async () => {
        await mkdir(dir, { recursive: true })
        await removePartials(dir, now() - PARTIAL_MAX_AGE_MS)
      })()
      await ready
      const partial = join(dir, `${PARTIAL}${now()}-${randomBytes(8).toString('hex')}`)
      const digests = createDigests(opts.maxBytes)
      const hashing = new Transform({
        transform (piece: unknown, _enc, done) {
          try {
            const bytes = asBuffer(piece)
            digests.add(bytes)
            done(null, bytes)
          } catch (err) { done(err as Error) }
        }
      })
      try {
        await pipeline(source, hashing, createWriteStream(partial, { flags: 'wx' }))
        await sync(partial)
        const info = digests.done()
        await rename(partial, join(dir, info.key))
        await sync(dir)
        return info
      } catch (err) {
        await unlink(partial).catch(() => {})
        throw err
      }
    },
    async stat (key) {
      const path = pathOf(key)
      if (path === undefined) return undefined
      try {
        return { size: (await stat(path)).size }
      } catch (err) {
        if (isMissing(err)) return undefined
        throw err
      }
    },
    async open (key: string, range?: ByteRange): Promise<Readable> {
      const path = pathOf(key)
      if (path === undefined) throw new ArtifactNotFound(key)
      // Opened before answering: a missing file is this call's rejection, not a later stream error. A file deleted
      // while it is read stays readable to the end on the same descriptor.
      const fh = await open(path, 'r').catch((err: unknown) => { throw isMissing(err) ? new ArtifactNotFound(key) : err })
      try {
        const { size } = await fh.stat()
        if (range !== undefined) checkRange(size, range)
        if (size === 0) { await fh.close(); return Readable.from([]) }
        return fh.createReadStream({ start: range?.start ?? 0, end: range?.end ?? size - 1, highWaterMark: READ_CHUNK })
      } catch (err) {
        await fh.close()
        throw err
      }
    },
    async delete (key) {
      const path = pathOf(key)
      if (path === undefined) return
      await unlink(path).catch((err: unknown) => { if (!isMissing(err)) throw err })
    }
  }
}
