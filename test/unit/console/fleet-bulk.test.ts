import { describe, expect, it } from 'vitest'
import { deleteRequest, labelRequest, rebootRequest, retrieveRequest, settingsOf, settingsRequest, settingValue, splitList } from '../../../console/src/pages/fleet/bulk.js'

describe('fleet bulk operations', () => {
  it('splits typed lists on commas and spaces, each item once', () => {
    expect(splitList(' north, south  east,,north ')).toEqual(['north', 'south', 'east'])
    expect(splitList('  ')).toEqual([])
  })

  it('labels through top-level criteria uids (fleet-api.md §Label), the others through a systems selection', () => {
    const a = { uids: ['a'] }
    expect(labelRequest({ uids: ['a', 'b'] }, ['x'], [])).toEqual({ path: '/api/v1/operations/systems/label', body: { criteria: { uids: ['a', 'b'] }, labels: { add: ['x'], remove: [] } } })
    expect(rebootRequest(a, true)).toEqual({ path: '/api/v1/operations/systems/reboot', body: { systems: { uids: ['a'] }, requestConnection: true } })
    expect(retrieveRequest(a, ['temp'], false).body).toEqual({ systems: { uids: ['a'] }, data: ['temp'], requestConnection: false })
    expect(deleteRequest(a, true, false)).toEqual({ path: '/api/v1/operations/systems/delete', body: { systems: { uids: ['a'] }, deleteGateways: true, deleteSubscriptions: false } })
    expect(settingsRequest(a, [{ key: 'k', value: 1 }], false, true)).toEqual({
      path: '/api/v1/operations/systems/settings', body: { systems: { uids: ['a'] }, settings: [{ key: 'k', value: 1 }], reboot: false, requestConnection: true }
    })
  })

  it('acts on every system matching the filters through criteria: top level for label, systems.criteria for the others', () => {
    const all = { criteria: { commStatus: ['ERROR'], labels: ['north'] } }
    expect(labelRequest(all, [], ['old']).body).toEqual({ criteria: { commStatus: ['ERROR'], labels: ['north'] }, labels: { add: [], remove: ['old'] } })
    expect(rebootRequest(all, false).body).toEqual({ systems: { criteria: { commStatus: ['ERROR'], labels: ['north'] } }, requestConnection: false })
    expect(deleteRequest({ criteria: {} }, false, false).body.systems).toEqual({ criteria: {} })
  })

  it('types setting values as the JSON type gives the setting type', () => {
    expect(settingValue({ key: 'k', value: 'true', type: 'auto' })).toBe(true)
    expect(settingValue({ key: 'k', value: ' 2.5 ', type: 'auto' })).toBe(2.5)
    expect(settingValue({ key: 'k', value: 'eu.apn', type: 'auto' })).toBe('eu.apn')
    expect(settingValue({ key: 'k', value: '12', type: 'string' })).toBe('12')
    expect(settingValue({ key: 'k', value: 'yes', type: 'boolean' })).toBeNull()
    expect(settingValue({ key: 'k', value: 'x', type: 'number' })).toBeNull()
    expect(settingValue({ key: 'k', value: '', type: 'auto' })).toBe('')
  })

  it('keeps the rows with a key and names the first value that does not fit its type', () => {
    expect(settingsOf([{ key: ' a ', value: '1', type: 'auto' }, { key: '', value: 'x', type: 'auto' }])).toEqual({ settings: [{ key: 'a', value: 1 }], error: null })
    expect(settingsOf([{ key: 'b', value: 'x', type: 'number' }]).error).toBe('The value of b is not a number.')
  })
})
