// Device credentials in an external Mosquitto: the service keeps its dynamic security in step with the
// systems, and real mqtt.js devices log in to that broker (not to the service) with what the API set.
import type { MqttClient } from 'mqtt'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { startStack, COMPANY_NAME, type Stack } from '../../helpers/stack.js'
import { seed } from '../../helpers/factories.js'
import { putSystem } from '../../helpers/systems.js'
import { createDevice, type Device } from '../../helpers/devices.js'
import { postDelete, started, until, waitFinished } from '../../helpers/operations.js'
import { EDIT, IMPORT, runCsv } from '../operations/csv/csv-helpers.js'
import { uniq } from '../../helpers/factories.js'
import { DYNSEC_ADMIN, adminPassword, startMosquitto, tryConnect, type Mosquitto } from '../../helpers/mosquitto.js'
import { freePort } from '../../helpers/child.js'
import { brokerCommand } from '../../../bin/broker.js'
import { createDynsecClient, type DynsecClient } from '../../../ingest/broker-sync/dynsec-client.js'
import { createDynsecSync } from '../../../ingest/broker-sync/dynsec-sync.js'
import { createBrokerLoginsRepository } from '../../../storage/repositories/broker-logins.repository.js'

const PARTNER = 'Broker Partner'
const PW = 'broker-mover-pw'

let broker: Mosquitto
let stack: Stack
let mover: string
let partner: string

beforeAll(async () => {
  broker = await startMosquitto()
  // No device transport: the devices connect to Mosquitto, which checks them against what the service gave it.
  stack = await startStack({ env: { MQTT_URL: broker.adminUrl, WORKER_CONCURRENCY: '2' }, transports: [] })
  await seed(stack, {
    companies: [{ name: PARTNER }, { name: COMPANY_NAME, partners: [PARTNER] }],
    profiles: [
      { company: COMPANY_NAME, name: 'movers', rights: ['entities.systems.view', 'entities.systems.create', 'entities.systems.edit', 'entities.systems.delete', 'entities.systems.transfers.create'] },
      { company: PARTNER, name: 'receivers', rights: ['entities.systems.view', 'entities.systems.create', 'entities.systems.edit'] }
    ],
    users: [{ email: 'mover@broker.test', name: 'Mover', password: PW, companies: [{ company: COMPANY_NAME, profile: 'movers' }, { company: PARTNER, profile: 'receivers' }] }]
  })
  mover = await stack.login('mover@broker.test', PW)
  partner = (await stack.db.query<{ uid: string }>('SELECT uid FROM companies WHERE name = $1', [PARTNER])).rows[0]?.uid ?? ''
}, 180_000)
afterAll(async () => {
  await stack?.close()
  await broker?.stop()
})

async function connected (username: string, password: string, opts: Parameters<typeof tryConnect>[3] = {}): Promise<MqttClient> {
  const c = await tryConnect(broker.url, username, password, opts)
  if (typeof c === 'string') throw new Error(`${username} refused: ${c}`)
  onTestFinished(async () => { await c.endAsync(true) })
  return c
}

async function refused (username: string, password: string): Promise<void> {
  const c = await tryConnect(broker.url, username, password)
  if (typeof c !== 'string') await c.endAsync(true)
  expect(typeof c === 'string' ? c : 'accepted').toMatch(/not authorized|bad user name or password/i)
}

/** Each filter subscribed alone: whether the broker granted it (MQTT 5 SUBACK reason code below 128). */
async function grants (c: MqttClient, filters: string[]): Promise<boolean[]> {
  const out: boolean[] = []
  for (const f of filters) out.push(await c.subscribeAsync(f).then(() => true, () => false))
  return out
}

const closedOnce = async (c: MqttClient): Promise<void> => { await until('the broker closes the connection', () => !c.connected) }

describe('device credentials in Mosquitto dynamic security', () => {
  it('a new system can connect at once, by its serial number and by its IMEI, with its MQTT password only', async () => {
    const d = await createDevice(stack)
    await connected(d.serial, d.mqttPassword ?? '')
    await connected(d.imei, d.mqttPassword ?? '')
    await refused(d.serial, 'wrong')
    await refused(d.serial, d.restPassword ?? '')
  })

  it('a system without an MQTT password has no MQTT login', async () => {
    const d = await createDevice(stack, { mqttPassword: null })
    await refused(d.serial, d.restPassword ?? '')
    const roles = await broker.dynsec([{ command: 'getClient', username: d.serial }])
    expect(roles[0]?.error).toMatch(/not found/i)
  })

  it('a device publishes and subscribes only under its own <login>/', async () => {
    const a = await createDevice(stack)
    const b = await createDevice(stack)
    const watcher = await broker.admin()
    const seen: string[] = []
    watcher.on('message', (topic) => { seen.push(topic) })
    await watcher.subscribeAsync('#')
    const dev = await connected(a.serial, a.mqttPassword ?? '', { protocolVersion: 5 })
    await expect(dev.publishAsync(`${b.serial}/messages/json`, '{"x":1}', { qos: 1 })).rejects.toThrow(/not authorized/i)
    await expect(dev.publishAsync('elsewhere/messages/json', '{"x":1}', { qos: 1 })).rejects.toThrow(/not authorized/i)
    expect(await grants(dev, [`${b.serial}/tasks/json`, '#', '+/tasks/json', `${a.serial}/tasks/json`, `${a.serial}/#`])).toEqual([false, false, false, true, true])
    // MQTT 3.1.1 has no refusal in PUBACK: the foreign message is dropped; the own one after it shows it would have come.
    const v4 = await connected(a.imei, a.mqttPassword ?? '')
    await v4.publishAsync(`${b.imei}/messages/json`, '{"x":2}', { qos: 1 })
    await dev.publishAsync(`${a.serial}/messages/json`, '{"x":3}', { qos: 1 })
    await v4.publishAsync(`${a.imei}/acks/json`, '[]', { qos: 1 })
    await until('the own messages reach the watcher', () => seen.includes(`${a.imei}/acks/json`))
    expect(seen.filter((t) => !t.startsWith('$'))).toEqual([`${a.serial}/messages/json`, `${a.imei}/acks/json`])
  })

  it('a changed password takes effect: the old one is refused, a device logged in with it is disconnected', async () => {
    const d = await createDevice(stack)
    const before = await connected(d.serial, d.mqttPassword ?? '')
    const res = await putSystem(stack, d.uid, { communication: { mqtt: { password: 'a-new-password' } } })
    expect(res.statusCode).toBe(200)
    await closedOnce(before)
    await refused(d.serial, d.mqttPassword ?? '')
    await connected(d.serial, 'a-new-password')
    await connected(d.imei, 'a-new-password')
  })

  it('a changed serial number moves the login: the old one is gone, the new one works', async () => {
    const d = await createDevice(stack)
    const serial = `${d.serial}-B`
    const res = await putSystem(stack, d.uid, { gateway: { serialNumber: serial, imei: d.imei } })
    expect(res.statusCode, res.body).toBe(200)
    await refused(d.serial, d.mqttPassword ?? '')
    const dev = await connected(serial, d.mqttPassword ?? '', { protocolVersion: 5 })
    expect(await grants(dev, [`${serial}/tasks/json`, `${d.serial}/tasks/json`])).toEqual([true, false])
  })

  it('systems imported from a CSV file can connect; a CSV bulk edit of the MQTT password takes effect', async () => {
    const serial = uniq('CSV').toUpperCase()
    const imported = await runCsv(stack, IMPORT, `NAME,GATEWAY[SERIAL NUMBER],MQTT[password]\ncsv-device,${serial},csv-pass-1\n`, { defaults: { notify: false } })
    expect(imported.tasks.map((t) => t.state)).toEqual(['SUCCESS'])
    await connected(serial, 'csv-pass-1')
    const uid = String(imported.tasks[0]?.system.uid)
    const edited = await runCsv(stack, EDIT, `UID,MQTT[password]\n${uid},csv-pass-2\n`)
    expect(edited.tasks.map((t) => t.state)).toEqual(['SUCCESS'])
    await refused(serial, 'csv-pass-1')
    await connected(serial, 'csv-pass-2')
  })

  it('a deleted system cannot connect, and its connected device is put out', async () => {
    const d = await createDevice(stack)
    const dev = await connected(d.serial, d.mqttPassword ?? '')
    const res = await stack.call(stack.adminToken, { method: 'DELETE', url: `/api/v1/systems/${d.uid}` })
    expect(res.statusCode).toBe(200)
    await closedOnce(dev)
    await refused(d.serial, d.mqttPassword ?? '')
    await refused(d.imei, d.mqttPassword ?? '')
    const role = await broker.dynsec([{ command: 'getRole', rolename: `fleet-system-${d.uid}` }])
    expect(role[0]?.error).toMatch(/not found/i)
  })

  it('systems deleted by a bulk delete operation cannot connect', async () => {
    const ds: Device[] = [await createDevice(stack), await createDevice(stack), await createDevice(stack)]
    for (const d of ds) await connected(d.serial, d.mqttPassword ?? '')
    const op = await started(postDelete(stack, { systems: { uids: ds.map((d) => d.uid) } }))
    await waitFinished(stack, op, 30_000)
    for (const d of ds) await refused(d.serial, d.mqttPassword ?? '')
  })

  it('a transferred system keeps working: its connection stays and it logs in again', async () => {
    const d = await createDevice(stack, { token: mover })
    const dev = await connected(d.serial, d.mqttPassword ?? '')
    const op = await started(stack.call(mover, { method: 'POST', url: '/api/v1/operations/systems/transfer', payload: { destination: partner, systems: { uids: [d.uid] } } }))
    const done = await waitFinished(stack, op, 30_000)
    expect(done.counters.find((c) => c.state === 'SUCCESS')?.count).toBe(1)
    expect(dev.connected).toBe(true)
    await dev.endAsync()
    await connected(d.serial, d.mqttPassword ?? '')
    await connected(d.imei, d.mqttPassword ?? '')
  })

  it('broker sync repairs a wiped broker, removes the logins of systems no longer there, leaves other accounts alone, and is idempotent', async () => {
    const d = await createDevice(stack)
    await connected(d.serial, d.mqttPassword ?? '')
    // The broker loses what the service gave it, keeps a managed client of a system that is gone, and has an
    // account of its operator's.
    const listed = await broker.dynsec([{ command: 'listClients', verbose: true }, { command: 'listRoles', verbose: true }])
    const ours = (listed[0]?.data.clients as Array<{ username: string, textname?: string }>).filter((c) => c.textname?.startsWith('fleet-system ') === true)
    const ourRoles = (listed[1]?.data.roles as Array<{ rolename: string }>).filter((r) => r.rolename.startsWith('fleet-system-'))
    expect(ours.length).toBeGreaterThan(1)
    await broker.dynsec([
      ...ours.map((c) => ({ command: 'deleteClient', username: c.username })),
      ...ourRoles.map((r) => ({ command: 'deleteRole', rolename: r.rolename })),
      { command: 'createClient', username: 'GHOST-1', password: 'x', textname: 'fleet-system no-such-system abc' },
      { command: 'createClient', username: 'operator-tool', password: 'operator-pw' }
    ])
    await refused(d.serial, d.mqttPassword ?? '')

    const log = pino({ level: 'silent' })
    const first = await brokerCommand(stack.config, stack.db, log, ['sync'])
    expect(first).toMatch(new RegExp(`clients ${ours.length} created, 0 updated, 1 deleted`))
    await connected(d.serial, d.mqttPassword ?? '')
    await connected(d.imei, d.mqttPassword ?? '')
    const after = await broker.dynsec([{ command: 'getClient', username: 'GHOST-1' }, { command: 'getClient', username: 'operator-tool' }])
    expect(after[0]?.error).toMatch(/not found/i)
    expect(after[1]?.data.client.username).toBe('operator-tool')

    const again = await brokerCommand(stack.config, stack.db, log, ['sync'])
    expect(again).toMatch(new RegExp(`clients 0 created, 0 updated, 0 deleted, ${ours.length} unchanged, \\d+ skipped; roles 0 created, 0 updated, 0 deleted`))
  })

  it('broker sync changes a client whose password the broker holds wrong, without touching the others', async () => {
    const d = await createDevice(stack)
    const other = await createDevice(stack)
    const stays = await connected(other.serial, other.mqttPassword ?? '')
    await broker.dynsec([{ command: 'setClientPassword', username: d.serial, password: 'tampered' }])
    // The mark still says the stored password: the service cannot tell; a wrong mark it can.
    await broker.dynsec([{ command: 'modifyClient', username: d.serial, textname: `fleet-system ${d.uid} stale-fingerprint` }])
    await refused(d.serial, d.mqttPassword ?? '')
    const out = await brokerCommand(stack.config, stack.db, pino({ level: 'silent' }), ['sync'])
    expect(out).toMatch(/clients 0 created, 1 updated, 0 deleted/)
    await connected(d.serial, d.mqttPassword ?? '')
    expect(stays.connected).toBe(true)
  })
})

describe('two writers at once', () => {
  it('a create that meets a client another writer made meanwhile is read and planned again, and lands', async () => {
    const d = await createDevice(stack)
    // The broker loses the system's logins, then a second sync (the periodic full sync, another process) brings them
    // back; between its read and its write a third writer makes the client, with a password of its own.
    await broker.dynsec([{ command: 'deleteClient', username: d.serial }, { command: 'deleteClient', username: d.imei }])
    const real = createDynsecClient(broker.adminUrl)
    let raced = false
    const racing: DynsecClient = {
      async run (commands) {
        if (!raced && commands.some((c) => c.command === 'createClient')) {
          raced = true
          const stale = { password: 'stale-pw', textname: `fleet-system ${d.uid} stale`, roles: [{ rolename: `fleet-system-${d.uid}` }] }
          expect((await broker.dynsec([{ command: 'createClient', username: d.serial, ...stale }]))[0]?.error).toBeUndefined()
        }
        return await real.run(commands)
      },
      close: async () => { await real.close() }
    }
    const sync = createDynsecSync({ dynsec: racing, logins: createBrokerLoginsRepository(stack.db), reserved: new Set([DYNSEC_ADMIN]), log: pino({ level: 'silent' }) })
    onTestFinished(async () => { await sync.close() })
    const counts = await sync.reconcile([d.uid])
    expect(raced).toBe(true)
    // The counts are the second plan's: the IMEI's client, created by the first, unchanged; the serial's changed (the
    // other writer's password).
    expect(counts.clients).toMatchObject({ created: 0, updated: 1, unchanged: 1 })
    await connected(d.serial, d.mqttPassword ?? '')
    await connected(d.imei, d.mqttPassword ?? '')
    await refused(d.serial, 'stale-pw')
  })
})

describe('a broker away when systems change', () => {
  it('the API answers as usual, and the change reaches the broker once it is back', async () => {
    const port = await freePort()
    const password = adminPassword()
    const alone = await startStack({ env: { MQTT_URL: `mqtt://${DYNSEC_ADMIN}:${password}@127.0.0.1:${port}` }, transports: [] })
    onTestFinished(async () => { await alone.close() })
    const d = await createDevice(alone)
    const e = await createDevice(alone)
    const late = await startMosquitto({ port, password })
    onTestFinished(async () => { await late.stop() })
    await until('the retried changes reach the broker', async () => {
      const c = await tryConnect(late.url, e.serial, e.mqttPassword ?? '')
      if (typeof c === 'string') return false
      await c.endAsync(true)
      return true
    }, 60_000)
    const c = await tryConnect(late.url, d.imei, d.mqttPassword ?? '')
    expect(typeof c).not.toBe('string')
    if (typeof c !== 'string') await c.endAsync(true)
  }, 90_000)
})

describe('the periodic resync (MQTT_DYNSEC_RESYNC_S)', () => {
  it('puts back a login the broker lost, without any change of the system', async () => {
    const own = await startMosquitto()
    onTestFinished(async () => { await own.stop() })
    const resyncing = await startStack({ env: { MQTT_URL: own.adminUrl, MQTT_DYNSEC_RESYNC_S: '1' }, transports: [] })
    onTestFinished(async () => { await resyncing.close() })
    const d = await createDevice(resyncing)
    const first = await tryConnect(own.url, d.serial, d.mqttPassword ?? '')
    expect(typeof first).not.toBe('string')
    if (typeof first !== 'string') await first.endAsync(true)
    await own.dynsec([{ command: 'deleteClient', username: d.serial }])
    await until('the resync gives the login back', async () => {
      const c = await tryConnect(own.url, d.serial, d.mqttPassword ?? '')
      if (typeof c === 'string') return false
      await c.endAsync(true)
      return true
    }, 60_000)
  }, 120_000)
})
