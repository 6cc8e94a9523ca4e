// The LwM2M module's repository (ingest/lwm2m/lwm2m.repository.ts, made by the module's createStore): one
// registration per system (a new Register replaces the old one under a new id), Updates that move the expiry, the
// expired ones taken out in order, the systems a PSK identity names through communication.lwm2m, and the installs'
// records, read with the state of their device task.
import { expect } from 'vitest'
import { lwm2mModule } from '../../../ingest/lwm2m/index.js'
import type { Lwm2mRegistration, Lwm2mRepository } from '../../../ingest/lwm2m/lwm2m.port.js'
import { newCompany, newSystem, uniq, defineContract, type Store } from './store.js'

const storeOf = ({ db }: Store): Lwm2mRepository => {
  if (lwm2mModule.createStore === undefined) throw new Error('the LwM2M module has no store')
  return lwm2mModule.createStore(db)
}

const registration = (systemUid: string, at: number, over: Partial<Lwm2mRegistration> = {}): Lwm2mRegistration => ({
  id: uniq('reg'),
  systemUid,
  endpoint: uniq('EP'),
  lifetimeS: 60,
  binding: 'U',
  queueMode: false,
  version: '1.1',
  objectLinks: '</3/0>,</4/0>',
  peer: 'udp:127.0.0.1:5683',
  secure: false,
  pskIdentity: null,
  registeredAt: at,
  updatedAt: at,
  expiresAt: at + 60_000,
  ...over
})

export const lwm2mContract = defineContract('Lwm2mRepository', {
  'register, find, update (lifetime moves the expiry, the peer follows), remove; a deleted system is skipped': async (store) => {
    const lwm2m = storeOf(store)
    const co = await newCompany(store.repos)
    const s = await newSystem(store.repos, co)
    const r = registration(s, 1000, { secure: true, pskIdentity: 'id-1', lifetimeS: 4_294_967_295, expiresAt: 1000 + 4_294_967_295_000 })
    await lwm2m.register(r)
    expect(await lwm2m.find(r.id)).toEqual(r)
    const after = await lwm2m.update(r.id, { lifetimeS: 120, binding: 'UQ', queueMode: true, peer: 'udp:10.0.0.1:40000', at: 5000 })
    expect(after).toEqual({ ...r, lifetimeS: 120, binding: 'UQ', queueMode: true, peer: 'udp:10.0.0.1:40000', updatedAt: 5000, expiresAt: 125_000 })
    const same = await lwm2m.update(r.id, { peer: 'udp:10.0.0.1:40000', at: 6000 })
    expect(same).toMatchObject({ lifetimeS: 120, binding: 'UQ', objectLinks: r.objectLinks, expiresAt: 126_000 })
    expect(await lwm2m.update(uniq('none'), { peer: 'x', at: 1 })).toBeUndefined()
    expect(await lwm2m.remove(r.id)).toMatchObject({ id: r.id, systemUid: s })
    expect(await lwm2m.find(r.id)).toBeUndefined()
    expect(await lwm2m.remove(r.id)).toBeUndefined()
    await lwm2m.register(registration(uniq('gone'), 1))
  },

  'a new Register replaces the system\'s registration under its new id': async (store) => {
    const lwm2m = storeOf(store)
    const s = await newSystem(store.repos, await newCompany(store.repos))
    const first = registration(s, 1000)
    const second = registration(s, 2000, { lifetimeS: 30, expiresAt: 32_000 })
    await lwm2m.register(first)
    await lwm2m.register(second)
    expect(await lwm2m.find(first.id)).toBeUndefined()
    expect(await lwm2m.find(second.id)).toEqual(second)
  },

  'expire takes out the registrations past their expiry, oldest first, at most `limit`': async (store) => {
    const lwm2m = storeOf(store)
    const co = await newCompany(store.repos)
    const base = 9_000_000_000_000 + Math.floor(Math.random() * 1_000_000) * 1000 // past every other test's
    await lwm2m.expire(base, 1_000_000) // what earlier cases left in the store
    const regs = []
    for (const offset of [3, 1, 2, 50]) {
      const r = registration(await newSystem(store.repos, co), base, { expiresAt: base + offset })
      await lwm2m.register(r)
      regs.push(r)
    }
    const first = await lwm2m.expire(base + 10, 2)
    expect(first.map((r) => r.expiresAt)).toEqual([base + 1, base + 2])
    expect((await lwm2m.expire(base + 10, 10)).map((r) => r.expiresAt)).toEqual([base + 3])
    expect(await lwm2m.find(regs[3]?.id ?? '')).toBeDefined()
  },

  'systemsByPskIdentity: the systems whose communication.lwm2m.pskIdentity it is': async (store) => {
    const lwm2m = storeOf(store)
    const co = await newCompany(store.repos)
    const [a, b] = [await newSystem(store.repos, co), await newSystem(store.repos, co)]
    const identity = uniq('psk')
    await store.db.query("UPDATE systems SET communication = communication || jsonb_build_object('lwm2m', jsonb_build_object('pskIdentity', $2::text, 'pskSecretHex', 'aa')) WHERE uid = $1", [a, identity])
    expect(await lwm2m.systemsByPskIdentity(identity)).toEqual([{ systemUid: a, communication: expect.objectContaining({ lwm2m: { pskIdentity: identity, pskSecretHex: 'aa' } }) }])
    await store.db.query("UPDATE systems SET communication = communication || jsonb_build_object('lwm2m', jsonb_build_object('pskIdentity', $2::text)) WHERE uid = $1", [b, identity])
    expect((await lwm2m.systemsByPskIdentity(identity)).map((x) => x.systemUid).sort()).toEqual([a, b].sort())
    expect(await lwm2m.systemsByPskIdentity(uniq('none'))).toEqual([])
  },

  'installs: recorded while their device task is open, removed when answered, pruned once the task ended otherwise': async (store) => {
    const lwm2m = storeOf(store)
    const s = await newSystem(store.repos, await newCompany(store.repos))
    const task = async (): Promise<string> => {
      const uid = uniq('task')
      await store.repos.deviceTasks.insert([{ uid, systemUid: s, operationUid: null, operationTaskUid: null, protocol: 'LWM2M', task: { uid, timestamp: 1, read: ['x'] }, createdAt: 1 }])
      return uid
    }
    const [a, b] = [await task(), await task()]
    expect(await lwm2m.installOf(a)).toEqual({ open: true, install: undefined })
    await lwm2m.saveInstall({ taskUid: a, objectId: 9, instanceId: 2, step: 'download', updatedAt: 10 })
    await lwm2m.saveInstall({ taskUid: a, objectId: 9, instanceId: 2, step: 'install', updatedAt: 20 })
    expect(await lwm2m.installOf(a)).toEqual({ open: true, install: { taskUid: a, objectId: 9, instanceId: 2, step: 'install', updatedAt: 20 } })
    await lwm2m.saveInstall({ taskUid: uniq('none'), objectId: 5, instanceId: 0, step: 'download', updatedAt: 1 })
    expect(await lwm2m.installOf(uniq('none'))).toEqual({ open: false, install: undefined })
    await lwm2m.endInstall(a)
    expect((await lwm2m.installOf(a)).install).toBeUndefined()

    await lwm2m.saveInstall({ taskUid: b, objectId: 5, instanceId: 0, step: 'update', updatedAt: 30 })
    await lwm2m.pruneInstalls() // an open task's record stays
    expect((await lwm2m.installOf(b)).install).toMatchObject({ step: 'update' })
    await store.repos.deviceTasks.withdraw([b], 40)
    expect(await lwm2m.installOf(b)).toMatchObject({ open: false, install: { step: 'update' } })
    expect(await lwm2m.pruneInstalls()).toBeGreaterThanOrEqual(1)
    expect(await lwm2m.installOf(b)).toEqual({ open: false, install: undefined })
  }
})
