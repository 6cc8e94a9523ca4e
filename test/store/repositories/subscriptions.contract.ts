// SubscriptionsRepository (storage/repositories/subscriptions.repository.ts, parts-find.sql.ts): every column and the
// imeiLock JSON round-trip, exact filters over text[] parameters with their totals, labels merged sorted and distinct.
import { expect } from 'vitest'
import { defineContract, newCompany, uniq, type Repos } from './store.js'

type Sub = Parameters<Repos['subscriptions']['insert']>[0]

function subscription (companyUid: string, patch: Partial<Sub> = {}): Sub {
  return {
    uid: uniq('sub'),
    companyUid,
    identifier: uniq('8933'),
    mobileNumber: null,
    networkIdentifier: null,
    ipAddress: null,
    requestedIp: null,
    eid: null,
    operator: 'UNKNOWN',
    state: 'INVENTORY',
    appletGeneration: null,
    formFactor: null,
    confType: null,
    technology: null,
    orderId: null,
    productRefName: null,
    activationImei: null,
    imeiLock: null,
    operatorAccountUid: null,
    creationDate: 1,
    ...patch
  }
}

export const subscriptionsContract = defineContract('SubscriptionsRepository', {
  'round-trips every column, imeiLock as JSON, and updates some': async ({ repos }) => {
    const co = await newCompany(repos)
    const s = subscription(co, { mobileNumber: '+33 6', operator: 'ORANGE', technology: '4G', imeiLock: { imeiLock: '350000000000001', imeiLockDate: 1_767_225_600_123, imeiUnlockedDate: null }, creationDate: 1_767_225_600_000 })
    await repos.subscriptions.insert(s)
    expect(await repos.subscriptions.findByUid(co, s.uid)).toEqual(s)
    expect(await repos.subscriptions.findByIdentifier(co, s.identifier)).toEqual(s)
    expect(await repos.subscriptions.findByIdentifier(await newCompany(repos), s.identifier)).toBeUndefined()
    await repos.subscriptions.update(s.uid, { state: 'ACTIVE', imeiLock: null, ipAddress: '10.0.0.1' })
    expect(await repos.subscriptions.findByUid(co, s.uid)).toEqual({ ...s, state: 'ACTIVE', imeiLock: null, ipAddress: '10.0.0.1' })
  },

  'finds by exact values with totals, sorted NULLS LAST; adds labels sorted and distinct': async ({ repos, db }) => {
    const co = await newCompany(repos)
    const a = subscription(co, { mobileNumber: '+2', creationDate: 2 })
    const b = subscription(co, { mobileNumber: '+1', creationDate: 3, operator: 'SFR' })
    const c = subscription(co, { mobileNumber: null, creationDate: 1 })
    for (const s of [a, b, c]) await repos.subscriptions.insert(s)
    const find = async (filter: Parameters<Repos['subscriptions']['find']>[1], sort: Parameters<Repos['subscriptions']['find']>[2], size = 10): Promise<[number, string[]]> => {
      const f = await repos.subscriptions.find(co, filter, sort, { offset: 0, size })
      return [f.count, f.items.map((s) => s.uid)]
    }
    expect(await find({}, [])).toEqual([3, [c.uid, a.uid, b.uid]])
    expect(await find({}, [{ field: 'mobileNumber', dir: 'asc' }])).toEqual([3, [b.uid, a.uid, c.uid]])
    expect(await find({}, [{ field: 'mobileNumber', dir: 'desc' }], 2)).toEqual([3, [a.uid, b.uid]])
    expect(await find({ operator: ['SFR', 'ORANGE'] }, [])).toEqual([1, [b.uid]])
    expect(await find({ identifier: [a.identifier, c.identifier] }, [])).toEqual([2, [c.uid, a.uid]])
    await repos.subscriptions.addLabels(a.uid, ['y', 'x'])
    await repos.subscriptions.addLabels(a.uid, ['x', 'z'])
    expect((await db.query('SELECT labels FROM subscriptions WHERE uid = $1', [a.uid])).rows).toEqual([{ labels: ['x', 'y', 'z'] }])
    await repos.subscriptions.delete(a.uid)
    expect(await repos.subscriptions.findByUid(co, a.uid)).toBeUndefined()
  }
})
