// The public generic firmware applications: seeded at every start, one per protocol, with the
// device-management variables, the config settings and the system actions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createUser } from '../../helpers/factories.js'
import type { Json } from '../../helpers/systems.js'
import { bootstrapStore } from '../../../bin/context.js'
import { flattenData } from '../../../core/domain/application-model.js'
import { SYSTEM_DATA_IDS } from '../../../core/domain/system-data.js'
import { GENERIC_ACTIONS, GENERIC_APPLICATION_TYPES, GENERIC_SETTINGS } from '../../../core/domain/generic-applications.js'

let stack: Stack

beforeAll(async () => { stack = await startStack() })
afterAll(async () => { await stack.close() })

const generic = async (token = stack.adminToken): Promise<Json[]> => {
  const res = await stack.call(token, { method: 'GET', url: '/api/v1/applications?type=generic.&size=500' })
  expect(res.statusCode).toBe(200)
  return res.json().items
}

describe('generic firmware applications', () => {
  it('are public, one per protocol, FIRMWARE revision 1.0, each speaking its protocol', async () => {
    const apps = await generic()
    expect(apps.map((a) => [a.type, a.name, a.category, a.revision, a.public, a.communication]).sort()).toEqual([
      ['generic.m3da', 'Generic M3DA firmware', 'FIRMWARE', '1.0', true, [{ type: 'M3DA', commIdType: 'SERIAL' }]],
      ['generic.mqtt', 'Generic MQTT firmware', 'FIRMWARE', '1.0', true, [{ type: 'MQTT', commIdType: 'SERIAL' }]],
      ['generic.msci', 'Generic MSCI firmware', 'FIRMWARE', '1.0', true, [{ type: 'MSCI', commIdType: 'SERIAL' }]],
      ['generic.rest', 'Generic REST firmware', 'FIRMWARE', '1.0', true, [{ type: 'REST', commIdType: 'SERIAL' }]],
      ['generic.sparkplug', 'Generic Sparkplug firmware', 'FIRMWARE', '1.0', true, [{ type: 'SPARKPLUG', commIdType: 'SERIAL' }]]
    ])
    expect(apps.map((a) => a.type).sort()).toEqual(Object.values(GENERIC_APPLICATION_TYPES).sort())
    // Every company sees them.
    const elsewhere = await createUser(stack, { company: 'Elsewhere', rights: ['entities.applications.view'] })
    expect((await generic(elsewhere.token)).length).toBe(5)
  })

  it('declare the device-management variables, the config settings and the system actions', async () => {
    for (const app of await generic()) {
      const leaves = flattenData(app.data)
      const byId = new Map(leaves.map((d) => [d.id, d]))
      for (const id of Object.keys(SYSTEM_DATA_IDS)) expect(byId.get(id)?.elementType, `${app.type as string} ${id}`).toBe('variable')
      expect(byId.get('_RSSI')?.type).toBe('double')
      expect(byId.get('_LATITUDE')?.type).toBe('double')
      expect(byId.get('_FIRMWARE_VERSION')?.type).toBe('string')
      expect(byId.get('_NUMBER_OF_RESETS')?.type).toBe('int')
      expect(leaves.filter((d) => d.elementType === 'setting').map((d) => [d.id, d.type])).toEqual([
        [GENERIC_SETTINGS.reportPeriodS, 'int'], [GENERIC_SETTINGS.serverUrl, 'string'], [GENERIC_SETTINGS.gpsEnabled, 'boolean'],
        [GENERIC_SETTINGS.temperatureThreshold, 'double'], [GENERIC_SETTINGS.apn, 'string']
      ])
      expect(leaves.filter((d) => d.elementType === 'action').map((d) => [d.id, d.actionType])).toEqual([
        [GENERIC_ACTIONS.reboot, 'REBOOT'], [GENERIC_ACTIONS.reset, 'RESET'], [GENERIC_ACTIONS.connect, 'CONNECT']
      ])
      expect(leaves).toHaveLength(Object.keys(SYSTEM_DATA_IDS).length + 5 + 3)
    }
  })

  it('are brought back as seeded at the next start, never twice', async () => {
    const before = await generic()
    await stack.db.query('UPDATE applications SET data = \'[]\'::jsonb, communication = \'[]\'::jsonb WHERE type = \'generic.mqtt\'')
    await bootstrapStore(stack.ctx, stack.db)
    await bootstrapStore(stack.ctx, stack.db)
    expect(await generic()).toEqual(before)
  })

  it('can be installed on a system, which then lists them', async () => {
    const mqtt = (await generic()).find((a) => a.type === 'generic.mqtt')
    const res = await stack.call(stack.adminToken, { method: 'POST', url: '/api/v1/systems', payload: { name: 'generic', applications: [{ uid: mqtt?.uid }] } })
    expect(res.statusCode).toBe(200)
    expect(res.json().applications).toEqual([{ uid: mqtt?.uid, name: 'Generic MQTT firmware', revision: '1.0', type: 'generic.mqtt', category: 'FIRMWARE' }])
  })
})
