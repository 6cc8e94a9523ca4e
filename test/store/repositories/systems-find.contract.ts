// SystemsRepository reads (storage/repositories/systems.repository.ts, system-criteria.sql.ts): what a find answers
// must not depend on the engine: case-insensitive search with LIKE wildcards taken literally, sorts with NULLS LAST,
// paging totals, commStatus of a system that never communicated, JSON and array columns, epoch-ms numbers.
import { expect } from 'vitest'
import { FleetError } from '../../../core/errors.js'
import { newCompany, newSystem, uniq, defineContract } from './store.js'

const PAGE = { offset: 0, size: 50 }

export const systemsFindContract = defineContract('SystemsRepository reads', {

  'round-trips a system: JSON columns, text[] labels, epoch-ms numbers, NULLs, System data filled in': async ({ repos }) => {
    const co = await newCompany(repos)
    const uid = await newSystem(repos, co, {
      name: 'Pump é',
      labels: ['b', 'a'],
      metadata: { site: 'Nantes', 'k"ey': 'v,1' },
      communication: { mqtt: { password: 'p' } },
      creationDate: 1_767_225_600_123,
      activationDate: null,
      reports: [{ n: 1 }],
      heartbeat: { every: 60 },
      data: { rssi: -70 }
    })
    const s = await repos.systems.findByUid(co, uid)
    expect(s).toMatchObject({
      uid,
      companyUid: co,
      name: 'Pump é',
      labels: ['b', 'a'],
      metadata: { site: 'Nantes', 'k"ey': 'v,1' },
      communication: { mqtt: { password: 'p' } },
      creationDate: 1_767_225_600_123,
      activationDate: null,
      lastCommDate: null,
      commStatus: 'UNDEFINED',
      reports: [{ n: 1 }],
      heartbeat: { every: 60 },
      statusReport: null,
      gateway: null,
      subscription: null,
      offer: null,
      applications: [],
      monthBytesTotal: 0,
      monthBytesTime: null
    })
    expect(typeof s?.creationDate).toBe('number')
    expect(s?.data.rssi).toBe(-70)
    expect(s?.data).toHaveProperty('apn', null) // fields never written read as at creation
    expect(await repos.systems.findByUid(await newCompany(repos), uid)).toBeUndefined()
  },

  'finds by name case-insensitively, with % and _ taken literally': async ({ repos }) => {
    const co = await newCompany(repos)
    const a = await newSystem(repos, co, { name: 'Tank 100% FULL' })
    await newSystem(repos, co, { name: 'Tank 1000 full' })
    const c = await newSystem(repos, co, { name: 'pump_a' })
    await newSystem(repos, co, { name: 'pumpXa' })
    const uids = async (name: string): Promise<string[]> =>
      (await repos.systems.find(co, { name }, [], PAGE)).items.map((x) => x.uid)
    expect(await uids('100% full')).toEqual([a])
    expect(await uids('P_A')).toEqual([c])
    expect((await repos.systems.find(co, { name: 'TANK' }, [], PAGE)).count).toBe(2)
    expect(await uids('\\')).toEqual([])
  },

  'sorts by name ignoring case, then by uid, and puts NULLs last both ways': async ({ repos }) => {
    const co = await newCompany(repos)
    const b = await newSystem(repos, co, { name: 'beta', activationDate: 2000 })
    const a = await newSystem(repos, co, { name: 'Alpha', activationDate: null })
    const c = await newSystem(repos, co, { name: 'GAMMA', activationDate: 1000 })
    const order = async (field: 'name' | 'activationDate', dir: 'asc' | 'desc'): Promise<string[]> =>
      (await repos.systems.find(co, {}, [{ field, dir }], PAGE)).items.map((x) => x.uid)
    expect(await order('name', 'asc')).toEqual([a, b, c])
    expect(await order('name', 'desc')).toEqual([c, b, a])
    expect(await order('activationDate', 'asc')).toEqual([c, b, a])
    expect(await order('activationDate', 'desc')).toEqual([b, c, a])
  },

  'pages: newest first by default, the total counted for a full page and past the end': async ({ repos }) => {
    const co = await newCompany(repos)
    const uids: string[] = []
    for (let i = 0; i < 5; i++) uids.push(await newSystem(repos, co, { creationDate: 1000 + i }))
    const newest = [...uids].reverse()
    const page = async (offset: number, size: number): Promise<[number, string[]]> => {
      const f = await repos.systems.find(co, {}, [], { offset, size })
      return [f.count, f.items.map((x) => x.uid)]
    }
    expect(await page(0, 2)).toEqual([5, newest.slice(0, 2)])
    expect(await page(2, 2)).toEqual([5, newest.slice(2, 4)])
    expect(await page(4, 2)).toEqual([5, newest.slice(4)])
    expect(await page(10, 2)).toEqual([5, []])
    expect(await page(0, 10)).toEqual([5, newest])
    expect(await repos.systems.count(co)).toBe(5)
    expect(await repos.systems.findUids(co, {}, 3)).toEqual(uids.slice(0, 3))
    expect((await repos.systems.refs(co, {}, 2)).map((r) => r.uid)).toEqual(uids.slice(0, 2))
  },

  'filters by commStatus, a system without traffic state being UNDEFINED, and by lastComm bounds': async ({ repos }) => {
    const co = await newCompany(repos)
    const never = await newSystem(repos, co)
    const ok = await newSystem(repos, co, { commStatus: 'OK', lastCommDate: 5000 })
    await repos.systems.update(ok, { commStatus: 'OK', lastCommDate: 5000 })
    const err = await newSystem(repos, co, { commStatus: 'ERROR', lastCommDate: 3000 })
    const find = async (criteria: Parameters<typeof repos.systems.find>[1]): Promise<string[]> =>
      (await repos.systems.find(co, criteria, [{ field: 'lastCommDate', dir: 'desc' }], PAGE)).items.map((x) => x.uid)
    expect(await find({ commStatus: ['UNDEFINED'] })).toEqual([never])
    expect(await find({ commStatus: ['OK', 'ERROR'] })).toEqual([ok, err])
    expect(await find({ lastCommAfter: 3000 })).toEqual([ok, err])
    expect(await find({ lastCommBefore: 4999 })).toEqual([err])
    expect(await find({})).toEqual([ok, err, never])
    expect((await repos.systems.findByUid(co, ok))?.lastCommDate).toBe(5000)
  },

  'filters by labels (any of), metadata (name exact, value contains), states and uids': async ({ repos }) => {
    const co = await newCompany(repos)
    const a = await newSystem(repos, co, { labels: ['red', 'big'], metadata: { site: 'North_1' }, state: 'DEPLOYED' })
    const b = await newSystem(repos, co, { labels: ['blue'], metadata: { Site: 'North_1' }, state: 'READY' })
    const c = await newSystem(repos, co, { labels: [], metadata: { site: 'NorthX1' } })
    const find = async (criteria: Parameters<typeof repos.systems.find>[1]): Promise<string[]> =>
      (await repos.systems.find(co, criteria, [{ field: 'creationDate', dir: 'asc' }], PAGE)).items.map((x) => x.uid).sort()
    expect(await find({ labels: ['blue', 'red'] })).toEqual([a, b].sort())
    expect(await find({ labels: [] })).toEqual([a, b, c].sort())
    expect(await find({ metadata: { site: 'north_' } })).toEqual([a])
    expect(await find({ states: ['READY', 'DEPLOYED'] })).toEqual([a, b].sort())
    expect(await find({ uids: [c, 'nope'] })).toEqual([c])
    expect(await find({ uids: [] })).toEqual([])
  },

  'filters and sorts by gateway columns through their join': async ({ repos }) => {
    const co = await newCompany(repos)
    const gw = async (serialNumber: string | null, imei: string | null): Promise<string> => {
      const uid = uniq('gw')
      await repos.gateways.insert({ uid, companyUid: co, imei, serialNumber, macAddress: null, esn: null, meid: null, type: 'FX30', state: 'INVENTORY', transferTo: null, creationDate: 1 })
      return uid
    }
    const a = await newSystem(repos, co, { gatewayUid: await gw('SN-B', '35000000000001') })
    const b = await newSystem(repos, co, { gatewayUid: await gw('SN-A', '35000000000002') })
    const none = await newSystem(repos, co)
    const sorted = async (dir: 'asc' | 'desc'): Promise<string[]> =>
      (await repos.systems.find(co, {}, [{ field: 'serialNumber', dir }], PAGE)).items.map((x) => x.uid)
    expect(await sorted('asc')).toEqual([b, a, none])
    expect(await sorted('desc')).toEqual([a, b, none])
    expect((await repos.systems.find(co, { gateway: { serialNumber: 'SN-' } }, [], PAGE)).count).toBe(2)
    expect((await repos.systems.find(co, { gateway: { imei: '0002' } }, [], PAGE)).items.map((x) => x.uid)).toEqual([b])
    expect((await repos.systems.find(co, { identifiers: { gatewaySerialNumber: ['SN-B'] } }, [], PAGE)).items.map((x) => x.uid)).toEqual([a])
    expect((await repos.systems.findByUid(co, a))?.gateway).toMatchObject({ serialNumber: 'SN-B', imei: '35000000000001', creationDate: 1 })
  },

  'maps a login taken by another system to system.communication.identifier.already.used': async ({ repos }) => {
    const co = await newCompany(repos)
    const a = await newSystem(repos, co)
    const b = await newSystem(repos, co)
    const id = uniq('SN')
    await repos.systems.setCommIdentifiers(a, [id, id, uniq('IMEI')])
    const err: unknown = await repos.systems.setCommIdentifiers(b, [id]).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(FleetError)
    expect(err).toMatchObject({ code: 'system.communication.identifier.already.used', params: [id] })
    expect(await repos.systems.commIdentifierOwner([id], null)).toBe(a)
    expect(await repos.systems.commIdentifierOwner([id], a)).toBeUndefined()
    expect(await repos.systems.systemByCommIdentifier(id)).toEqual({ systemUid: a, companyUid: co })
    expect(await repos.systems.deviceLogins([id, id, 'unknown'])).toEqual([{
      identifier: id,
      systemUid: a,
      companyUid: co,
      communication: {},
      deviceIpFiltering: false,
      deviceIpFilters: { startIPAddress: null, endIPAddress: null, ipAddresses: [] },
      mqttX509: false
    }])
    expect((await repos.systems.commIdentifiersOf([a])).length).toBe(2)
  }
})
