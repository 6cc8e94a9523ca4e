// repos.applications.forSystems: the complete applications of many systems in one query (used by the
// device operations to know what each selected system can be asked).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { appUid, createSystem, seedCatalogue, type Catalogue } from '../../helpers/systems.js'
import { createRepositories } from '../../../storage/repositories/index.js'

let stack: Stack
let cat: Catalogue

beforeAll(async () => {
  stack = await startStack()
  cat = await seedCatalogue(stack)
})
afterAll(async () => { await stack.close() })

describe('applications of many systems', () => {
  it('answers each system\'s applications complete, and [] for a system without any or unknown', async () => {
    const fw = appUid(cat, 'fw.public@1.0')
    const mqtt = appUid(cat, 'app.mqtt@1')
    const both = await createSystem(stack, { name: 'both', applications: [{ uid: mqtt }, { uid: fw }] })
    const one = await createSystem(stack, { name: 'one', applications: [{ uid: mqtt }] })
    const none = await createSystem(stack, { name: 'none' })
    const repos = createRepositories(stack.db)
    const map = await repos.applications.forSystems([both.uid, one.uid, none.uid, 'no-such-system'])
    expect([...map.keys()].sort()).toEqual([both.uid, one.uid, none.uid, 'no-such-system'].sort())
    // In ofSystem's order (APPLICATION before FIRMWARE, then type).
    expect(map.get(both.uid)?.map((a) => a.uid)).toEqual([mqtt, fw])
    expect(map.get(one.uid)?.map((a) => a.uid)).toEqual([mqtt])
    expect(map.get(none.uid)).toEqual([])
    expect(map.get('no-such-system')).toEqual([])
    // The same complete rows as ofSystem answers for one system.
    expect(map.get(both.uid)).toEqual(await repos.applications.ofSystem(both.uid))
    expect(map.get(both.uid)?.[1]).toMatchObject({ uid: fw, companyUid: null, type: 'fw.public', revision: '1.0', category: 'FIRMWARE' })
  })

  it('answers an empty map for no systems', async () => {
    expect((await createRepositories(stack.db).applications.forSystems([])).size).toBe(0)
  })
})
