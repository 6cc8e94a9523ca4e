// A model's XML (docs/packages.md#the-package): bytes decoded with the encoding the declaration names, then parsed by
// saxes into a small element tree that remembers each element's entry and line, so that every problem found later
// names both. saxes reads no DTD, so no entity can expand the document; depth and element count are bounded.
import { SaxesParser, type SaxesTagNS } from 'saxes'
import { invalidModel, PackageError } from './errors.js'

/** The application model's namespace: the root of a model and of a fragment is in it. */
export const MODEL_NS = 'http://www.sierrawireless.com/airvantage/application/1.0'

const MAX_DEPTH = 32
const MAX_ELEMENTS = 100_000

export interface XmlElement {
  /** The local name (`application` for `<app:application>`). */
  name: string
  uri: string
  /** The attributes without a prefix, by name. */
  attrs: Map<string, string>
  children: XmlElement[]
  /** The entry it was read from (a model or a fragment it includes) and its line there. */
  entry: string
  line: number
}

/** The encodings models declare: UTF-8 (and ASCII, a part of it) and ISO-8859-1. */
const ENCODINGS = new Map<string, 'utf-8' | 'latin1'>([
  ...['utf-8', 'utf8', 'us-ascii', 'ascii'].map((n) => [n, 'utf-8'] as const),
  ...['iso-8859-1', 'iso8859-1', 'iso_8859-1', 'iso8859_1', 'latin1', 'latin-1'].map((n) => [n, 'latin1'] as const)
])

const UTF8_BOM = '\xEF\xBB\xBF'
const DECLARED = /^(?:\xEF\xBB\xBF)?<\?xml\s[^>]*?\bencoding\s*=\s*["']([^"']*)["']/

const lineAt = (text: string, at: number): number => text.slice(0, at).split('\n').length

/** The text of a model, decoded as it declares (UTF-8 when it declares nothing); throws invalid.model. */
export function decodeXml (entry: string, bytes: Buffer): string {
  const head = bytes.subarray(0, 200).toString('latin1')
  if (head.startsWith('\xFF\xFE') || head.startsWith('\xFE\xFF')) throw invalidModel(entry, 1, 'UTF-16 is not supported: write the model in UTF-8 or ISO-8859-1')
  const declared = DECLARED.exec(head)?.[1]
  const encoding = declared === undefined ? 'utf-8' : ENCODINGS.get(declared.toLowerCase())
  if (encoding === undefined) throw invalidModel(entry, 1, `encoding "${declared ?? ''}" is not supported: write the model in UTF-8 or ISO-8859-1`)
  if (encoding === 'latin1') return new TextDecoder('latin1').decode(bytes)
  const body = head.startsWith(UTF8_BOM) ? bytes.subarray(3) : bytes
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body)
  } catch {
    const loose = new TextDecoder('utf-8').decode(body)
    throw invalidModel(entry, lineAt(loose, loose.indexOf('\uFFFD')), `the bytes are not valid ${declared ?? 'UTF-8'} (declare encoding="ISO-8859-1" if the model is in it)`)
  }
}

function elementOf (tag: SaxesTagNS, entry: string, line: number): XmlElement {
  const attrs = new Map<string, string>()
  for (const a of Object.values(tag.attributes)) if (a.prefix === '' && a.local !== 'xmlns') attrs.set(a.local, a.value)
  return { name: tag.local, uri: tag.uri, attrs, children: [], entry, line }
}

/** The root element of a document; throws invalid.model naming the entry and the line. */
export function parseXml (entry: string, text: string): XmlElement {
  const parser = new SaxesParser({ xmlns: true, position: true })
  const stack: XmlElement[] = []
  let root: XmlElement | undefined
  let count = 0
  // The line of the tag's name, where a user looks for it (an opening tag may span several lines).
  let startLine = 1
  parser.on('opentagstart', () => { startLine = parser.line })
  parser.on('opentag', (tag) => {
    if (stack.length >= MAX_DEPTH) throw invalidModel(entry, parser.line, `elements nest deeper than ${MAX_DEPTH} levels`)
    if (++count > MAX_ELEMENTS) throw invalidModel(entry, parser.line, `more than ${MAX_ELEMENTS} elements`)
    const el = elementOf(tag, entry, startLine)
    const parent = stack.at(-1)
    if (parent === undefined) root = el
    else parent.children.push(el)
    stack.push(el)
  })
  parser.on('closetag', () => { stack.pop() })
  try {
    parser.write(text).close()
  } catch (err) {
    if (err instanceof PackageError) throw err
    const message = (err instanceof Error ? err.message : String(err)).replace(/^\d+:\d+: /, '')
    throw invalidModel(entry, parser.line, `not well-formed XML: ${message}`)
  }
  if (root === undefined) throw invalidModel(entry, parser.line, 'no root element')
  return root
}

/** A trimmed attribute, undefined when absent or blank. */
export function attr (el: XmlElement, name: string): string | undefined {
  const v = el.attrs.get(name)?.trim()
  return v === undefined || v === '' ? undefined : v
}

/** A required attribute; throws invalid.model at the element's line. */
export function required (el: XmlElement, name: string): string {
  const v = attr(el, name)
  if (v === undefined) throw invalidModel(el.entry, el.line, `<${el.name}> needs a non-empty ${name} attribute`)
  return v
}
