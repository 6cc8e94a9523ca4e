// What a simulated M3DA agent finds in an update package as it downloads it (docs/protocols/m3da.md#software-updates):
// a tar whose root holds a `Manifest`, the Lua table that says which components to install (with their version) or
// remove (without one). The tar is read block by block as the bytes pass (download.ts's sink): only the Manifest is
// kept, up to MAX_MANIFEST bytes, and every other entry is skipped, so a package of any size costs a few blocks.
import type { ByteSink } from './download.js'
import { LuaSyntaxError, parseLuaTable, type LuaTable } from './lua-table.js'

const BLOCK = 512
const MAX_MANIFEST = 64 * 1024

export interface ManifestComponent {
  name: string
  /** Undefined: the Manifest removes the component. */
  version: string | undefined
}

export type UpdatePackage =
  | { ok: true, version: string | undefined, components: ManifestComponent[] }
  | { ok: false, message: string }

export interface UpdatePackageReader extends ByteSink {
  /** What the bytes written since the last start() hold. */
  result (): UpdatePackage
}

const text = (b: Buffer, from: number, to: number): string => {
  const end = b.indexOf(0, from)
  return b.toString('latin1', from, end < 0 || end > to ? to : end)
}

/** The entry a header block announces; undefined for the end of the archive; a string when it is no tar header. */
function entryOf (h: Buffer): { name: string, size: number, type: string } | undefined | string {
  if (h.every((b) => b === 0)) return undefined
  const stated = parseInt(text(h, 148, 156).trim(), 8)
  let sum = 0
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : h[i] ?? 0
  if (stated !== sum) return 'not a tar archive (a header\'s checksum does not match)'
  const name = text(h, 0, 100)
  const prefix = text(h, 257, 263).startsWith('ustar') ? text(h, 345, 500) : ''
  const size = parseInt(text(h, 124, 136).trim() || '0', 8)
  if (!Number.isSafeInteger(size) || size < 0) return 'not a tar archive (an entry\'s size is unreadable)'
  return { name: (prefix === '' ? name : `${prefix}/${name}`).replace(/^(\.\/)+/, ''), size, type: text(h, 156, 157) }
}

/** The components a Manifest lists. @throws LuaSyntaxError */
function manifestOf (source: string): UpdatePackage {
  const t = parseLuaTable(source)
  const version = t.fields.get('version')
  const list = t.fields.get('components')
  if (list === undefined || list === null || typeof list !== 'object') return { ok: false, message: 'the Manifest lists no components' }
  const components: ManifestComponent[] = []
  for (const c of list.items) {
    const name = typeof c === 'object' && c !== null ? c.fields.get('name') : undefined
    if (typeof name !== 'string' || name === '') return { ok: false, message: 'a component of the Manifest has no name' }
    const v = (c as LuaTable).fields.get('version')
    components.push({ name, version: typeof v === 'string' || typeof v === 'number' ? String(v) : undefined })
  }
  return { ok: true, version: typeof version === 'string' || typeof version === 'number' ? String(version) : undefined, components }
}

export function updatePackageReader (): UpdatePackageReader {
  let header = Buffer.alloc(BLOCK)
  let filled = 0
  let skip = 0 // bytes of the current entry (and its padding) still to pass
  let manifest: Buffer[] | undefined
  let manifestLeft = 0
  let found: string | undefined
  let broken: string | undefined
  let ended = false

  function onHeader (): void {
    const e = entryOf(header)
    if (e === undefined) { ended = true; return }
    if (typeof e === 'string') { broken = e; return }
    skip = Math.ceil(e.size / BLOCK) * BLOCK
    if (e.name === 'Manifest' && (e.type === '0' || e.type === '')) {
      if (e.size > MAX_MANIFEST) { broken = `the Manifest is over ${MAX_MANIFEST} bytes`; return }
      manifest = []
      manifestLeft = e.size
      if (e.size === 0) { found = ''; manifest = undefined }
    }
  }

  return {
    start () { header = Buffer.alloc(BLOCK); filled = 0; skip = 0; manifest = undefined; found = undefined; broken = undefined; ended = false },
    write (piece) {
      let at = 0
      while (at < piece.length && broken === undefined && !ended) {
        if (skip > 0) {
          const n = Math.min(skip, piece.length - at)
          if (manifest !== undefined && manifestLeft > 0) {
            const keep = Math.min(n, manifestLeft)
            manifest.push(Buffer.from(piece.subarray(at, at + keep)))
            manifestLeft -= keep
            if (manifestLeft === 0) { found = Buffer.concat(manifest).toString('utf8'); manifest = undefined }
          }
          skip -= n
          at += n
          continue
        }
        const n = Math.min(BLOCK - filled, piece.length - at)
        header.set(piece.subarray(at, at + n), filled)
        filled += n
        at += n
        if (filled === BLOCK) { filled = 0; onHeader() }
      }
    },
    result () {
      if (broken !== undefined) return { ok: false, message: broken }
      if (found === undefined) return { ok: false, message: 'no Manifest at the root of the package' }
      try { return manifestOf(found) } catch (err) {
        if (err instanceof LuaSyntaxError) return { ok: false, message: `the Manifest is no Lua table: ${err.message}` }
        throw err
      }
    }
  }
}
