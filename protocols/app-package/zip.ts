// Opening the ZIP and listing its entries (docs/packages.md#the-package): only metadata is read here, and every
// declared size is checked against the limits before any entry is inflated.
import { open as openFile } from 'node:fs/promises'
import yauzl, { type Entry, type ZipFile } from 'yauzl'
import { invalidZip, tooLarge } from './errors.js'
import type { PackageLimits } from './limits.js'
import { isFolder, isModelSized } from './names.js'

/** What a ZIP file starts with (a local file header); an empty archive or anything else is not a package. */
const LOCAL_HEADER = Buffer.from([0x50, 0x4b, 0x03, 0x04])

async function startsAsZip (path: string): Promise<boolean> {
  const file = await openFile(path, 'r')
  try {
    const head = Buffer.alloc(4)
    const { bytesRead } = await file.read(head, 0, 4, 0)
    return bytesRead === 4 && head.equals(LOCAL_HEADER)
  } finally {
    await file.close()
  }
}

/**
 * The ZIP, its entries not yet read. yauzl refuses entry names with `..` segments, absolute paths and drive letters
 * (its file name validation) and checks that a stored entry's sizes agree; autoClose is off because the binaries are
 * read after openPackage answers, until the package is closed.
 */
export async function openZip (path: string): Promise<ZipFile> {
  if (!await startsAsZip(path)) throw invalidZip('the body is not a ZIP (it does not start with PK\\x03\\x04)')
  return await new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: false, validateEntrySizes: true, decodeStrings: true, strictFileNames: false }, (err, zip) => {
      if (err != null) reject(invalidZip(`the ZIP cannot be read: ${err.message}`))
      else {
        // An 'error' emitted later (a read after the refusal) must not go unheard: an unheard 'error' ends the process.
        zip.on('error', () => {})
        resolve(zip)
      }
    })
  })
}

const FILE_TYPE = 0o170000
const REGULAR = 0o100000
const DIRECTORY = 0o040000
const SYMLINK = 0o120000

/** The file type an entry's Unix mode gives (the high half of its external attributes); 0 when it gives none. */
const unixType = (e: Entry): number => (e.externalFileAttributes >>> 16) & FILE_TYPE

function checkEntry (e: Entry, files: Map<string, Entry>, limits: PackageLimits): void {
  const name = e.fileName
  const type = unixType(e)
  if (type === SYMLINK) throw invalidZip(`entry "${name}" is a symbolic link: a package holds files only`)
  if (type !== 0 && type !== REGULAR && type !== DIRECTORY) throw invalidZip(`entry "${name}" is not a file: a package holds files only`)
  if (files.has(name)) throw invalidZip(`entry "${name}" appears twice`)
  if (isModelSized(name) && e.uncompressedSize > limits.maxModelBytes) {
    throw tooLarge(`entry "${name}" declares ${e.uncompressedSize} bytes, over the ${limits.maxModelBytes} a model may hold`)
  }
}

/** The files of the ZIP by name, in entry order (folders counted, not listed); throws a PackageError. */
export async function listEntries (zip: ZipFile, limits: PackageLimits): Promise<Map<string, Entry>> {
  if (zip.entryCount > limits.maxEntries) throw tooLarge(`the ZIP holds ${zip.entryCount} entries, over the limit of ${limits.maxEntries}`)
  return await new Promise((resolve, reject) => {
    const files = new Map<string, Entry>()
    let total = 0
    const onEntry = (e: Entry): void => {
      try {
        checkEntry(e, files, limits)
        total += e.uncompressedSize
        if (total > limits.maxTotalBytes) throw tooLarge(`the entries declare over ${limits.maxTotalBytes} bytes uncompressed (at "${e.fileName}")`)
        if (!isFolder(e.fileName)) files.set(e.fileName, e)
        zip.readEntry()
      } catch (err) {
        stop()
        reject(err)
      }
    }
    const onError = (err: Error): void => { stop(); reject(invalidZip(`the ZIP is refused: ${err.message}`)) }
    const onEnd = (): void => { stop(); resolve(files) }
    const stop = (): void => { zip.off('entry', onEntry).off('error', onError).off('end', onEnd) }
    zip.on('entry', onEntry).on('error', onError).on('end', onEnd)
    zip.readEntry()
  })
}
