// Error parameters say how to fix the request: the codes stay those of docs/api.md#using-the-api, and the
// last parameter tells the caller what is allowed (interval form and units, functions, selection fields, sortable
// fields, enum values, bounds).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../helpers/stack.js'
import { createSystem } from '../helpers/systems.js'
import { SYSTEM_SORTS } from '../../core/domain/system.js'

let stack: Stack
let uid: string

beforeAll(async () => {
  stack = await startStack()
  uid = (await createSystem(stack, { name: 'params' })).uid
})
afterAll(async () => { await stack.close() })

async function error (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object): Promise<{ error: string, errorParameters: string[] }> {
  const res = await stack.call(stack.adminToken, { method, url, ...(payload === undefined ? {} : { payload }) })
  expect(res.statusCode, `${method} ${url} → ${res.body}`).toBe(400)
  return res.json()
}

describe('data queries', () => {
  const form = '<n><unit>: n from 1 to 50, unit hour, day, month, year (e.g. 1hour, 7day, 1month)'

  it('an invalid interval names the allowed form and units', async () => {
    expect(await error('GET', `/api/v1/systems/data/aggregated?targetIds=${uid}&dataIds=t&interval=90day`))
      .toEqual({ error: 'aggregation.invalid.multiplier', errorParameters: ['90day', form] })
    expect(await error('GET', `/api/v1/systems/data/fleet?targetIds=${stack.companyUid}&dataIds=t&interval=1week`))
      .toEqual({ error: 'aggregation.invalid.timescale', errorParameters: ['1week', form] })
  })

  it('a bad fn lists the functions', async () => {
    expect(await error('GET', `/api/v1/systems/data/aggregated?targetIds=${uid}&dataIds=t&fn=median`))
      .toEqual({ error: 'request.invalid', errorParameters: ['fn', 'median', 'one of mean, min, max, sum, stddev, ss, cnt (or count, standarddeviation)'] })
  })

  it('a time range the wrong way round says which way it goes', async () => {
    expect(await error('GET', `/api/v1/systems/data/raw?targetIds=${uid}&dataIds=t&from=1700000002000&to=1700000001000`))
      .toEqual({ error: 'system.invalid.timerange', errorParameters: ['1700000002000', '1700000001000', 'from must not be later than to'] })
  })
})

describe('lists', () => {
  it('a bad sort field lists the sortable ones; a bad direction says asc or desc', async () => {
    expect(await error('GET', '/api/v1/systems?orderBy=type'))
      .toEqual({ error: 'sort.invalid.field', errorParameters: ['type', `sortable: ${SYSTEM_SORTS.join(', ')}`] })
    expect(await error('GET', '/api/v1/systems?orderBy=name:up'))
      .toEqual({ error: 'sort.invalid.field', errorParameters: ['name', 'direction up: asc or desc'] })
  })

  it('an unknown value of an enumerated parameter lists the allowed values', async () => {
    expect(await error('GET', '/api/v1/applications?category=HARDWARE'))
      .toEqual({ error: 'unknown.enum.value', errorParameters: ['querystring/category', 'must be one of APPLICATION, SOFTWARE, FIRMWARE'] })
  })

  it('a map parameter that is not key:value says the form', async () => {
    expect(await error('GET', '/api/v1/systems?gateway=imei'))
      .toEqual({ error: 'request.invalid', errorParameters: ['imei', 'key:value pairs, comma separated (key1:value1,key2:value2)'] })
  })
})

describe('bodies', () => {
  it('a missing required property is named with its path', async () => {
    expect(await error('POST', '/api/v1/applications', { type: 'x', revision: '1' }))
      .toEqual({ error: 'request.invalid', errorParameters: ['body/name', 'is required'] })
  })

  it('a value of the wrong type names every type the field takes', async () => {
    expect(await error('POST', '/api/v1/operations/systems/label', { labels: { add: ['x'] }, criteria: { uids: [uid] }, scheduledTime: 'tomorrow' }))
      .toEqual({ error: 'request.invalid', errorParameters: ['body/scheduledTime', 'must be null or integer'] })
  })

  it('a gateway without identifiers names the identifiers it may have', async () => {
    expect(await error('POST', '/api/v1/systems', { name: 'g', gateway: { type: 'x' } }))
      .toEqual({ error: 'gateway.missing.identifiers', errorParameters: ['gateway', 'set one of imei, serialNumber, macAddress (or uid for an existing gateway)'] })
  })

  it('an invalid IP filter names the filter and what a valid one is', async () => {
    expect(await error('PUT', `/api/v1/company/${stack.companyUid}`, { ipFilters: { ipAddresses: ['not-an-address'] } }))
      .toEqual({ error: 'company.invalid.ip.address', errorParameters: ['ipFilters', 'every address of ipAddresses, startIPAddress and endIPAddress is an IPv4 or IPv6 address'] })
  })
})

describe('bulk operations (selection set S, schedule set T)', () => {
  const del = '/api/v1/operations/systems/delete'

  it('selection.invalid names the selection fields that were set', async () => {
    const rule = 'set exactly one of label, uids, dependsOn, criteria'
    expect(await error('POST', del, { systems: { label: 'a', uids: [uid] } })).toEqual({ error: 'selection.invalid', errorParameters: ['set: label, uids', rule] })
    expect(await error('POST', del, { systems: {} })).toEqual({ error: 'selection.invalid', errorParameters: ['none set', rule] })
    expect(await error('POST', '/api/v1/operations/systems/label', { labels: { add: ['x'] }, criteria: { uids: [uid] }, identifiers: { name: ['x'] } }))
      .toEqual({ error: 'selection.invalid', errorParameters: ['set: criteria, identifiers', 'set at most one of criteria, dependsOn, identifiers'] })
  })

  it('selection.empty names the selection that selected nothing', async () => {
    expect(await error('POST', del, { systems: { uids: [] } })).toEqual({ error: 'selection.empty', errorParameters: ['uids', 'the list is empty'] })
    expect(await error('POST', del, { systems: { criteria: { name: 'no-such-system' } } }))
      .toEqual({ error: 'selection.empty', errorParameters: ['criteria', 'no system of the company matches'] })
  })

  it('an unknown dependsOn state lists the states', async () => {
    const parent = (await stack.call(stack.adminToken, { method: 'POST', url: '/api/v1/operations/systems/label', payload: { labels: { add: ['p'] }, criteria: { uids: [uid] } } })).json().operation as string
    expect(await error('POST', del, { systems: { dependsOn: { operation: parent, states: ['DONE'] } } }))
      .toEqual({ error: 'unknown.enum.value', errorParameters: ['dependsOn.states', 'one of SUCCESS, FAILURE, CANCELLED'] })
  })

  it('swap SIM names its selection and the identifier types', async () => {
    const swap = '/api/v1/operations/systems/swapsim'
    expect(await error('POST', swap, { systems: {} })).toEqual({ error: 'selection.empty', errorParameters: ['systems', 'give at least one source: target pair'] })
    const bad = await error('POST', swap, { identifierType: 'imei', systems: { a: 'b' } })
    expect(bad.error).toBe('unknown.enum.value')
    expect(bad.errorParameters.slice(0, 2)).toEqual(['identifierType', 'imei'])
    expect(bad.errorParameters[2]).toMatch(/^one of uid, name, gatewaySerialNumber, gatewayImei, /)
  })

  it('label.missing says where labels go', async () => {
    expect(await error('POST', '/api/v1/operations/systems/label', { labels: { add: [] }, criteria: { uids: [uid] } }))
      .toEqual({ error: 'label.missing', errorParameters: ['labels', 'give at least one label in labels.add or labels.remove'] })
  })

  it('schedule errors give the bound', async () => {
    const label = '/api/v1/operations/systems/label'
    const body = { labels: { add: ['later'] }, criteria: { uids: [uid] } }
    const at = Date.now() + 91 * 86_400_000
    const far = await error('POST', label, { ...body, scheduledTime: at })
    expect(far.error).toBe('operation.invalid.schedule.date')
    expect(far.errorParameters[0]).toBe(String(at))
    expect(far.errorParameters[1]).toMatch(/^scheduledTime must be less than 90 days ahead: before \d+ \(\d{4}-\d\d-\d\dT/)
    const soon = Date.now() + 86_400_000
    expect(await error('POST', label, { ...body, scheduledTime: soon, timeout: soon - 1000 }))
      .toEqual({ error: 'operation.invalid.timeout.date', errorParameters: [String(soon - 1000), `timeout must not be earlier than scheduledTime ${soon}`] })
  })
})
