// An application whose communication type is SNMP is MSCI over SNMP (docs/protocols/msci.md): its
// gateways are polled over SNMP at its pollPeriodS, and retrieve, apply settings and reboot write MSCI tasks, which
// the MSCI transport carries over SNMP (before, they were written with protocol SNMP, which no transport takes, and
// hung IN_PROGRESS until the timeout).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createSystem, type Json } from '../../helpers/systems.js'
import { uniq } from '../../helpers/factories.js'
import { allTasks, started, until, waitFinished } from '../../helpers/operations.js'
import { createAirlinkGateway, type AirlinkGateway } from '../../../simulator/airlink/gateway.js'
import { startSnmpAgent } from '../../../simulator/airlink/snmp-agent.js'

let stack: Stack
let gw: AirlinkGateway
let agent: { port: number, close: () => Promise<void> }
let uid: string
let app: string

const call = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown): Promise<Json> => {
  const res = await stack.call(stack.adminToken, { method, url, ...(payload === undefined ? {} : { payload: payload as Json }) })
  if (res.statusCode !== 200) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`)
  return res.body === '' ? {} : res.json()
}

beforeAll(async () => {
  stack = await startStack({ env: { MSCI_TIMEOUT_MS: '400', MSCI_ALLOWED_NETWORKS: '127.0.0.0/8' } })
  const serial = uniq('SNMP').toUpperCase()
  gw = createAirlinkGateway({ serial })
  agent = await startSnmpAgent(gw, { community: 'gw-community' })
  app = (await call('POST', '/api/v1/applications', { name: uniq('ALEOS'), revision: '4.17', type: uniq('aleos'), category: 'FIRMWARE' })).uid as string
  await call('PUT', `/api/v1/applications/${app}/communication`, [{ type: 'SNMP', commIdType: 'SERIAL', parameters: { pollPeriodS: 1 } }])
  await call('PUT', `/api/v1/applications/${app}/data`, [{
    id: 'aleos',
    elementType: 'node',
    data: [
      { id: '1154', elementType: 'setting', type: 'string' },
      { id: 'reboot', elementType: 'action', actionType: 'REBOOT' }
    ]
  }])
  uid = (await createSystem(stack, {
    name: serial, gateway: { serialNumber: serial }, applications: [{ uid: app }], communication: { msci: { host: `127.0.0.1:${agent.port}`, password: 'gw-community' } }
  })).uid as string
}, 120_000)
afterAll(async () => {
  await stack?.close()
  await agent?.close()
})

describe('an application of communication type SNMP', { timeout: 60_000 }, () => {
  it('is polled over SNMP at its pollPeriodS', async () => {
    // The default period is 300 s, the first poll anywhere in it: three polls in seconds are the application's 1 s.
    await until('three polls', async () => ((await call('GET', `/api/v1/systems/${uid}/messages`)).messages as Json[]).length >= 3, 30_000)
    const { messages } = await call('GET', `/api/v1/systems/${uid}/messages`)
    expect((messages as Json[]).every((m) => m.protocol === 'MSCI')).toBe(true)
  })

  it('apply settings, reboot and retrieve are carried over SNMP and finish', async () => {
    const settings = await started(stack.call(stack.adminToken, { method: 'POST', url: '/api/v1/operations/systems/settings', payload: { systems: { uids: [uid] }, settings: [{ key: 'aleos.1154', value: 'snmp-gate' }], reboot: false } }))
    await waitFinished(stack, settings, 30_000)
    expect(await allTasks(stack, settings)).toMatchObject([{ state: 'SUCCESS' }])
    expect(gw.settings().get(1154)).toBe('snmp-gate')
    const reboot = await started(stack.call(stack.adminToken, { method: 'POST', url: '/api/v1/operations/systems/reboot', payload: { systems: { uids: [uid] } } }))
    await waitFinished(stack, reboot, 30_000)
    expect(await allTasks(stack, reboot)).toMatchObject([{ state: 'SUCCESS' }])
    expect(gw.reboots()).toBe(1)
    const retrieve = await started(stack.call(stack.adminToken, { method: 'POST', url: '/api/v1/operations/systems/data/retrieve', payload: { systems: { uids: [uid] }, data: ['aleos.1154'], protocol: 'SNMP' } }))
    await waitFinished(stack, retrieve, 30_000)
    expect(await allTasks(stack, retrieve)).toMatchObject([{ state: 'SUCCESS' }])
    const { rows } = await stack.db.query<{ protocol: string }>('SELECT DISTINCT protocol FROM device_tasks WHERE system_uid = $1', [uid])
    expect(rows).toEqual([{ protocol: 'MSCI' }])
  })

  it('refuses an SNMP entry that asks for another access path', async () => {
    const res = await stack.call(stack.adminToken, { method: 'PUT', url: `/api/v1/applications/${app}/communication`, payload: [{ type: 'SNMP', commIdType: 'SERIAL', parameters: { access: 'acemanager' } }] })
    expect(res.json()).toMatchObject({ error: 'unknown.enum.value' })
  })
})
