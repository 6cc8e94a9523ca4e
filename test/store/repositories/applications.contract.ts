// ApplicationsRepository (storage/repositories/applications.repository.ts): public applications beside the company's,
// the expression key (company or none, type, revision) for conflicts and puts, JSON trees, category order.
import { expect } from 'vitest'
import { FleetError } from '../../../core/errors.js'
import { defineContract, newCompany, newSystem, uniq, type Repos } from './store.js'

type App = Parameters<Repos['applications']['insert']>[0]

function app (companyUid: string | null, patch: Partial<App> = {}): App {
  return {
    uid: uniq('app'),
    companyUid,
    name: uniq('App'),
    revision: '1.0',
    type: uniq('type'),
    category: 'APPLICATION',
    communication: [{ type: 'MQTT', params: { 'a"b': 'é' } }] as unknown as App['communication'],
    data: [{ id: 'x', label: 'X', type: 'int' }] as unknown as App['data'],
    ...patch
  }
}

export const applicationsContract = defineContract('ApplicationsRepository', {
  'inserts, finds the public and the company\'s ones by filter (LIKE escaped) and page, maps a taken key to application.not.unique': async ({ repos }) => {
    const co = await newCompany(repos)
    const type = uniq('Gw_x')
    const pub = app(null, { name: 'Alpha', type, revision: '1.0' })
    const own = app(co, { name: 'beta 50%', type, revision: '1.0', category: 'FIRMWARE' })
    const other = app(await newCompany(repos), { type })
    for (const a of [pub, own, other]) await repos.applications.insert(a, 1)
    const err: unknown = await repos.applications.insert(app(co, { type, revision: '1.0' }), 2).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(FleetError)
    expect(err).toMatchObject({ code: 'application.not.unique', params: [type, '1.0'] })
    await expect(repos.applications.insert(app(null, { type, revision: '1.0' }), 2)).rejects.toMatchObject({ code: 'application.not.unique' })
    const found = await repos.applications.find(co, { type: type.toUpperCase() }, { offset: 0, size: 1 })
    expect(found.count).toBe(2)
    expect(found.items).toEqual([pub])
    expect((await repos.applications.find(co, { name: '50%' }, { offset: 0, size: 5 })).items.map((a) => a.uid)).toEqual([own.uid])
    expect((await repos.applications.find(co, { type: type.replace('_', '-') }, { offset: 0, size: 5 })).count).toBe(0)
    expect((await repos.applications.find(co, { type, category: 'FIRMWARE' }, { offset: 0, size: 5 })).items).toEqual([own])
    expect((await repos.applications.findByUids(co, [pub.uid, own.uid, other.uid])).map((a) => a.uid).sort()).toEqual([pub.uid, own.uid].sort())
    expect(await repos.applications.findByKey(null, type, '1.0')).toEqual(pub)
    expect(await repos.applications.findByKey(co, type, '1.0')).toEqual(own)
    expect(await repos.applications.findByKey(co, type, '2.0')).toBeUndefined()
  },

  'puts by key (a second put updates), replaces data trees and communication': async ({ repos }) => {
    const co = await newCompany(repos)
    const first = app(co)
    await repos.applications.put(first, 1)
    await repos.applications.put({ ...first, uid: uniq('other'), name: 'Renamed' }, 2)
    expect(await repos.applications.findByKey(co, first.type, first.revision)).toEqual({ ...first, name: 'Renamed' })
    const data = [{ id: 'y', nested: [{ id: 'z', values: [1, null, 'é'] }] }] as unknown as App['data']
    await repos.applications.setData(first.uid, data)
    await repos.applications.setCommunication(first.uid, [])
    await repos.applications.update(first.uid, { ...first, name: 'Updated', data, communication: [] })
    expect(await repos.applications.findByKey(co, first.type, first.revision)).toEqual({ ...first, name: 'Updated', data, communication: [] })
  },

  'answers a system\'s applications APPLICATION before FIRMWARE, then by type, one or many systems at once': async ({ repos }) => {
    const co = await newCompany(repos)
    const fw = app(co, { category: 'FIRMWARE', type: 'a' })
    const appB = app(co, { type: 'b' })
    const appC = app(co, { type: 'c' })
    for (const a of [fw, appB, appC]) await repos.applications.insert(a, 1)
    const s1 = await newSystem(repos, co)
    const s2 = await newSystem(repos, co)
    await repos.systems.setApplications(s1, [fw.uid, appC.uid, appB.uid])
    await repos.systems.setApplications(s2, [fw.uid])
    expect((await repos.applications.ofSystem(s1)).map((a) => a.uid)).toEqual([appB.uid, appC.uid, fw.uid])
    const many = await repos.applications.forSystems([s1, s2, 'none'])
    expect([...many.entries()].map(([k, v]) => [k, v.map((a) => a.uid)])).toEqual([[s1, [appB.uid, appC.uid, fw.uid]], [s2, [fw.uid]], ['none', []]])
    expect(await repos.applications.forSystems([])).toEqual(new Map())
    expect((await repos.systems.findByUid(co, s1))?.applications.map((a) => a.uid)).toEqual([fw.uid, appB.uid, appC.uid]) // by type, then name
  }
})
