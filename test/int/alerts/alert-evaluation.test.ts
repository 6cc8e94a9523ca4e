// docs/alerts.md#how-rules-are-evaluated through a real MQTT device: a value over a rule's threshold raises one alert,
// in the store when the device's PUBACK arrives (decision 0032: raised in the commit); more values over it raise no
// other; a value under it closes it. Another company's points never match a rule, a pinned rule only its system's,
// and the periodic check raises the rules on system fields.
import type { MqttClient } from 'mqtt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { companyUid, createUser, uniq, type TestUser } from '../../helpers/factories.js'
import { connectDevice, createDevice, endAll, publish, type Device } from '../../helpers/devices.js'
import type { UnitOfWork } from '../../../core/ports/store.js'
import type { DeviceMessage } from '../../../core/domain/device-message.js'
import { writeMessages } from '../../../core/services/ingest/message-write.js'
import { createRepositories } from '../../../storage/repositories/index.js'
import { createAlertRulesIndex } from '../../../storage/repositories/alert-rules-index.js'
import type { AlertEvaluationRepository } from '../../../core/ports/alert-evaluation.js'

let stack: Stack
let other: { uid: string, admin: TestUser }
const clients: MqttClient[] = []

beforeAll(async () => {
  stack = await startStack({ listen: true })
  const name = uniq('Other')
  const admin = await createUser(stack, { company: name, administrator: true, rights: ['entities.systems.view', 'entities.systems.create', 'entities.systems.edit'] })
  other = { uid: await companyUid(stack, name), admin }
})
afterAll(async () => {
  await endAll(...clients)
  await stack.close()
})

const gt = (dataId: string, value: number) => ({ operator: 'GT', operands: [{ attributeId: { name: `DATA.${dataId}` } }, { valueNum: value }] })

async function ruleOf (token: string, body: Record<string, unknown>): Promise<string> {
  const res = await stack.call(token, { method: 'POST', url: '/api/v2/alertrules', payload: { name: 'Hot', ...body } })
  expect(res.statusCode, res.body).toBe(200)
  return (res.json() as { uid: string }).uid
}

/** A device of the company, connected over MQTT. */
async function device (opts: { token?: string, company?: string } = {}): Promise<Device & { client: MqttClient }> {
  const d = await createDevice(stack, opts)
  const client = await connectDevice(stack.mqttUrl, d.serial, d.mqttPassword ?? '')
  clients.push(client)
  return { ...d, client }
}

/** Sends the values and waits for the PUBACK, which follows the commit. */
async function send (d: { serial: string, client: MqttClient }, values: Record<string, number>): Promise<void> {
  expect(await publish(d.client, `${d.serial}/messages/json`, JSON.stringify(values))).toBe(0)
}

async function alertsOf (ruleUid: string): Promise<Array<{ system_uid: string, state: string, closed_date: string | null, attributes: unknown, notify_pending: boolean }>> {
  return (await stack.db.query<{ system_uid: string, state: string, closed_date: string | null, attributes: unknown, notify_pending: boolean }>(
    'SELECT system_uid, state, closed_date, attributes, notify_pending FROM alerts WHERE rule_uid = $1 ORDER BY date', [ruleUid])).rows
}

describe('rules evaluated on the points a device sends', () => {
  it('raises one alert when a value goes over the threshold, in the store by the PUBACK, and closes it when it goes under', async () => {
    const d = await device()
    const hot = await ruleOf(stack.adminToken, { conditions: [gt('engine.temp', 90)] })
    await send(d, { 'engine.temp': 95 })
    expect(await alertsOf(hot)).toMatchObject([{ system_uid: d.uid, state: 'OPEN', closed_date: null, attributes: [{ id: { name: 'DATA.engine.temp' }, value: { valueNum: 95 } }] }])
    await send(d, { 'engine.temp': 97 })
    await send(d, { rpm: 10 })
    expect(await alertsOf(hot)).toHaveLength(1)
    await send(d, { 'engine.temp': 80 })
    const [closed] = await alertsOf(hot)
    expect(closed).toMatchObject({ state: 'CLOSED' })
    expect(closed?.closed_date).not.toBeNull()
    await send(d, { 'engine.temp': 91 })
    expect((await alertsOf(hot)).map((a) => a.state)).toEqual(['CLOSED', 'OPEN'])
  })

  it('never matches another company\'s points, and a pinned rule only its system\'s', async () => {
    const [mine, pinnedTo, theirs] = [await device(), await device(), await device({ token: other.admin.token, company: other.uid })]
    const hot = await ruleOf(stack.adminToken, { conditions: [gt('boiler.temp', 50)] })
    const pinned = await ruleOf(stack.adminToken, { conditions: [gt('boiler.temp', 50), { operator: 'EQUALS', operands: [{ attributeId: { name: 'system.id' } }, { valueStr: pinnedTo.uid }] }] })
    await send(theirs, { 'boiler.temp': 99 })
    expect(await alertsOf(hot)).toEqual([])
    await send(mine, { 'boiler.temp': 99 })
    expect((await alertsOf(hot)).map((a) => a.system_uid)).toEqual([mine.uid])
    expect(await alertsOf(pinned)).toEqual([])
    await send(pinnedTo, { 'boiler.temp': 99 })
    expect((await alertsOf(pinned)).map((a) => a.system_uid)).toEqual([pinnedTo.uid])
    // Their own rule raises on their points only.
    const theirsHot = await ruleOf(other.admin.token, { conditions: [gt('boiler.temp', 50)], stateful: false })
    await send(theirs, { 'boiler.temp': 98 })
    await send(mine, { 'boiler.temp': 98 })
    expect(await alertsOf(theirsHot)).toMatchObject([{ system_uid: theirs.uid, state: 'CLOSED' }])
  })
})

describe('the acknowledged write of a batch (writeMessages)', () => {
  const inTransaction: UnitOfWork = async (fn) => await stack.db.transaction(async (tx) => await fn(createRepositories(tx)))
  let seq = 0
  const message = (systemUid: string, companyUid: string, values: Record<string, number>): DeviceMessage => {
    const at = Date.now() + ++seq
    return { uid: uniq('msg'), systemUid, companyUid, protocol: 'REST', receivedAt: at, timestamp: at, points: Object.entries(values).map(([dataId, value]) => ({ dataId, ts: at, value })), nbDataPoints: Object.keys(values).length }
  }

  it('raises the alerts of a batch written again in steps (a system deleted meanwhile), and answers them', async () => {
    const d = await createDevice(stack)
    const hot = await ruleOf(stack.adminToken, { conditions: [gt('oven.temp', 200)] })
    const written = await writeMessages(inTransaction, { maxMs: 0 }, [message(d.uid, stack.companyUid, { 'oven.temp': 250 }), message('deleted-system', stack.companyUid, { 'oven.temp': 250 })], Date.now)
    expect(written.results.map((r) => (r as { code?: string } | undefined)?.code)).toEqual([undefined, 'system.unknown'])
    const rows = await alertsOf(hot)
    expect(rows.map((a) => a.system_uid)).toEqual([d.uid])
    expect(written.alerts).toHaveLength(1)
  })

  it('evaluates a system with the rules of the company the store found for it, whatever company its message names', async () => {
    const d = await createDevice(stack)
    const hot = await ruleOf(stack.adminToken, { conditions: [gt('kiln.temp', 200)] })
    const theirs = await ruleOf(other.admin.token, { conditions: [gt('kiln.temp', 200)] })
    const written = await writeMessages(inTransaction, { maxMs: 0 }, [message(d.uid, other.uid, { 'kiln.temp': 250 })], Date.now)
    expect(written.alerts).toHaveLength(1)
    expect((await alertsOf(hot)).map((a) => a.system_uid)).toEqual([d.uid])
    expect(await alertsOf(theirs)).toEqual([])
  })
})

describe('a batch evaluated on the rules the process holds in memory (decision 0034)', () => {
  // The service's way: one index for every transaction. `looked` counts the lookups of candidates that read the rules'
  // versions after the inserts: a batch evaluated from memory makes none.
  const index = createAlertRulesIndex()
  let looked = 0
  const inTransaction: UnitOfWork = async (fn) => await stack.db.transaction(async (tx) => {
    const repos = createRepositories(tx, { alertRules: index })
    const own = repos.alertEvaluation
    const counted: AlertEvaluationRepository = { ...own, candidates: async (...args) => { looked++; return await own.candidates(...args) } }
    return await fn({ ...repos, alertEvaluation: counted })
  })
  let seq = 0
  const message = (systemUid: string, companyUid: string, values: Record<string, number>): DeviceMessage => {
    const at = Date.now() + ++seq
    return { uid: uniq('msg'), systemUid, companyUid, protocol: 'REST', receivedAt: at, timestamp: at, points: Object.entries(values).map(([dataId, value]) => ({ dataId, ts: at, value })), nbDataPoints: Object.keys(values).length }
  }
  const write = async (msgs: DeviceMessage[]): Promise<string[]> => (await writeMessages(inTransaction, { maxMs: 0 }, msgs, Date.now)).alerts

  it('reads the rules once, then evaluates on memory; a rule changed in between is read again before the batch is evaluated', async () => {
    const d = await createDevice(stack)
    const hot = await ruleOf(stack.adminToken, { conditions: [gt('kiln3.temp', 200)] })
    looked = 0
    expect(await write([message(d.uid, stack.companyUid, { 'kiln3.temp': 250 })])).toHaveLength(1)
    expect(looked).toBe(1)
    expect(await write([message(d.uid, stack.companyUid, { 'kiln3.temp': 150 })])).toEqual([])
    expect(await write([message(d.uid, stack.companyUid, { 'kiln3.temp': 260 })])).toHaveLength(1)
    expect(looked).toBe(1)
    expect((await alertsOf(hot)).map((a) => a.state)).toEqual(['CLOSED', 'OPEN'])
    // Raised beyond reach by a rule changed after the rules were read: the batch sees the change, not memory's rule.
    await stack.db.query('UPDATE alert_rules SET conditions = $2::jsonb WHERE uid = $1', [hot, JSON.stringify([gt('kiln3.temp', 300)])])
    expect(await write([message(d.uid, stack.companyUid, { 'kiln3.temp': 270 })])).toEqual([])
    expect(looked).toBe(2)
    expect((await alertsOf(hot)).map((a) => a.state)).toEqual(['CLOSED', 'CLOSED'])
  })

  it('evaluates from memory only the systems the store finds where their messages claim: another company\'s is looked up', async () => {
    const d = await createDevice(stack)
    const hot = await ruleOf(stack.adminToken, { conditions: [gt('kiln4.temp', 200)] })
    const theirs = await ruleOf(other.admin.token, { conditions: [gt('kiln4.temp', 200)] })
    expect(await write([message(d.uid, other.uid, { 'kiln4.temp': 10 })])).toEqual([])
    looked = 0
    // Both companies' rules are in memory now; the message names the other company, the store finds ours.
    expect(await write([message(d.uid, other.uid, { 'kiln4.temp': 250 })])).toHaveLength(1)
    // Looked up after the inserts: the claimed company's rules, then the found company's.
    expect(looked).toBe(2)
    expect((await alertsOf(hot)).map((a) => a.system_uid)).toEqual([d.uid])
    expect(await alertsOf(theirs)).toEqual([])
  })
})

describe('the periodic check (alerts.check)', () => {
  it('raises the rules on system fields for the systems that match, once', async () => {
    const d = await device()
    const named = await ruleOf(stack.adminToken, { conditions: [{ operator: 'EQUALS', operands: [{ attributeId: { name: 'system.name' } }, { valueStr: d.serial }] }] })
    await stack.ctx.services.alertChecks.check()
    expect(await alertsOf(named)).toMatchObject([{ system_uid: d.uid, state: 'OPEN', notify_pending: expect.any(Boolean) }])
    await stack.ctx.services.alertChecks.check()
    expect(await alertsOf(named)).toHaveLength(1)
  })
})
