// The body of a release request written to a file as it arrives (docs/packages.md#release-and-publish): the package
// reader needs the whole ZIP on disk (its directory is at the end), and a package of hundreds of MiB is never held in
// memory. A ZIP is recognised by its first bytes, whatever the Content-Type clients send (application/zip,
// application/json, none); reading stops at the first bytes that are not a ZIP's and past the size limit.
import { createWriteStream } from 'node:fs'
import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { Readable, Writable } from 'node:stream'
import type { ReleaseError } from '../domain/application-package.js'
import { newUid } from '../security/secrets.js'

/** A local file header: every ZIP with at least one entry starts with it (PK\x03\x04). */
const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04])

/** The body as written: the file (removed by `discard`), its size, or why it is no package. */
export interface ReceivedZip {
  path: string
  size: number
  refused: ReleaseError | undefined
  /** Removes the file; safe to call more than once. */
  discard: () => Promise<void>
}

/** Why the first bytes (at most 4 of them so far) are not a ZIP's; undefined while they still may be. */
function notZip (head: Buffer, ended: boolean): ReleaseError | undefined {
  const n = Math.min(head.length, ZIP_MAGIC.length)
  if (!head.subarray(0, n).equals(ZIP_MAGIC.subarray(0, n))) return { code: 'application.release.invalid.zip', message: 'the body is not a ZIP: it does not start with PK\\x03\\x04' }
  if (ended && head.length === 0) return { code: 'application.release.invalid.zip', message: 'the body is empty: it must be the bytes of a ZIP' }
  if (ended && head.length < ZIP_MAGIC.length) return { code: 'application.release.invalid.zip', message: `the body is ${head.length} bytes: not a ZIP` }
  return undefined
}

/** Resolves once the file stream drains, rejects on its error; neither listener outlives the wait. */
async function drained (out: Writable): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const done = (): void => { out.off('error', failed); resolve() }
    const failed = (err: Error): void => { out.off('drain', done); reject(err) }
    out.once('drain', done)
    out.once('error', failed)
  })
}

/**
 * Writes `source` to a new file under `dir`, refusing (and no longer reading) past `maxBytes` or at the first bytes
 * that are not a ZIP's. The source is left unread after a refusal: the caller answers and closes the connection.
 */
export async function receiveZip (source: Readable, dir: string, maxBytes: number): Promise<ReceivedZip> {
  await mkdir(dir, { recursive: true })
  const path = join(dir, `release-${newUid()}.zip`)
  const discard = async (): Promise<void> => { await rm(path, { force: true }) }
  const out = createWriteStream(path)
  let size = 0
  let head = Buffer.alloc(0)
  let refused: ReleaseError | undefined
  try {
    // Not destroyed on a refusal: the request's socket still carries the answer.
    for await (const chunk of source.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      if (head.length < ZIP_MAGIC.length) head = Buffer.concat([head, chunk.subarray(0, ZIP_MAGIC.length - head.length)])
      size += chunk.length
      refused = notZip(head, false) ?? (size > maxBytes ? { code: 'application.release.too.large', message: `the package is larger than ${maxBytes} bytes` } : undefined)
      if (refused !== undefined) break
      if (!out.write(chunk)) await drained(out)
    }
    refused ??= notZip(head, true)
    await new Promise<void>((resolve, reject) => { out.end((err?: Error | null) => { if (err == null) resolve(); else reject(err) }) })
  } catch (err) {
    out.destroy()
    await discard()
    throw err
  }
  if (refused !== undefined) await discard()
  return { path, size, refused, discard }
}
