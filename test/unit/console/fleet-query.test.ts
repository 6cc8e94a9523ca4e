import { describe, expect, it } from 'vitest'
import { EMPTY_QUERY, fleetApiQuery, fleetCriteria, fleetPath, fleetQueryParams, hasFilters, nextSort, parseFleetQuery } from '../../../console/src/pages/fleet/query.js'

describe('fleet query', () => {
  it('reads every filter, the sort and the page from the hash and writes them back the same', () => {
    const params = {
      name: 'pump',
      labels: 'north,south',
      commStatus: 'ERROR,WARNING',
      lifeCycleStates: 'ACTIVE',
      type: 'FX30',
      serialNumber: 'LL01',
      imei: '3569',
      identifier: '8933',
      usageStatus: 'NEARING_PLAN',
      lastCommAfter: '1763884800000',
      lastCommBefore: '1763971200000',
      orderBy: 'lastCommDate',
      desc: '1',
      size: '25',
      offset: '50'
    }
    const q = parseFleetQuery(params)
    expect(q.labels).toEqual(['north', 'south'])
    expect(q.commStatus).toEqual(['ERROR', 'WARNING'])
    expect(q.lastCommAfter).toBe(1763884800000)
    expect(q.desc).toBe(true)
    expect(fleetQueryParams(q)).toEqual(params)
    expect(parseFleetQuery(Object.fromEntries(new URLSearchParams(fleetPath(q).split('?')[1])))).toEqual(q)
  })

  it('falls back to the defaults on unknown or malformed values', () => {
    const q = parseFleetQuery({ commStatus: 'BAD,OK', lifeCycleStates: 'NOPE', usageStatus: 'x', orderBy: 'password', desc: '1', size: '1000', offset: '-3', lastCommAfter: 'yesterday' })
    expect(q).toEqual({ ...EMPTY_QUERY, commStatus: ['OK'] })
    expect(fleetPath(parseFleetQuery({}))).toBe('/fleet')
  })

  it('keeps the offset on a page boundary and drops duplicate labels', () => {
    const q = parseFleetQuery({ offset: '60', size: '25', labels: 'a, a,,b' })
    expect(q.offset).toBe(50)
    expect(q.labels).toEqual(['a', 'b'])
  })

  it('builds the query of GET /api/v1/systems: lists comma joined, map parameters, orderBy with its direction', () => {
    const q = parseFleetQuery({ name: 'pump', labels: 'a,b', serialNumber: 'LL', identifier: '89', orderBy: 'data.rssi', desc: '1', offset: '100', size: '100' })
    expect(fleetApiQuery(q, ['uid', 'name'])).toEqual({
      name: 'pump',
      labels: 'a,b',
      gateway: 'serialNumber:LL',
      subscription: 'identifier:89',
      fields: 'uid,name',
      offset: 100,
      size: 100,
      orderBy: 'data.rssi:desc'
    })
    expect(fleetApiQuery(parseFleetQuery({ imei: '35', serialNumber: 'S' }), ['uid']).gateway).toBe('serialNumber:S,imei:35')
    expect(fleetApiQuery(EMPTY_QUERY, ['uid'])).toEqual({ fields: 'uid', offset: 0, size: 50 })
  })

  it('tells whether a filter is set', () => {
    expect(hasFilters(EMPTY_QUERY)).toBe(false)
    expect(hasFilters(parseFleetQuery({ orderBy: 'name', offset: '50' }))).toBe(false)
    expect(hasFilters(parseFleetQuery({ commStatus: 'OK' }))).toBe(true)
  })

  it('cycles a column sort: ascending, descending, then the service order', () => {
    const a = { ...EMPTY_QUERY, ...nextSort(EMPTY_QUERY, 'name') }
    expect([a.orderBy, a.desc]).toEqual(['name', false])
    const b = { ...a, ...nextSort(a, 'name') }
    expect([b.orderBy, b.desc]).toEqual(['name', true])
    expect(nextSort(b, 'name')).toEqual({ orderBy: '', desc: false })
    expect(nextSort(b, 'lastCommDate')).toEqual({ orderBy: 'lastCommDate', desc: false })
  })

  it('gives the same filters as bulk operation criteria, or none when a filter has no criteria counterpart', () => {
    const q = parseFleetQuery({ name: 'pump', labels: 'a,b', commStatus: 'ERROR', lifeCycleStates: 'ACTIVE', serialNumber: 'LL', identifier: '89', lastCommBefore: '1000', orderBy: 'name', offset: '50' })
    expect(fleetCriteria(q)).toEqual({
      name: 'pump',
      labels: ['a', 'b'],
      commStatus: ['ERROR'],
      lifeCycleStates: ['ACTIVE'],
      gateway: { serialNumber: 'LL' },
      subscription: { identifier: '89' },
      lastCommBefore: 1000
    })
    expect(fleetCriteria(EMPTY_QUERY)).toEqual({})
    expect(fleetCriteria(parseFleetQuery({ usageStatus: 'NEARING_PLAN' }))).toBeNull()
  })
})
