// GatewaysRepository (storage/repositories/gateways.repository.ts, parts-find.sql.ts): exact filters over text[]
// parameters, a whitelisted sort with NULLS LAST, paging totals, labels merged sorted and distinct, transfer marks.
import { expect } from 'vitest'
import { defineContract, newCompany, newSystem, uniq, type Repos } from './store.js'

type Gw = Parameters<Repos['gateways']['insert']>[0]

function gateway (companyUid: string, patch: Partial<Gw> = {}): Gw {
  return { uid: uniq('gw'), companyUid, imei: null, serialNumber: null, macAddress: null, esn: null, meid: null, type: 'FX30', state: 'INVENTORY', transferTo: null, creationDate: 1, ...patch }
}

export const gatewaysContract = defineContract('GatewaysRepository', {
  'finds by exact values, sorts with NULLS LAST then by uid, pages with totals': async ({ repos }) => {
    const co = await newCompany(repos)
    const a = gateway(co, { serialNumber: 'SN-B', creationDate: 3 })
    const b = gateway(co, { serialNumber: 'SN-A', creationDate: 2, imei: '350000000000002' })
    const c = gateway(co, { serialNumber: null, creationDate: 1 })
    for (const g of [a, b, c]) await repos.gateways.insert(g)
    await repos.gateways.insert(gateway(await newCompany(repos), { serialNumber: 'SN-A' }))
    const find = async (filter: Parameters<Repos['gateways']['find']>[1], sort: Parameters<Repos['gateways']['find']>[2], offset = 0, size = 10): Promise<[number, string[]]> => {
      const f = await repos.gateways.find(co, filter, sort, { offset, size })
      return [f.count, f.items.map((g) => g.uid)]
    }
    expect(await find({}, [])).toEqual([3, [c.uid, b.uid, a.uid]])
    expect(await find({}, [{ field: 'serialNumber', dir: 'asc' }])).toEqual([3, [b.uid, a.uid, c.uid]])
    expect(await find({}, [{ field: 'serialNumber', dir: 'desc' }])).toEqual([3, [a.uid, b.uid, c.uid]])
    expect(await find({}, [], 0, 2)).toEqual([3, [c.uid, b.uid]])
    expect(await find({}, [], 4, 2)).toEqual([3, []])
    expect(await find({ serialNumber: ['SN-A', 'SN-B', 'sn-a'] }, [])).toEqual([2, [b.uid, a.uid]])
    expect(await find({ serialNumber: [] }, [])).toEqual([0, []])
    expect(await find({ imei: ['350000000000002'] }, [{ field: 'type', dir: 'asc' }])).toEqual([1, [b.uid]])
    expect((await repos.gateways.findByIdentifiers(co, { serialNumber: 'SN-A', imei: null })).map((g) => g.uid)).toEqual([b.uid])
    expect(await repos.gateways.findByIdentifiers(co, {})).toEqual([])
  },

  'updates columns, adds labels sorted and distinct, marks and unmarks the gateways of systems being transferred': async ({ repos, db }) => {
    const co = await newCompany(repos)
    const g = gateway(co)
    await repos.gateways.insert(g)
    await repos.gateways.update(g.uid, { imei: '350000000000001', state: 'ACTIVE' })
    expect(await repos.gateways.findByUid(co, g.uid)).toEqual({ ...g, imei: '350000000000001', state: 'ACTIVE' })
    await repos.gateways.addLabels(g.uid, ['b', 'a'])
    await repos.gateways.addLabels(g.uid, ['a', 'c'])
    await repos.gateways.addLabels(g.uid, [])
    expect((await db.query('SELECT labels FROM gateways WHERE uid = $1', [g.uid])).rows).toEqual([{ labels: ['a', 'b', 'c'] }])
    const s = await newSystem(repos, co, { gatewayUid: g.uid })
    const dest = await newCompany(repos)
    await repos.gateways.markTransfer(co, [s], dest)
    expect((await repos.gateways.findByUid(co, g.uid))?.transferTo).toBe(dest)
    await repos.gateways.unmarkTransfer(co, [s], 'other')
    expect((await repos.gateways.findByUid(co, g.uid))?.transferTo).toBe(dest)
    await repos.gateways.unmarkTransfer(co, [s], dest)
    expect((await repos.gateways.findByUid(co, g.uid))?.transferTo).toBeNull()
    await repos.systems.update(s, { gatewayUid: null })
    await repos.gateways.delete(g.uid)
    expect(await repos.gateways.findByUid(co, g.uid)).toBeUndefined()
  }
})
