// Packages for the reader's tests (protocols/app-package): ZIPs built in memory with yazl and written to a temp folder,
// and the byte surgery real attackers do (a name yazl refuses, a size the header lies about).
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import yazl from 'yazl'

export interface ZipItem {
  name: string
  data: Buffer | string | Readable
  /** Deflate (the default) or store. */
  compress?: boolean
  /** Unix mode, file type included (0o120777: a symbolic link). */
  mode?: number
}

export async function zipOf (items: readonly ZipItem[]): Promise<Buffer> {
  const zip = new yazl.ZipFile()
  for (const i of items) {
    const options = { compress: i.compress ?? true, ...(i.mode === undefined ? {} : { mode: i.mode }) }
    if (i.data instanceof Readable) zip.addReadStream(i.data, i.name, options)
    else zip.addBuffer(Buffer.from(i.data), i.name, options)
  }
  zip.end()
  const chunks: Buffer[] = []
  for await (const c of zip.outputStream) chunks.push(c as Buffer)
  return Buffer.concat(chunks)
}

/** `count` MiB of zeros, streamed (never held whole in memory). */
export function zeros (mib: number): Readable {
  const chunk = Buffer.alloc(1024 * 1024)
  return Readable.from((function * () { for (let i = 0; i < mib; i++) yield chunk })())
}

/** A temp folder for a test file's packages, removed by `done`. */
export async function tempFolder (): Promise<{ write: (bytes: Buffer | string) => Promise<string>, done: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'app-package-'))
  let n = 0
  return {
    write: async (bytes) => {
      const path = join(dir, `p${n++}.zip`)
      await writeFile(path, bytes)
      return path
    },
    done: async () => { await rm(dir, { recursive: true, force: true }) }
  }
}

/** The ZIP with every occurrence of an entry's name (local header and central directory) replaced, same length. */
export function renamed (zip: Buffer, from: string, to: string): Buffer {
  if (Buffer.byteLength(from) !== Buffer.byteLength(to)) throw new Error('names must have the same length')
  const out = Buffer.from(zip)
  const needle = Buffer.from(from)
  for (let at = out.indexOf(needle); at >= 0; at = out.indexOf(needle, at + 1)) Buffer.from(to).copy(out, at)
  return out
}

/** The ZIP with an entry's uncompressed size in the central directory (what readers trust) set to `size`. */
export function lyingSize (zip: Buffer, name: string, size: number): Buffer {
  const out = Buffer.from(zip)
  for (let at = out.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])); at >= 0; at = out.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), at + 1)) {
    const nameLength = out.readUInt16LE(at + 28)
    if (out.subarray(at + 46, at + 46 + nameLength).toString() === name) {
      out.writeUInt32LE(size, at + 24)
      return out
    }
  }
  throw new Error(`no entry ${name}`)
}
