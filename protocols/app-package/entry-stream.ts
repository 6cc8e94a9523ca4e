// Inflating one entry with its size checked as the bytes come (docs/packages.md#the-package): never past the smaller of
// its declared size and the limit, so a ZIP bomb (a small entry that inflates to gigabytes) or a header that lies
// about its size is refused after at most that many bytes, and nothing is inflated whole before being checked.
import { type Readable, Transform } from 'node:stream'
import type { Entry, ZipFile } from 'yauzl'
import { invalidZip, PackageError, tooLarge } from './errors.js'

/** yauzl's own check (validateEntrySizes) fails a stream that inflates past the declared size with this message. */
const PAST_DECLARED = /^too many bytes/

function streamError (entry: Entry, what: string, err: unknown): PackageError {
  if (err instanceof PackageError) return err
  const message = err instanceof Error ? err.message : String(err)
  if (PAST_DECLARED.test(message)) return tooLarge(`${what} "${entry.fileName}" inflates past the ${entry.uncompressedSize} bytes it declares`)
  return invalidZip(`${what} "${entry.fileName}" cannot be read: ${message}`)
}

async function rawStream (zip: ZipFile, entry: Entry, what: string): Promise<Readable> {
  return await new Promise((resolve, reject) => {
    try {
      zip.openReadStream(entry, (err, stream) => { if (err != null) reject(streamError(entry, what, err)); else resolve(stream) })
    } catch (err) {
      reject(streamError(entry, what, err))
    }
  })
}

/**
 * The entry's inflated bytes; the stream fails with a PackageError (`application.release.too.large` past the bound,
 * `application.release.invalid.zip` for data that cannot be inflated). The caller consumes or destroys it: until
 * then it holds the ZIP's file open.
 */
export async function openLimited (zip: ZipFile, entry: Entry, limit: number, what: string): Promise<Readable> {
  if (entry.uncompressedSize > limit) throw tooLarge(`${what} "${entry.fileName}" declares ${entry.uncompressedSize} bytes, over the limit of ${limit}`)
  const source = await rawStream(zip, entry, what)
  let seen = 0
  const out = new Transform({
    transform (chunk: Buffer, _encoding, done) {
      seen += chunk.length
      if (seen > limit) done(tooLarge(`${what} "${entry.fileName}" inflates past the limit of ${limit} bytes`))
      else done(null, chunk)
    }
  })
  source.on('error', (err) => out.destroy(streamError(entry, what, err)))
  // Stop inflating as soon as the reader stops reading, whether it failed or gave up.
  out.on('close', () => { source.unpipe(out); source.destroy() })
  source.pipe(out)
  return out
}

/** The whole entry in memory (a model or a fragment, bounded by the model limit); throws a PackageError. */
export async function readWhole (zip: ZipFile, entry: Entry, limit: number, what: string): Promise<Buffer> {
  const stream = await openLimited(zip, entry, limit, what)
  const chunks: Buffer[] = []
  try {
    for await (const chunk of stream) chunks.push(chunk as Buffer)
  } catch (err) {
    throw streamError(entry, what, err)
  }
  return Buffer.concat(chunks)
}
