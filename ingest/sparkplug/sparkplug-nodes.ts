// What the Sparkplug B transport asks of the store (docs/protocols/sparkplug.md): the death of an edge node, and the
// actions of a system's applications (a command task names an action by its data id; its actionType says whether
// it is the reboot, sent as `Node Control/Reboot`, docs/protocols/sparkplug.md).
import type { ApplicationsRepository } from '../../core/ports/applications.js'
import type { SparkplugRepository } from './sparkplug.port.js'
import { flattenData, type ActionType } from '../../core/domain/application-model.js'

export interface SparkplugNodesDeps {
  sparkplug: SparkplugRepository
  applications: Pick<ApplicationsRepository, 'forSystems'>
}

export function createSparkplugNodes ({ sparkplug, applications }: SparkplugNodesDeps) {
  return {
    nodeDied: async (systemUid: string, at: number): Promise<void> => { await sparkplug.nodeDied(systemUid, at) },
    /** The kind of each action element of the system's applications, by data id (the first application's wins). */
    async actions (systemUid: string): Promise<Map<string, ActionType>> {
      const out = new Map<string, ActionType>()
      for (const a of (await applications.forSystems([systemUid])).get(systemUid) ?? []) {
        for (const d of flattenData(a.data)) if (d.elementType === 'action' && d.actionType !== null && !out.has(d.id)) out.set(d.id, d.actionType)
      }
      return out
    }
  }
}

export type SparkplugNodes = ReturnType<typeof createSparkplugNodes>
