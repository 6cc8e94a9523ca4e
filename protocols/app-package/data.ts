// `<data><encoding type><asset id>` (docs/packages.md#the-package) as the application's data tree, with the ids
// PUT /applications/{uid}/data would give: the asset id, the node paths and the leaf's path, split at `/` and `.`
// (a data id is dot-joined; LwM2M models write paths such as `/ztp/endpoint`) into nested nodes, so that branches
// declared twice (two encodings, two paths through one node) meet in one node.
import { invalidModel } from './errors.js'
import { dataTreeProblem, DEVICE_PROTOCOLS, type DataNode, type DeviceProtocol, MAX_DATA_DEPTH, MAX_SIBLINGS, type ValueType } from './vocabulary.js'
import { attr, required, type XmlElement } from './xml.js'

/** The model's value types and the service's (VALUE_TYPES); a type written otherwise is refused. */
const TYPES = new Map<string, ValueType>(Object.entries({
  int: ['int', 'integer', 'long', 'short', 'byte'],
  double: ['double', 'float', 'number', 'decimal'],
  boolean: ['boolean', 'bool'],
  string: ['string'],
  date: ['date', 'datetime'],
  binary: ['binary']
} satisfies Record<ValueType, string[]>).flatMap(([type, written]) => written.map((w) => [w, type as ValueType])))

/** The bounds of PUT /applications/{uid}/data's schema (core/schemas/application-model.schema.ts). */
const MAX_ID = 100
const MAX_LABEL = 255
const MAX_PARAMETERS = 100

/** Where each element came from, for the problems found once the tree is built. */
export type Origins = WeakMap<DataNode, XmlElement>

interface Scope { origins: Origins, encoding: DeviceProtocol | null }

function typeOf (el: XmlElement): ValueType {
  const written = required(el, 'type')
  const type = TYPES.get(written.toLowerCase())
  if (type === undefined) throw invalidModel(el.entry, el.line, `type "${written}" is none of ${[...TYPES.keys()].join(', ')}`)
  return type
}

function labelOf (el: XmlElement): string | null {
  const label = attr(el, 'default-label') ?? null
  if (label !== null && label.length > MAX_LABEL) throw invalidModel(el.entry, el.line, `default-label is longer than ${MAX_LABEL} characters`)
  return label
}

function segmentsOf (el: XmlElement, name: string): string[] {
  const written = required(el, name)
  const segments = written.split(/[/.]/).filter((s) => s !== '')
  if (segments.length === 0) throw invalidModel(el.entry, el.line, `${name} "${written}" names no element`)
  if (segments.some((s) => s.length > MAX_ID)) throw invalidModel(el.entry, el.line, `${name} "${written}" has a part longer than ${MAX_ID} characters`)
  return segments
}

function place (list: DataNode[], n: DataNode, el: XmlElement, s: Scope): void {
  if (list.some((o) => o.id === n.id)) throw invalidModel(el.entry, el.line, `"${n.id}" is declared twice at the same place of the data tree`)
  if (list.length >= MAX_SIBLINGS) throw invalidModel(el.entry, el.line, `more than ${MAX_SIBLINGS} elements at one level of the data tree`)
  list.push(n)
  s.origins.set(n, el)
}

/** The children of the node at `segments` under `list`, nodes created or joined on the way. */
function nodeAt (list: DataNode[], segments: readonly string[], el: XmlElement, s: Scope): DataNode[] {
  let here = list
  for (const [i, id] of segments.entries()) {
    const found = here.find((n) => n.id === id && n.elementType === 'node')
    if (found !== undefined) {
      here = found.data ??= []
      continue
    }
    const node: DataNode = { id, label: i === segments.length - 1 ? labelOf(el) : null, elementType: 'node', data: [] }
    place(here, node, el, s)
    here = node.data as DataNode[]
  }
  return here
}

function parametersOf (command: XmlElement): Array<{ id: string, type: ValueType }> {
  const out: Array<{ id: string, type: ValueType }> = []
  for (const p of command.children) {
    if (p.name !== 'parameter') continue
    const id = required(p, 'id')
    if (id.includes('.') || id.length > MAX_ID) throw invalidModel(p.entry, p.line, `parameter id "${id}" must hold no dot and at most ${MAX_ID} characters`)
    if (out.some((o) => o.id === id)) throw invalidModel(p.entry, p.line, `parameter "${id}" is declared twice`)
    if (out.length >= MAX_PARAMETERS) throw invalidModel(p.entry, p.line, `more than ${MAX_PARAMETERS} parameters`)
    out.push({ id, type: typeOf(p) })
  }
  return out
}

/** A leaf under `list`: its path's last part is its id, the parts before it nodes. */
function leaf (list: DataNode[], el: XmlElement, s: Scope): void {
  const segments = el.name === 'command' && attr(el, 'path') === undefined && attr(el, 'id') !== undefined ? segmentsOf(el, 'id') : segmentsOf(el, 'path')
  const parent = nodeAt(list, segments.slice(0, -1), el, s)
  const id = segments.at(-1) as string
  const encoding = s.encoding === null ? {} : { encoding: s.encoding }
  const n: DataNode = el.name === 'command'
    ? { id, label: labelOf(el), elementType: 'command', ...encoding, parameters: parametersOf(el) }
    : { id, label: labelOf(el), elementType: el.name === 'setting' ? 'setting' : 'variable', ...encoding, type: typeOf(el) }
  place(parent, n, el, s)
}

/** The content of an asset or a node. Descriptions and other annotations of leaves are not read. */
function content (list: DataNode[], el: XmlElement, s: Scope): void {
  for (const child of el.children) {
    if (child.name === 'description') continue
    if (child.name === 'node') content(nodeAt(list, segmentsOf(child, 'path'), child, s), child, s)
    else if (child.name === 'variable' || child.name === 'setting' || child.name === 'command') leaf(list, child, s)
    else throw invalidModel(child.entry, child.line, `<${el.name}> holds <node>, <variable>, <setting> and <command> elements, not <${child.name}>`)
  }
}

function encodingInto (tree: DataNode[], encoding: XmlElement, origins: Origins): void {
  const type = required(encoding, 'type').toUpperCase()
  const s: Scope = { origins, encoding: (DEVICE_PROTOCOLS as readonly string[]).includes(type) ? type as DeviceProtocol : null }
  for (const asset of encoding.children) {
    if (asset.name === 'description') continue
    if (asset.name !== 'asset') throw invalidModel(asset.entry, asset.line, `<encoding> holds <asset id> elements, not <${asset.name}>`)
    content(nodeAt(tree, segmentsOf(asset, 'id'), asset, s), asset, s)
  }
}

function checkDepth (list: readonly DataNode[], depth: number, origins: Origins): void {
  for (const n of list) {
    const el = origins.get(n)
    if (depth > MAX_DATA_DEPTH && el !== undefined) throw invalidModel(el.entry, el.line, `the data tree is deeper than ${MAX_DATA_DEPTH} levels`)
    checkDepth(n.data ?? [], depth + 1, origins)
  }
}

/** The tree under the rules of PUT /applications/{uid}/data (core/domain/application-model-rules.ts). */
function checkTree (tree: DataNode[], origins: Origins): void {
  checkDepth(tree, 1, origins)
  const problem = dataTreeProblem(tree)
  if (problem === undefined) return
  // The problem's field is a JSON path from the tree (`body/0/data/1/id`): the element it names is where to look.
  let at: DataNode | undefined
  let list: readonly DataNode[] = tree
  for (const [, key, index] of problem.field.matchAll(/(body|data)\/(\d+)/g)) {
    if (key === 'data' && at !== undefined) list = at.data ?? []
    at = list[Number(index)]
  }
  const el = at === undefined ? undefined : origins.get(at)
  throw invalidModel(el?.entry ?? '', el?.line ?? 1, `${problem.field.replace(/^body\//, 'data/')}: ${problem.message}`)
}

/** The data tree of every `<data>` of a model, in order. */
export function mapData (datas: readonly XmlElement[], origins: Origins): DataNode[] {
  const tree: DataNode[] = []
  for (const data of datas) {
    for (const encoding of data.children) {
      if (encoding.name === 'description') continue
      if (encoding.name !== 'encoding') throw invalidModel(encoding.entry, encoding.line, `<data> holds <encoding type> elements, not <${encoding.name}>`)
      encodingInto(tree, encoding, origins)
    }
  }
  checkTree(tree, origins)
  return tree
}
