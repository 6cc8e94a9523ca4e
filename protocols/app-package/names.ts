// Entry names: which entries are models, and how a model's relative names (`<include><file name>`, `<binary file>`)
// become entry names (docs/packages.md#the-package).

/** Folders and files that archivers add beside the content (macOS resource forks), never models. */
function isArchiverNoise (name: string): boolean {
  return name.startsWith('__MACOSX/') || (name.split('/').pop() ?? '').startsWith('._')
}

export const isFolder = (name: string): boolean => name.endsWith('/')

/** A model: any `*.app` file, in any folder. */
export function isModelEntry (name: string): boolean {
  return !isFolder(name) && !isArchiverNoise(name) && /\.app$/i.test(name)
}

/** An entry whose size the model limit bounds: a model or a fragment (`*.cp`). */
export function isModelSized (name: string): boolean {
  return isModelEntry(name) || (!isFolder(name) && !isArchiverNoise(name) && /\.cp$/i.test(name))
}

/** The folder of an entry, with its trailing slash ('' at the ZIP's root). */
export function folderOf (entry: string): string {
  const at = entry.lastIndexOf('/')
  return at < 0 ? '' : entry.slice(0, at + 1)
}

/**
 * The entry a model names, relative to the model's folder as AirVantage resolves it: `./` and repeated slashes are
 * dropped; an absolute name, a drive letter or a `..` segment answers undefined (a model names files of its package).
 */
export function resolveIn (folder: string, name: string): string | undefined {
  const n = name.trim().replace(/\\/g, '/')
  if (n === '' || n.startsWith('/') || /^[a-zA-Z]:/.test(n)) return undefined
  const segments = n.split('/').filter((s) => s !== '' && s !== '.')
  if (segments.length === 0 || segments.includes('..')) return undefined
  return folder + segments.join('/')
}
