import { describe, expect, it } from 'vitest'
import { applicationsOf, declaredSettings, settingTypeOf } from '../../../console/src/pages/fleet/declared-settings.js'
import { templateRequest } from '../../../console/src/pages/fleet/bulk.js'

const generic = {
  uid: 'g',
  name: 'Generic MQTT firmware',
  data: [
    { id: 'config', elementType: 'node', data: [{ id: 'reportPeriodS', elementType: 'setting', type: 'int' }, { id: 'apn', elementType: 'setting', type: 'string' }] },
    { id: '_RSSI', elementType: 'variable', type: 'int' },
    { id: 'system', elementType: 'node', data: [{ id: 'reboot', elementType: 'action' }] }
  ]
}
const other = { uid: 'o', name: 'Pump', data: [{ id: 'pump', elementType: 'node', data: [{ id: 'on', elementType: 'setting', type: 'boolean' }] }, { id: 'config', elementType: 'node', data: [{ id: 'apn', elementType: 'setting', type: 'string' }] }] }

describe('the settings the apply-settings dialog offers', () => {
  it('are the settings of the applications\' data trees, by dotted key, each once, variables and actions left out', () => {
    expect(declaredSettings([generic, other])).toEqual([
      { key: 'config.apn', type: 'string', application: 'Generic MQTT firmware' },
      { key: 'config.reportPeriodS', type: 'int', application: 'Generic MQTT firmware' },
      { key: 'pump.on', type: 'boolean', application: 'Pump' }
    ])
    expect(declaredSettings([{ uid: 'x', name: 'Bare', data: null }])).toEqual([])
  })

  it('come from the chosen systems\' applications when those are known', () => {
    expect(applicationsOf([generic, other], new Set(['o'])).map((a) => a.uid)).toEqual(['o'])
    expect(applicationsOf([generic, other], null).map((a) => a.uid)).toEqual(['g', 'o'])
  })

  it('bring the value type of their declaration', () => {
    expect(['int', 'double', 'boolean', 'string', 'date', null].map(settingTypeOf)).toEqual(['number', 'number', 'boolean', 'string', 'string', 'auto'])
  })

  it('or a template of the company is applied by its id', () => {
    expect(templateRequest({ uids: ['a'] }, 't1', false, false)).toEqual({
      path: '/api/v1/operations/systems/settings', body: { systems: { uids: ['a'] }, templateId: 't1', reboot: false, requestConnection: false }
    })
  })
})
