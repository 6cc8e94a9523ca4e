// The M3DA module's repository (ingest/m3da/m3da.repository.ts, made by the module's createStore): bytea nonces that
// travel as hex, ticket counters per system that wrap before int32 ends, and a password merged into the JSON of
// communication.m3da, read the same on both engines.
import { expect } from 'vitest'
import { m3daModule } from '../../../ingest/m3da/index.js'
import type { M3daRepository } from '../../../ingest/m3da/m3da.port.js'
import { newCompany, newSystem, uniq, defineContract, type Store } from './store.js'

const storeOf = ({ db }: Store): M3daRepository => {
  if (m3daModule.createStore === undefined) throw new Error('the M3DA module has no store')
  return m3daModule.createStore(db)
}

const communicationOf = async ({ db }: Store, uid: string): Promise<unknown> =>
  (await db.query<{ c: unknown }>('SELECT communication AS c FROM systems WHERE uid = $1', [uid])).rows[0]?.c

export const m3daContract = defineContract('M3daRepository', {
  'nonces: none before one is set; many set in one statement, every byte kept, a deleted system skipped': async (store) => {
    const m3da = storeOf(store)
    const co = await newCompany(store.repos)
    const [a, b] = [await newSystem(store.repos, co), await newSystem(store.repos, co)]
    expect(await m3da.nonce(a)).toBeNull()
    const bytes = Buffer.from([0, 255, 1, 128, 0])
    await m3da.setNonces([{ systemUid: a, nonce: bytes }, { systemUid: b, nonce: Buffer.from('b') }, { systemUid: uniq('gone'), nonce: Buffer.from('x') }], 10)
    await m3da.setNonces([], 11)
    expect(await m3da.nonce(a)).toEqual(bytes)
    expect(await m3da.nonce(b)).toEqual(Buffer.from('b'))
    await m3da.setNonces([{ systemUid: b, nonce: Buffer.alloc(0) }], 12)
    expect(await m3da.nonce(b)).toEqual(Buffer.alloc(0))
    expect(await m3da.nonce(uniq('gone'))).toBeNull()
  },

  'tickets: given once per task and kept, counted per system; tasksOf ignores unknown tickets; release forgets': async (store) => {
    const m3da = storeOf(store)
    const co = await newCompany(store.repos)
    const [a, b] = [await newSystem(store.repos, co), await newSystem(store.repos, co)]
    expect(await m3da.tickets(a, [], 1)).toEqual(new Map())
    expect(await m3da.tickets(a, ['t1', 't2', 't1'], 1)).toEqual(new Map([['t1', 1], ['t2', 2]]))
    expect(await m3da.tickets(a, ['t2', 't3'], 2)).toEqual(new Map([['t2', 2], ['t3', 3]]))
    expect(await m3da.tickets(b, ['t1'], 2)).toEqual(new Map([['t1', 1]]))
    expect(await m3da.tasksOf(a, [3, 1, 99])).toEqual(new Map([[3, 't3'], [1, 't1']]))
    expect(await m3da.tasksOf(a, [])).toEqual(new Map())
    await m3da.release(a, [1, 3])
    await m3da.release(a, [])
    expect(await m3da.tasksOf(a, [1, 2, 3])).toEqual(new Map([[2, 't2']]))
    expect(await m3da.tasksOf(b, [1])).toEqual(new Map([[1, 't1']]))
  },

  'tickets wrap back to 1 before int32 ends, a ticket given again replacing its old task': async (store) => {
    const m3da = storeOf(store)
    const s = await newSystem(store.repos, await newCompany(store.repos))
    expect(await m3da.tickets(s, ['old'], 1)).toEqual(new Map([['old', 1]]))
    await store.db.query('UPDATE m3da_devices SET next_ticket = 2147483646 WHERE system_uid = $1', [s])
    expect(await m3da.tickets(s, ['last'], 2)).toEqual(new Map([['last', 2147483646]]))
    expect(await m3da.tickets(s, ['n1', 'n2'], 3)).toEqual(new Map([['n1', 1], ['n2', 2]]))
    expect(await m3da.tasksOf(s, [1, 2, 2147483646])).toEqual(new Map([[1, 'n1'], [2, 'n2'], [2147483646, 'last']]))
  },

  'setPassword: into communication.m3da whether absent, null or an object (its other keys kept)': async (store) => {
    const m3da = storeOf(store)
    const co = await newCompany(store.repos)
    const absent = await newSystem(store.repos, co, { communication: { mqtt: { password: 'mqtt-pass' } } })
    const nulled = await newSystem(store.repos, co, { communication: { m3da: null } as never })
    const object = await newSystem(store.repos, co, { communication: { m3da: { registrationPassword: 'reg-pass-1', password: 'old-pass' } } })
    for (const uid of [absent, nulled, object]) await m3da.setPassword(uid, 'new-pass-1')
    await m3da.setPassword(uniq('gone'), 'x')
    expect(await communicationOf(store, absent)).toEqual({ mqtt: { password: 'mqtt-pass' }, m3da: { password: 'new-pass-1' } })
    expect(await communicationOf(store, nulled)).toEqual({ m3da: { password: 'new-pass-1' } })
    expect(await communicationOf(store, object)).toEqual({ m3da: { registrationPassword: 'reg-pass-1', password: 'new-pass-1' } })
  }
})
