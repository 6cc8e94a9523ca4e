// SystemsRepository writes (storage/repositories/systems.repository.ts): labels merged as sorted distinct arrays, bulk
// deletes with the rows of their traffic, sync records, transfers with the destination's unique identifiers.
import { expect } from 'vitest'
import { FleetError } from '../../../core/errors.js'
import { createRepositories } from '../../../storage/repositories/index.js'
import { defineContract, newCompany, newSystem, uniq } from './store.js'

const PAGE = { offset: 0, size: 50 }

export const systemsWriteContract = defineContract('SystemsRepository writes', {
  'relabels: adds then removes, sorted and distinct, only the company\'s systems': async ({ repos }) => {
    const co = await newCompany(repos)
    const a = await newSystem(repos, co, { labels: ['b', 'a'] })
    const b = await newSystem(repos, co, { labels: [] })
    expect(await repos.systems.relabel(co, a, ['c', 'a', 'd'], ['b'])).toBe(true)
    expect((await repos.systems.findByUid(co, a))?.labels).toEqual(['a', 'c', 'd'])
    expect(await repos.systems.relabel(await newCompany(repos), a, ['x'], [])).toBe(false)
    expect((await repos.systems.relabelMany(co, [a, b, 'none'], ['z'], ['a', 'c', 'd'])).sort()).toEqual([a, b].sort())
    expect((await repos.systems.findByUid(co, a))?.labels).toEqual(['z'])
    await repos.systems.relabel(co, b, [], ['z'])
    expect((await repos.systems.findByUid(co, b))?.labels).toEqual([])
    expect((await repos.systems.find(co, { labels: ['z'] }, [], PAGE)).items.map((s) => s.uid)).toEqual([a])
  },

  'records a sync: OK sets date, template and config name; ERROR only the status': async ({ repos }) => {
    const co = await newCompany(repos)
    const a = await newSystem(repos, co)
    const b = await newSystem(repos, co)
    await repos.systems.recordSync([a, b], { status: 'OK', at: 1_767_225_600_123, template: 'T1' })
    await repos.systems.recordSync([b], { status: 'ERROR' })
    await repos.systems.recordSync([], { status: 'ERROR' })
    expect(await repos.systems.findByUid(co, a)).toMatchObject({ syncStatus: 'OK', lastSyncDate: 1_767_225_600_123, lastAppliedTemplate: 'T1', lastConfigName: 'T1' })
    expect((await repos.systems.findByUid(co, a))?.data.lastTemplateName).toBe('T1')
    expect(await repos.systems.findByUid(co, b)).toMatchObject({ syncStatus: 'ERROR', lastSyncDate: 1_767_225_600_123 })
    expect((await repos.systems.find(co, { lastAppliedTemplate: 'T1', syncStatus: ['OK'] }, [], PAGE)).items.map((s) => s.uid)).toEqual([a])
    expect((await repos.systems.find(co, { lastSyncAfter: 1_767_225_600_123 }, [], PAGE)).count).toBe(2)
  },

  'deletes many of the company\'s systems with their traffic, answering their parts': async ({ repos, db }) => {
    const co = await newCompany(repos)
    const gw = uniq('gw')
    await repos.gateways.insert({ uid: gw, companyUid: co, imei: null, serialNumber: uniq('SN'), macAddress: null, esn: null, meid: null, type: null, state: 'INVENTORY', transferTo: null, creationDate: 1 })
    const a = await newSystem(repos, co, { gatewayUid: gw })
    const b = await newSystem(repos, co)
    const m = uniq('m')
    await repos.telemetry.insertMessages([{ uid: m, systemUid: a, protocol: 'MQTT', ts: 1, receivedAt: 1, nbDataPoints: 1 }], { again: false })
    await repos.telemetry.insertPoints([{ systemUid: a, dataId: 'x', ts: 1, value: 1, messageUid: m }])
    expect(await repos.systems.deleteMany(await newCompany(repos), [a])).toEqual([])
    expect(await repos.systems.deleteMany(co, [a, 'none'])).toEqual([{ uid: a, gatewayUid: gw, subscriptionUid: null }])
    expect((await db.query('SELECT count(*)::int AS n FROM data_points WHERE system_uid = $1', [a])).rows).toEqual([{ n: 0 }])
    expect((await db.query('SELECT count(*)::int AS n FROM data_rollup_deltas WHERE system_uid = $1', [a])).rows).toEqual([{ n: 0 }])
    expect(await repos.systems.byGateway(gw)).toBeUndefined()
    await repos.systems.delete(b)
    expect(await repos.systems.count(co)).toBe(0)
  },

  'transfers a system with its gateway; an IMEI the destination holds is gateway.not.unique.identifiers': async ({ repos, db }) => {
    const from = await newCompany(repos)
    const to = await newCompany(repos)
    const imei = uniq('35')
    const gateway = (uid: string, companyUid: string): Parameters<typeof repos.gateways.insert>[0] =>
      ({ uid, companyUid, imei, serialNumber: null, macAddress: null, esn: null, meid: null, type: null, state: 'INVENTORY', transferTo: to, creationDate: 1 })
    const gw = uniq('gw')
    await repos.gateways.insert(gateway(gw, from))
    const s = await newSystem(repos, from, { gatewayUid: gw })
    await repos.systems.transfer(s, { companyUid: to, offerUid: null, operatorAccountUid: null })
    expect(await repos.systems.findByUid(to, s)).toMatchObject({ companyUid: to, gateway: { uid: gw, companyUid: to, transferTo: null } })
    expect(await repos.systems.findByUid(from, s)).toBeUndefined()
    const gw2 = uniq('gw')
    await repos.gateways.insert(gateway(gw2, from))
    const s2 = await newSystem(repos, from, { gatewayUid: gw2 })
    const err: unknown = await db.transaction(async (tx) => {
      await createRepositories(tx).systems.transfer(s2, { companyUid: to, offerUid: null, operatorAccountUid: null })
    }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(FleetError)
    expect(err).toMatchObject({ code: 'gateway.not.unique.identifiers', params: [gw2] })
    expect((await repos.systems.findByUid(from, s2))?.companyUid).toBe(from)
  }
})
