// AirLink gateways polled end to end (docs/protocols/msci.md): a
// simulated gateway answering SNMP (v2c, v3) or AceManager HTTP on a real port is polled by the service's repeatable
// job; its values reach the API as System data and device messages (protocol MSCI); apply settings writes the
// setting on the gateway and reboots it (MSCI 65001), a reboot operation reboots it, a retrieve reads a setting back;
// a gateway that stops answering turns the system's commStatus WARNING, then ERROR, with lastCommFailureDate.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../helpers/stack.js'
import { createSystem, type Json } from '../helpers/systems.js'
import { uniq } from '../helpers/factories.js'
import { allTasks, getOperation, started, until, waitFinished } from '../helpers/operations.js'
import { createAirlinkGateway, type AirlinkGateway } from '../../simulator/airlink/gateway.js'
import { startSnmpAgent } from '../../simulator/airlink/snmp-agent.js'
import { startAceManager } from '../../simulator/airlink/acemanager-server.js'

let stack: Stack
beforeAll(async () => {
  // Short requests: the tests of a silent gateway wait for its timeouts.
  stack = await startStack({ env: { MSCI_TIMEOUT_MS: '400', MSCI_ALLOWED_NETWORKS: '127.0.0.0/8' } })
})
afterAll(async () => { await stack?.close() })

const call = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown): Promise<Json> => {
  const res = await stack.call(stack.adminToken, { method, url, ...(payload === undefined ? {} : { payload: payload as Json }) })
  if (res.statusCode !== 200) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`)
  return res.body === '' ? {} : res.json()
}

/** An ALEOS firmware application speaking MSCI over `parameters`, with two settings and the REBOOT action. */
async function aleosApplication (parameters: Json): Promise<string> {
  const app = await call('POST', '/api/v1/applications', { name: uniq('ALEOS'), revision: '4.17', type: uniq('aleos.rv55'), category: 'FIRMWARE' })
  await call('PUT', `/api/v1/applications/${app.uid as string}/communication`, [{ type: 'MSCI', commIdType: 'SERIAL', parameters }])
  await call('PUT', `/api/v1/applications/${app.uid as string}/data`, [{
    id: 'aleos',
    label: 'ALEOS',
    elementType: 'node',
    data: [
      { id: '1154', label: 'Device name', elementType: 'setting', type: 'string' },
      { id: '1034', label: 'Telnet port', elementType: 'setting', type: 'int' },
      { id: 'iccid', label: 'SIM ICCID', elementType: 'variable', type: 'string' },
      { id: 'reboot', label: 'Reboot', elementType: 'action', actionType: 'REBOOT' }
    ]
  }])
  return app.uid as string
}

const system = async (uid: string): Promise<Json> => await call('GET', `/api/v1/systems/${uid}`)

interface Case {
  name: string
  parameters: Json
  start: (gw: AirlinkGateway) => Promise<{ port: number, close: () => Promise<void> }>
  user: string
  password: string
}

const CASES: Case[] = [
  { name: 'SNMP v2c', parameters: { access: 'snmp', pollPeriodS: 1 }, user: '', password: 'gw-community', start: async (gw) => await startSnmpAgent(gw, { community: 'gw-community' }) },
  { name: 'SNMP v3', parameters: { access: 'snmp', snmpVersion: '3', pollPeriodS: 1 }, user: 'fleet', password: 'gw-v3-secret', start: async (gw) => await startSnmpAgent(gw, { user: { name: 'fleet', password: 'gw-v3-secret' } }) },
  { name: 'AceManager', parameters: { access: 'acemanager', pollPeriodS: 1 }, user: 'user', password: 'gw-ace-secret', start: async (gw) => await startAceManager(gw, { user: 'user', password: 'gw-ace-secret' }) }
]

describe.each(CASES)('a gateway polled over $name', { timeout: 90_000 }, (c) => {
  let gw: AirlinkGateway
  let server: { port: number, close: () => Promise<void> }
  let uid: string
  beforeAll(async () => {
    const serial = uniq('AL').toUpperCase()
    gw = createAirlinkGateway({ serial })
    server = await c.start(gw)
    const app = await aleosApplication(c.parameters)
    const s = await createSystem(stack, {
      name: serial,
      gateway: { serialNumber: serial },
      communication: { msci: { host: `127.0.0.1:${server.port}`, user: c.user, password: c.password } },
      applications: [{ uid: app }]
    })
    uid = s.uid as string
  })
  afterAll(async () => { await server?.close() })

  it('its values reach the API: System data, commStatus OK, MSCI device messages that move', async () => {
    await until('a first poll', async () => typeof (await system(uid)).data?.rssi === 'number', 30_000)
    const s = await system(uid)
    expect(s.commStatus).toBe('OK')
    expect(s.lastCommDate).toBeGreaterThan(0)
    expect(s.data).toMatchObject({ networkServiceType: 'LTE', networkOperator: 'Simulated Telecom', apn: 'sim.apn', firmwareVersion: '4.17.1.sim' })
    expect(s.data.rssi).toBeLessThanOrEqual(-55)
    expect(s.data.rssiLevel).not.toBe('NO_REPORT')
    expect(typeof s.data.boardTemp).toBe('number')
    expect(typeof s.data.latitude).toBe('number')
    expect(s.data.cellId).toMatch(/A/)
    // One device message per poll, protocol MSCI; the period is 1 s, so more come, and the counters grow.
    await until('three polls', async () => ((await call('GET', `/api/v1/systems/${uid}/messages`)).messages as Json[]).length >= 3, 30_000)
    const { messages } = await call('GET', `/api/v1/systems/${uid}/messages`)
    expect((messages as Json[]).every((m) => m.protocol === 'MSCI' && m.nbDataPoints > 10)).toBe(true)
    const detail = await call('GET', `/api/v1/systems/${uid}/messages/${(messages as Json[])[0]?.uid as string}`)
    expect(Object.keys(detail.data as Json)).toEqual(expect.arrayContaining(['_RSSI', '_BYTES_SENT', 'aleos.iccid', 'aleos.networkState']))
    if (c.parameters.access === 'acemanager') expect(detail.data._RSRP[0].value).toBeLessThan(-800) // dBm → 1/10 dBm
  })

  it('apply settings writes the setting on the gateway, then reboots it', async () => {
    const op = await started(stack.call(stack.adminToken, {
      method: 'POST', url: '/api/v1/operations/systems/settings', payload: { systems: { uids: [uid] }, settings: [{ key: 'aleos.1154', value: 'north-gate' }] }
    }))
    const done = await waitFinished(stack, op, 30_000)
    expect(await allTasks(stack, op)).toMatchObject([{ state: 'SUCCESS', error: null }])
    expect(done.state).toBe('FINISHED')
    expect(gw.settings().get(1154)).toBe('north-gate')
    expect(gw.reboots()).toBe(1)
    expect(await system(uid)).toMatchObject({ syncStatus: 'OK' })
  })

  it('a reboot operation reboots it; a retrieve reads the setting back into the API', async () => {
    const reboot = await started(stack.call(stack.adminToken, { method: 'POST', url: '/api/v1/operations/systems/reboot', payload: { systems: { uids: [uid] } } }))
    await waitFinished(stack, reboot, 30_000)
    expect(await allTasks(stack, reboot)).toMatchObject([{ state: 'SUCCESS' }])
    expect(gw.reboots()).toBe(2)

    const retrieve = await started(stack.call(stack.adminToken, {
      method: 'POST', url: '/api/v1/operations/systems/data/retrieve', payload: { systems: { uids: [uid] }, data: ['aleos.1154', 'aleos.iccid'] }
    }))
    await waitFinished(stack, retrieve, 30_000)
    expect(await allTasks(stack, retrieve)).toMatchObject([{ state: 'SUCCESS' }])
    // The last values follow the stored messages in coalesced flushes.
    const last = async (): Promise<Json> => await call('GET', `/api/v1/systems/${uid}/data?ids=aleos.1154,aleos.iccid`)
    await until('the last values', async () => (await last())['aleos.1154'] !== undefined, 10_000)
    expect((await last())['aleos.1154']).toMatchObject([{ value: 'north-gate' }])
    expect(String((await last())['aleos.iccid']?.[0]?.value)).toMatch(/^8933/)
  })

  it('a setting the gateway refuses ends the task FAILURE with its reason', async () => {
    const app = (await system(uid)).applications[0].uid as string
    await call('PUT', `/api/v1/applications/${app}/data`, [{ id: 'aleos', label: 'ALEOS', elementType: 'node', data: [{ id: '261', label: 'RSSI', elementType: 'setting', type: 'int' }] }])
    const op = await started(stack.call(stack.adminToken, {
      method: 'POST', url: '/api/v1/operations/systems/settings', payload: { systems: { uids: [uid] }, settings: [{ key: 'aleos.261', value: 5 }], reboot: false }
    }))
    await waitFinished(stack, op, 30_000)
    const [task] = await allTasks(stack, op)
    expect(task).toMatchObject({ state: 'FAILURE', error: { code: 'operation.device.error' } })
    expect(JSON.stringify(task)).not.toContain(c.password)
  })

  it('a gateway that stops answering: commStatus WARNING, then ERROR, with lastCommFailureDate', async () => {
    await server.close()
    const before = Date.now()
    await until('WARNING', async () => (await system(uid)).commStatus === 'WARNING', 30_000)
    expect((await system(uid)).data.lastCommFailureDate).toBeGreaterThanOrEqual(before - 1000)
    // Three failures in a row (backing off: about 1 + 2 + 4 s).
    await until('ERROR', async () => (await system(uid)).commStatus === 'ERROR', 60_000)
    const op = await getOperation(stack, (await started(stack.call(stack.adminToken, { method: 'POST', url: '/api/v1/operations/systems/reboot', payload: { systems: { uids: [uid] } } }))))
    expect(op.total).toBe(1) // the task waits for the gateway (no SMS, nothing pushed), it is not lost
  })
})
