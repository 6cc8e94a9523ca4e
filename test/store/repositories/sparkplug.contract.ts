// The Sparkplug B module's repository (ingest/sparkplug/sparkplug.repository.ts): an edge node's death marks its
// system's state row, created when the system has none, its other data kept.
import { expect } from 'vitest'
import { sparkplugModule } from '../../../ingest/sparkplug/index.js'
import type { SparkplugRepository } from '../../../ingest/sparkplug/sparkplug.port.js'
import { newCompany, newSystem, uniq, defineContract, type Store } from './store.js'

const storeOf = ({ db }: Store): SparkplugRepository => {
  if (sparkplugModule.createStore === undefined) throw new Error('the Sparkplug B module has no store')
  return sparkplugModule.createStore(db)
}

const stateOf = async ({ db }: Store, uid: string): Promise<{ comm_status: string, data: Record<string, unknown> } | undefined> =>
  (await db.query<{ comm_status: string, data: Record<string, unknown> }>('SELECT comm_status, data FROM system_state WHERE system_uid = $1', [uid])).rows[0]

export const sparkplugContract = defineContract('SparkplugRepository', {
  'a node death: commStatus ERROR and lastCommFailureDate, with or without a state row; an unknown system is ignored': async (store) => {
    const sparkplug = storeOf(store)
    const co = await newCompany(store.repos)
    const fresh = await newSystem(store.repos, co)
    await store.db.query('DELETE FROM system_state WHERE system_uid = $1', [fresh])
    const communicating = await newSystem(store.repos, co)
    await store.db.query('UPDATE system_state SET comm_status = \'OK\', data = data || \'{"other": 1, "lastCommFailureDate": 5}\'::jsonb WHERE system_uid = $1', [communicating])
    await sparkplug.nodeDied(fresh, 1_767_225_600_123)
    await sparkplug.nodeDied(communicating, 1_767_225_600_456)
    await sparkplug.nodeDied(uniq('gone'), 1)
    expect(await stateOf(store, fresh)).toMatchObject({ comm_status: 'ERROR', data: { lastCommFailureDate: 1_767_225_600_123 } })
    const after = await stateOf(store, communicating)
    expect(after).toMatchObject({ comm_status: 'ERROR', data: { other: 1, lastCommFailureDate: 1_767_225_600_456 } })
    expect(await stateOf(store, uniq('gone'))).toBeUndefined()
  }
})
