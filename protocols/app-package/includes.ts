// `<include><file name/></include>` in a model's `<capabilities>` (docs/packages.md#the-package): the named fragment
// (`*.cp`, root `<app:capabilities>`) is read in its place. A name is relative to the folder of the file that writes it,
// as AirVantage resolves it: `data.cp` in `gw/model.app` is the entry `gw/data.cp`. Fragments may include fragments.
import { invalidModel } from './errors.js'
import { folderOf, resolveIn } from './names.js'
import { MODEL_NS, required, type XmlElement } from './xml.js'

/** A fragment's root element, read once per package; undefined when the ZIP holds no such file. */
export type FragmentReader = (entry: string) => Promise<XmlElement | undefined>

/** How deep fragments may include fragments, and how many a model may pull in (a fragment named twice counts twice). */
const MAX_DEPTH = 8
const MAX_INCLUDES = 100

interface Expansion { read: FragmentReader, included: number }

async function fragment (file: XmlElement, chain: readonly string[], x: Expansion): Promise<XmlElement> {
  const name = required(file, 'name')
  const target = resolveIn(folderOf(file.entry), name)
  const at = (message: string): Error => invalidModel(file.entry, file.line, `includes "${name}", ${message}`)
  if (target === undefined) throw at('which is not a file of the package (an absolute name or a .. segment)')
  if (chain.includes(target)) throw at('which includes the file that includes it')
  if (chain.length > MAX_DEPTH) throw at(`past ${MAX_DEPTH} levels of fragments including fragments`)
  if (++x.included > MAX_INCLUDES) throw at(`past ${MAX_INCLUDES} fragments in one model`)
  const root = await x.read(target)
  if (root === undefined) throw at(`which the ZIP does not hold (entry "${target}")`)
  if (root.name !== 'capabilities' || root.uri !== MODEL_NS) {
    throw invalidModel(root.entry, root.line, `the root of a fragment must be <app:capabilities> in the namespace ${MODEL_NS}`)
  }
  return root
}

async function expand (el: XmlElement, chain: readonly string[], x: Expansion): Promise<XmlElement[]> {
  const out: XmlElement[] = []
  for (const child of el.children) {
    if (child.name !== 'include') {
      out.push(child)
      continue
    }
    for (const file of child.children) {
      if (file.name !== 'file') throw invalidModel(file.entry, file.line, `<include> holds <file name> elements, not <${file.name}>`)
      const root = await fragment(file, chain, x)
      out.push(...await expand(root, [...chain, root.entry], x))
    }
  }
  return out
}

/** The children of a model's `<capabilities>`, each `<include>` replaced by the children of what it names. */
export async function expandCapabilities (capabilities: XmlElement, read: FragmentReader): Promise<XmlElement[]> {
  return await expand(capabilities, [capabilities.entry], { read, included: 0 })
}
