// openPackage (docs/packages.md#the-package): the ZIP on disk read and checked whole (entries, sizes, every model and
// the fragments it includes, every binary present) before it answers; the binaries are inflated only when asked for.
import type { Readable } from 'node:stream'
import type { Entry, ZipFile } from 'yauzl'
import { openLimited, readWhole } from './entry-stream.js'
import { invalidZip, PackageError, tooLarge } from './errors.js'
import type { FragmentReader } from './includes.js'
import { DEFAULT_PACKAGE_LIMITS, type PackageLimits } from './limits.js'
import { type BinaryDeclaration, mapModel } from './model.js'
import { isModelEntry } from './names.js'
import type { ReleasedModel, ReleaseError } from './vocabulary.js'
import { decodeXml, parseXml } from './xml.js'
import { listEntries, openZip } from './zip.js'

export interface OpenedPackage {
  /** One per `*.app` entry, in entry order. */
  models: ReleasedModel[]
  /**
   * Streams a binary entry named by a model (a `file` of its binaries), its size checked while inflating: the stream
   * fails with a PackageError (`application.release.too.large`) past its declared size or the binary limit. Consume
   * or destroy it before closing the package.
   */
  binary: (file: string) => Promise<Readable>
  close: () => Promise<void>
}

export type OpenResult = { ok: true, pkg: OpenedPackage } | { ok: false, error: ReleaseError }

/** Reads each fragment once per package, parsed, bounded as a model is. */
function fragmentReader (zip: ZipFile, files: Map<string, Entry>, limits: PackageLimits): FragmentReader {
  const cache = new Map<string, ReturnType<typeof parseXml>>()
  return async (name) => {
    const entry = files.get(name)
    if (entry === undefined) return undefined
    let root = cache.get(name)
    if (root === undefined) {
      root = parseXml(name, decodeXml(name, await readWhole(zip, entry, limits.maxModelBytes, 'fragment')))
      cache.set(name, root)
    }
    return root
  }
}

/** A declared binary must be an entry that can be inflated later: present, not encrypted, stored or deflated. */
function checkBinary ({ binary, at }: BinaryDeclaration, files: Map<string, Entry>, limits: PackageLimits): Entry {
  const entry = files.get(binary.file)
  if (entry === undefined) throw new PackageError('application.release.missing.binary', `${at.entry}, line ${at.line}: binary "${binary.file}" is not in the ZIP`)
  if (entry.uncompressedSize > limits.maxBinaryBytes) throw tooLarge(`binary "${binary.file}" declares ${entry.uncompressedSize} bytes, over the limit of ${limits.maxBinaryBytes}`)
  if (entry.isEncrypted()) throw invalidZip(`entry "${binary.file}" is encrypted`)
  if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) throw invalidZip(`entry "${binary.file}" uses compression method ${entry.compressionMethod}: only stored and deflated entries are read`)
  return entry
}

async function readModels (zip: ZipFile, files: Map<string, Entry>, limits: PackageLimits): Promise<{ models: ReleasedModel[], binaries: Map<string, Entry> }> {
  const entries = [...files.values()].filter((e) => isModelEntry(e.fileName))
  if (entries.length === 0) throw new PackageError('application.release.no.model', 'the ZIP holds no application model (*.app entry)')
  const read = fragmentReader(zip, files, limits)
  const models: ReleasedModel[] = []
  const binaries = new Map<string, Entry>()
  for (const entry of entries) {
    const root = parseXml(entry.fileName, decodeXml(entry.fileName, await readWhole(zip, entry, limits.maxModelBytes, 'model')))
    const { model, binaries: declared } = await mapModel(entry, root, read)
    for (const d of declared) binaries.set(d.binary.file, checkBinary(d, files, limits))
    models.push(model)
  }
  return { models, binaries }
}

function opened (zip: ZipFile, models: ReleasedModel[], binaries: Map<string, Entry>, limits: PackageLimits): OpenedPackage {
  let closed = false
  return {
    models,
    binary: async (file) => {
      const entry = binaries.get(file)
      if (entry === undefined) throw new PackageError('application.release.missing.binary', `no model of the package declares the binary "${file}"`)
      if (closed) throw invalidZip('the package is closed')
      return await openLimited(zip, entry, limits.maxBinaryBytes, 'binary')
    },
    close: async () => {
      if (closed) return
      closed = true
      zip.close()
    }
  }
}

const asReleaseError = (err: unknown): ReleaseError => err instanceof PackageError
  ? err.toReleaseError()
  : { code: 'application.release.invalid.zip', message: `the package cannot be read: ${err instanceof Error ? err.message : String(err)}` }

/**
 * Opens the package at `zipPath` and checks all of it; never throws. On `ok: true` the caller closes the package
 * once it has read the binaries; on a refusal the file is already closed.
 */
export async function openPackage (zipPath: string, limits: PackageLimits = DEFAULT_PACKAGE_LIMITS): Promise<OpenResult> {
  let zip: ZipFile | undefined
  try {
    zip = await openZip(zipPath)
    const files = await listEntries(zip, limits)
    const { models, binaries } = await readModels(zip, files, limits)
    return { ok: true, pkg: opened(zip, models, binaries, limits) }
  } catch (err) {
    zip?.close()
    return { ok: false, error: asReleaseError(err) }
  }
}
