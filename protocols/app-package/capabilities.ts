// What a model's `<capabilities>` declare, its includes already read in place (docs/packages.md#the-package): the
// protocols, the device-management actions and the data tree.
import { mapCommunication } from './communication.js'
import { mapData, type Origins } from './data.js'
import { invalidModel } from './errors.js'
import type { ReleasedModel } from './vocabulary.js'
import { required, type XmlElement } from './xml.js'

function dmActions (dms: readonly XmlElement[]): string[] {
  const out: string[] = []
  for (const dm of dms) {
    for (const a of dm.children) {
      if (a.name === 'description') continue
      if (a.name !== 'action') throw invalidModel(a.entry, a.line, `<dm> holds <action impl> elements, not <${a.name}>`)
      out.push(required(a, 'impl'))
    }
  }
  return out
}

/** The parts of a model its capabilities give; throws invalid.model at the element at fault. */
export function capabilitiesOf (children: readonly XmlElement[]): Pick<ReleasedModel, 'communication' | 'dmActions' | 'data'> {
  const of = (name: string): XmlElement[] => children.filter((c) => c.name === name)
  for (const c of children) {
    if (!['communication', 'dm', 'data', 'description'].includes(c.name)) {
      throw invalidModel(c.entry, c.line, `<capabilities> holds <communication>, <dm>, <data> and <include>, not <${c.name}>`)
    }
  }
  const origins: Origins = new WeakMap()
  return { communication: mapCommunication(of('communication')), dmActions: dmActions(of('dm')), data: mapData(of('data'), origins) }
}
