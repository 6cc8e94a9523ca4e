// One `*.app` entry as a ReleasedModel (docs/packages.md#the-package): the root `<app:application type name revision>`
// and its children, in any order: `<capabilities>` (communication, device-management actions, data, includes),
// `<application-manager use>` and `<binaries>`.
import type { Entry } from 'yauzl'
import { capabilitiesOf } from './capabilities.js'
import { invalidModel } from './errors.js'
import { expandCapabilities, type FragmentReader } from './includes.js'
import { folderOf, resolveIn } from './names.js'
import type { DeclaredBinary, ReleasedModel } from './vocabulary.js'
import { attr, MODEL_NS, required, type XmlElement } from './xml.js'

/** A declared binary with the element that declares it, for the problems found when the ZIP is checked. */
export interface BinaryDeclaration { binary: DeclaredBinary, at: XmlElement }

/**
 * The category: the root's `category` attribute when it has one (this service's addition, the words of POST
 * /applications: FIRMWARE, APPLICATION, SOFTWARE read as APPLICATION), else FIRMWARE when the update path installs
 * firmware (`LWM2M_FW`, and the `*_FW` managers of AirPrime modules), else APPLICATION.
 */
function categoryOf (root: XmlElement, manager: string | null): 'APPLICATION' | 'FIRMWARE' {
  const written = attr(root, 'category')
  if (written === undefined) return manager !== null && /_FW$/i.test(manager) ? 'FIRMWARE' : 'APPLICATION'
  const category = written.toUpperCase()
  if (category === 'FIRMWARE') return 'FIRMWARE'
  if (category === 'APPLICATION' || category === 'SOFTWARE') return 'APPLICATION'
  throw invalidModel(root.entry, root.line, `category "${written}" is none of APPLICATION, FIRMWARE`)
}

function binariesOf (el: XmlElement): BinaryDeclaration[] {
  const out: BinaryDeclaration[] = []
  for (const b of el.children) {
    if (b.name === 'description') continue
    if (b.name !== 'binary') throw invalidModel(b.entry, b.line, `<binaries> holds <binary file> elements, not <${b.name}>`)
    const written = required(b, 'file')
    const file = resolveIn(folderOf(b.entry), written)
    if (file === undefined) throw invalidModel(b.entry, b.line, `binary "${written}" is not a file of the package (an absolute name or a .. segment)`)
    if (out.some((o) => o.binary.file === file)) throw invalidModel(b.entry, b.line, `binary "${written}" is declared twice`)
    out.push({ binary: { file, revision: attr(b, 'revision') ?? null, type: attr(b, 'type') ?? null }, at: b })
  }
  return out
}

interface RootParts { capabilities: XmlElement[], manager: XmlElement | undefined, binaries: XmlElement[] }

function partsOf (root: XmlElement): RootParts {
  const parts: RootParts = { capabilities: [], manager: undefined, binaries: [] }
  for (const child of root.children) {
    if (child.name === 'capabilities') parts.capabilities.push(child)
    else if (child.name === 'binaries') parts.binaries.push(child)
    else if (child.name === 'application-manager') {
      if (parts.manager !== undefined) throw invalidModel(child.entry, child.line, '<application-manager> is declared twice')
      parts.manager = child
    } else if (child.name !== 'description') {
      throw invalidModel(child.entry, child.line, `<app:application> holds <capabilities>, <application-manager> and <binaries>, not <${child.name}>`)
    }
  }
  return parts
}

/** The model of one entry and the binaries it declares; throws a PackageError (invalid.model, too.large, invalid.zip). */
export async function mapModel (entry: Entry, root: XmlElement, read: FragmentReader): Promise<{ model: ReleasedModel, binaries: BinaryDeclaration[] }> {
  if (root.name !== 'application' || root.uri !== MODEL_NS) {
    throw invalidModel(root.entry, root.line, `the root element must be <app:application> in the namespace ${MODEL_NS}`)
  }
  const [type, name, revision] = [required(root, 'type'), required(root, 'name'), required(root, 'revision')]
  const parts = partsOf(root)
  const manager = parts.manager === undefined ? null : required(parts.manager, 'use')
  const children: XmlElement[] = []
  for (const c of parts.capabilities) children.push(...await expandCapabilities(c, read))
  const binaries = parts.binaries.flatMap(binariesOf)
  const model: ReleasedModel = {
    entry: entry.fileName,
    type,
    name,
    revision,
    category: categoryOf(root, manager),
    ...capabilitiesOf(children),
    applicationManager: manager,
    binaries: binaries.map((b) => b.binary)
  }
  return { model, binaries }
}
