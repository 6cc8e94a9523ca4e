// Outgoing device tasks and their answers (docs/devices.md): a
// device task written through the device-tasks repository is pushed by the dispatch to MQTT 3.1.1 and MQTT 5
// devices subscribed to their tasks, waits for the others (delivered again until answered), and a device that is not
// connected is asked to connect through the SMS gateway (a real receiver on port 0). Acks over MQTT and REST end the
// device task once; an ack of an unknown task or of another system's task ends nothing.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { MqttClient, Packet } from 'mqtt'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { DispatchRequest } from '../../../core/ports/devices.js'
import type { DeviceProtocol } from '../../../core/domain/device-message.js'
import type { DeviceAnswer, DeviceTask, DeviceTaskBody } from '../../../core/domain/device-task.js'
import type { UnitOfWork } from '../../../core/ports/store.js'
import { createIngestService } from '../../../core/services/ingest/ingest.service.js'
import { createDeviceTasksRepository } from '../../../storage/repositories/device-tasks.repository.js'
import { createRepositories } from '../../../storage/repositories/index.js'
import { startStack, type Stack } from '../../helpers/stack.js'
import { listenLocal, type Receiver } from '../../helpers/http-receiver.js'
import { uniq } from '../../helpers/factories.js'
import { createSystem, validImei } from '../../helpers/systems.js'
import { connectDevice, deviceFetch, endAll, eventually, publish, subscribe, taskState, type MqttVersion } from '../../helpers/devices.js'

interface Sms { to: string, text: string, system: string }

let stack: Stack
let gateway: Receiver
const sms: Sms[] = []

beforeAll(async () => {
  gateway = await listenLocal((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      sms.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Sms)
      res.writeHead(200).end()
    })
  })
  stack = await startStack({ listen: true, env: { SMS_GATEWAY_URL: `http://${gateway.origin}/sms` } })
})
afterAll(async () => {
  await stack?.close()
  await gateway?.close()
})

interface Device { uid: string, serial: string, password: string, mobileNumber: string | null }

let seq = Math.floor(Math.random() * 100_000) * 10
/** A system with MQTT and REST passwords and, unless `mobileNumber: null`, a subscription with a mobile number. */
async function device (opts: { mobileNumber?: string | null } = {}): Promise<Device> {
  const n = ++seq
  const serial = uniq('SN').toUpperCase()
  const password = uniq('pw')
  const mobileNumber = opts.mobileNumber === undefined ? `+336${String(n).padStart(8, '0')}` : opts.mobileNumber
  const s = await createSystem(stack, {
    name: serial,
    gateway: { serialNumber: serial, imei: validImei(900_000 + n) },
    ...(mobileNumber === null ? {} : { subscription: { identifier: `8933${String(n).padStart(12, '0')}`, operator: 'UNKNOWN', mobileNumber } }),
    communication: { mqtt: { password }, rest: { password } }
  })
  return { uid: s.uid as string, serial, password, mobileNumber }
}

/** A PENDING device task written the way the operations write them: through the device-tasks repository. */
async function writeTask (systemUid: string, protocol: DeviceProtocol, body: DeviceTaskBody = { read: ['_RSSI'] }): Promise<DeviceTask> {
  const uid = uniq('task')
  const task = { uid, timestamp: Date.now(), ...body } as DeviceTask
  await createDeviceTasksRepository(stack.db).insert([{ uid, systemUid, operationUid: null, operationTaskUid: null, protocol, task, createdAt: Date.now() }])
  return task
}

const dispatch = async (...requests: DispatchRequest[]): Promise<void> => { await stack.ctx.services.dispatch.dispatch(requests) }

/** Every task payload the client receives on its tasks topic, parsed. */
function inbox (client: MqttClient): DeviceTask[][] {
  const got: DeviceTask[][] = []
  client.on('message', (topic, payload) => { if (topic.endsWith('/tasks/json')) got.push(JSON.parse(payload.toString('utf8')) as DeviceTask[]) })
  return got
}

/**
 * Connected and subscribed to its tasks topic, with the delivery of the subscription done: it marks the system
 * communicating (docs/devices.md), so once lastCommDate is set nothing else is on its way.
 */
async function online (d: Device, version: MqttVersion, qos: 0 | 1 = 1): Promise<{ client: MqttClient, got: DeviceTask[][], sent: Packet[] }> {
  const client = await connectDevice(stack.mqttUrl, d.serial, d.password, { version })
  const got = inbox(client)
  const sent: Packet[] = []
  client.on('packetsend', (packet) => { sent.push(packet) })
  const before = await lastComm(d.uid)
  expect(await subscribe(client, `${d.serial}/tasks/json`, qos)).toEqual([qos])
  await eventually(async () => (await lastComm(d.uid) ?? 0) > (before ?? -1), 5000, 'the subscription delivery')
  return { client, got, sent }
}

async function lastComm (systemUid: string): Promise<number | null> {
  const { rows } = await stack.db.query<{ t: string | null }>('SELECT last_comm_date AS t FROM system_state WHERE system_uid = $1', [systemUid])
  return rows[0]?.t === null || rows[0]?.t === undefined ? null : Number(rows[0].t)
}

async function ackRows (systemUid: string): Promise<number> {
  const { rows } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM device_acks WHERE system_uid = $1', [systemUid])
  return rows[0]?.n ?? 0
}

const smsFor = (d: Device): Sms[] => sms.filter((s) => s.system === d.uid)

/**
 * A task written for a connected device and still PENDING, for dispatch to push. The connection and the subscription
 * each take the device's waiting tasks; under load the subscription's take may still be queued when online() has
 * seen the connection's, and then it takes the task written here. Such a task is received, acknowledged and
 * written again (a few times at most), so that what follows proves dispatch, not the subscription.
 */
async function pendingTask (d: Device, client: MqttClient, got: DeviceTask[][]): Promise<DeviceTask> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const task = await writeTask(d.uid, 'MQTT', { write: [{ 'config.reportPeriodS': 60 }] })
    if ((await taskState(stack, task.uid))?.state === 'PENDING') return task
    await eventually(async () => got.flat().some((t) => t.uid === task.uid), 5000, 'the task the subscription took')
    expect(await publish(client, `${d.serial}/acks/json`, JSON.stringify([{ uid: task.uid, status: 'OK' }]))).toBe(0)
    got.length = 0
  }
  throw new Error('every task written was taken by the connection before dispatch')
}

describe('push to connected MQTT devices', () => {
  for (const version of [4, 5] as const) {
    it(`MQTT ${version === 4 ? '3.1.1' : '5'}: dispatch pushes the task at once, an ack ends it`, async () => {
      const d = await device()
      const { client, got } = await online(d, version)
      try {
        const task = await pendingTask(d, client, got)
        await dispatch({ systemUid: d.uid, protocol: 'MQTT', requestConnection: true })
        await eventually(async () => got.length > 0, 5000, 'the pushed task')
        // At least once: the delivery of the device's own subscription may still be under way when dispatch pushes,
        // and then both send it (a device ignores the duplicate by its uid, docs/devices.md).
        for (const batch of got) expect(batch).toEqual([task])
        expect((await taskState(stack, task.uid))?.state).toBe('SENT')
        expect(smsFor(d)).toEqual([]) // connected: no shoulder tap

        expect(await publish(client, `${d.serial}/acks/json`, JSON.stringify([{ uid: task.uid, status: 'OK' }]))).toBe(0)
        expect(await taskState(stack, task.uid)).toMatchObject({ state: 'OK', message: null })
        // A second ack of the same task is recorded as received and ends nothing more.
        expect(await publish(client, `${d.serial}/acks/json`, JSON.stringify([{ uid: task.uid, status: 'ERROR', message: 'late' }]))).toBe(0)
        expect(await taskState(stack, task.uid)).toMatchObject({ state: 'OK', message: null })
        expect(await ackRows(d.uid)).toBe(2)
      } finally {
        await endAll(client)
      }
    })
  }

  it('a push that finds no subscription leaves the task to the next subscription; nothing is lost', async () => {
    const d = await device()
    const client = await connectDevice(stack.mqttUrl, d.serial, d.password, { version: 4 })
    const got = inbox(client)
    try {
      await eventually(async () => stack.service.transports.some((t) => t.connected(d.uid)), 5000, 'the connection')
      const task = await writeTask(d.uid, 'MQTT')
      await dispatch({ systemUid: d.uid, protocol: 'MQTT', requestConnection: false })
      expect((await taskState(stack, task.uid))?.state).toBe('SENT')
      expect(got).toEqual([])
      expect(await subscribe(client, `${d.serial}/tasks/json`)).toEqual([1])
      await eventually(async () => got.length > 0, 5000, 'the task at subscription')
      expect(got).toEqual([[task]])
    } finally {
      await endAll(client)
    }
  })

  it('a task delivered and not answered is delivered again at the next connection, and no more once answered', async () => {
    const d = await device()
    // At QoS 0 the device never confirms the publish (no PUBACK): the service cannot know it holds the task.
    const first = await online(d, 4, 0)
    const task = await writeTask(d.uid, 'MQTT', { command: { id: 'system.reboot', params: {} } })
    await dispatch({ systemUid: d.uid, protocol: 'MQTT', requestConnection: false })
    await eventually(async () => first.got.length > 0, 5000, 'the pushed task')
    await endAll(first.client) // gone without answering

    const second = await online(d, 5)
    try {
      await eventually(async () => second.got.length > 0, 5000, 'the task again')
      expect(second.got).toEqual([[task]])
      expect(await publish(second.client, `${d.serial}/acks/json`, JSON.stringify([{ uid: task.uid, status: 'OK' }]))).toBe(0)
    } finally {
      await endAll(second.client)
    }
    const third = await online(d, 4)
    try {
      // A later task comes alone: the answered one was not sent again before it (one connection keeps the order).
      const later = await writeTask(d.uid, 'MQTT')
      await dispatch({ systemUid: d.uid, protocol: 'MQTT', requestConnection: false })
      await eventually(async () => third.got.length > 0, 5000, 'the later task')
      expect(third.got).toEqual([[later]])
    } finally {
      await endAll(third.client)
    }
  })
})

describe('tasks the device confirmed receiving', () => {
  for (const version of [4, 5] as const) {
    it(`MQTT ${version === 4 ? '3.1.1' : '5'}: a task whose publish the device acknowledged (PUBACK) is not sent again at its next subscription; its answer ends it`, async () => {
      const d = await device()
      const first = await online(d, version)
      const confirmed = await writeTask(d.uid, 'MQTT', { command: { id: 'system.reboot', params: {} } })
      await dispatch({ systemUid: d.uid, protocol: 'MQTT', requestConnection: false })
      await eventually(async () => first.got.length > 0, 5000, 'the pushed task')
      // mqtt.js acknowledges a QoS 1 publish once it has handed it to the application: wait for it to leave.
      await eventually(async () => first.sent.some((p) => p.cmd === 'puback'), 5000, 'the PUBACK of the task')
      await endAll(first.client) // gone for a reboot, as the device does with such a task

      const second = await online(d, version)
      try {
        // A task written meanwhile comes alone: the one the device confirmed is not sent a second time.
        const later = await writeTask(d.uid, 'MQTT')
        await dispatch({ systemUid: d.uid, protocol: 'MQTT', requestConnection: false })
        await eventually(async () => second.got.length > 0, 5000, 'the later task')
        expect(second.got).toEqual([[later]])
        expect(await publish(second.client, `${d.serial}/acks/json`, JSON.stringify([{ uid: confirmed.uid, status: 'OK' }, { uid: later.uid, status: 'OK' }]))).toBe(0)
        await eventually(async () => (await taskState(stack, confirmed.uid))?.state === 'OK', 5000, 'the confirmed task answered')
      } finally {
        await endAll(second.client)
      }
    })
  }
})

describe('acks', () => {
  it('REST: GET /device/tasks answers the REST tasks only; an ERROR ack ends the task with the message', async () => {
    const d = await device()
    const rest = await writeTask(d.uid, 'REST', { read: ['config.apn'] })
    const mqtt = await writeTask(d.uid, 'MQTT')
    const res = await deviceFetch(stack, 'GET', '/device/tasks', { user: d.serial, password: d.password })
    expect(res.status).toBe(200)
    expect(res.body).toEqual([rest])
    expect((await taskState(stack, mqtt.uid))?.state).toBe('PENDING')
    const ack = await deviceFetch(stack, 'POST', '/device/acks', { user: d.serial, password: d.password, body: JSON.stringify([{ uid: rest.uid, status: 'ERROR', message: 'no such setting' }]) })
    expect(ack.status).toBe(200)
    expect(await taskState(stack, rest.uid)).toMatchObject({ state: 'ERROR', message: 'no such setting' })
  })

  it('an ack of an unknown task or of another system\'s task ends nothing', async () => {
    const mine = await device()
    const theirs = await device()
    const their = await writeTask(theirs.uid, 'MQTT')
    const client = await connectDevice(stack.mqttUrl, mine.serial, mine.password, { version: 5 })
    try {
      const acks = [{ uid: their.uid, status: 'OK' }, { uid: uniq('no-such-task'), status: 'OK' }]
      expect(await publish(client, `${mine.serial}/acks/json`, JSON.stringify(acks))).toBe(0)
      const res = await deviceFetch(stack, 'POST', '/device/acks', { user: mine.serial, password: mine.password, body: JSON.stringify(acks) })
      expect(res.status).toBe(200)
    } finally {
      await endAll(client)
    }
    expect((await taskState(stack, their.uid))?.state).toBe('PENDING')
    expect(await ackRows(mine.uid)).toBe(4) // recorded as received, nothing more
  })
})

describe('the DeviceAnswers port', () => {
  it('acks over MQTT and over REST reach the operations engine once each, after commit', async () => {
    const d = await device()
    const overMqtt = await writeTask(d.uid, 'MQTT')
    const overRest = await writeTask(d.uid, 'REST')
    const engine = stack.ctx.services.operations.engine
    const seen: Array<{ taskUid: string, status: string, committed: string | undefined }> = []
    const spy = vi.spyOn(engine, 'deviceAnswered').mockImplementation(async (answers) => {
      for (const a of answers) if (a.systemUid === d.uid) seen.push({ taskUid: a.taskUid, status: a.status, committed: (await taskState(stack, a.taskUid))?.state })
    })
    const client = await connectDevice(stack.mqttUrl, d.serial, d.password, { version: 5 })
    try {
      for (let i = 0; i < 2; i++) { // the second time: a device sending its acks again
        expect(await publish(client, `${d.serial}/acks/json`, JSON.stringify([{ uid: overMqtt.uid, status: 'OK' }]))).toBe(0)
        const res = await deviceFetch(stack, 'POST', '/device/acks', { user: d.serial, password: d.password, body: JSON.stringify([{ uid: overRest.uid, status: 'ERROR', message: 'x' }]) })
        expect(res.status).toBe(200)
      }
    } finally {
      spy.mockRestore()
      await endAll(client)
    }
    expect(seen).toEqual([{ taskUid: overMqtt.uid, status: 'OK', committed: 'OK' }, { taskUid: overRest.uid, status: 'ERROR', committed: 'ERROR' }])
  })

  /** An ingest service on the stack's store whose answers go to `onAnswers`. */
  function ingestWith (onAnswers: (answers: readonly DeviceAnswer[]) => Promise<void>, log = pino({ level: 'silent' })) {
    const inTransaction: UnitOfWork = async (fn) => await stack.db.transaction(async (tx) => await fn(createRepositories(tx)))
    return createIngestService({ inTransaction, clock: { now: () => Date.now() }, log, onAnswers })
  }

  it('gets each answer once, after commit, with its operation', async () => {
    const d = await device()
    const t1 = await writeTask(d.uid, 'MQTT')
    const t2 = await writeTask(d.uid, 'MQTT')
    const other = await device()
    const theirs = await writeTask(other.uid, 'MQTT')
    const calls: DeviceAnswer[][] = []
    const ingest = ingestWith(async (answers) => {
      // Called after commit: the store already holds the answers.
      for (const a of answers) expect((await taskState(stack, a.taskUid))?.state).toBe(a.status)
      calls.push([...answers])
    })
    const answered = await ingest.acceptAcks(d.uid, 'MQTT', [
      { uid: t1.uid, status: 'OK', message: null },
      { uid: t2.uid, status: 'ERROR', message: 'busy' },
      { uid: theirs.uid, status: 'OK', message: null },
      { uid: 'no-such-task', status: 'OK', message: null }
    ])
    expect(answered.map((a) => a.taskUid).sort()).toEqual([t1.uid, t2.uid].sort())
    expect(calls).toHaveLength(1)
    expect(calls[0]?.map((a) => ({ taskUid: a.taskUid, systemUid: a.systemUid, status: a.status, message: a.message })).sort((a, b) => a.taskUid.localeCompare(b.taskUid)))
      .toEqual([{ taskUid: t1.uid, systemUid: d.uid, status: 'OK', message: null }, { taskUid: t2.uid, systemUid: d.uid, status: 'ERROR', message: 'busy' }]
        .sort((a, b) => a.taskUid.localeCompare(b.taskUid)))
    // The same acks again (a device sending again): nothing more reaches the port.
    await ingest.acceptAcks(d.uid, 'MQTT', [{ uid: t1.uid, status: 'OK', message: null }])
    await ingest.acceptAcks(d.uid, 'MQTT', [{ uid: 'no-such-task', status: 'OK', message: null }])
    expect(calls).toHaveLength(1)
    expect((await taskState(stack, theirs.uid))?.state).toBe('PENDING')
  })

  it('a failure of the port is logged; the ack is kept and the task stays answered', async () => {
    const d = await device()
    const t = await writeTask(d.uid, 'REST')
    const lines: string[] = []
    const ingest = ingestWith(async () => { throw new Error('engine unavailable') }, pino({ level: 'error' }, { write (l: string): void { lines.push(l) } }))
    const answered = await ingest.acceptAcks(d.uid, 'REST', [{ uid: t.uid, status: 'OK', message: null }])
    expect(answered.map((a) => a.taskUid)).toEqual([t.uid])
    expect((await taskState(stack, t.uid))?.state).toBe('OK')
    expect(lines.join('\n')).toContain('device answers not passed to the operations')
    expect(lines.join('\n')).toContain(t.uid)
  })
})

describe('connection requests', () => {
  it('a device not connected with requestConnection gets one SMS at its mobile number; its task waits for it', async () => {
    const d = await device()
    const task = await writeTask(d.uid, 'MQTT')
    await dispatch({ systemUid: d.uid, protocol: 'MQTT', requestConnection: true }, { systemUid: d.uid, protocol: 'MQTT', requestConnection: false })
    expect(smsFor(d)).toEqual([{ to: d.mobileNumber, text: 'FLEET CONNECT', system: d.uid }])
    expect((await taskState(stack, task.uid))?.state).toBe('PENDING')
    // The device wakes and connects: its task is delivered at its subscription.
    const { client, got } = await online(d, 4)
    try {
      await eventually(async () => got.length > 0, 5000, 'the task at subscription')
      expect(got).toEqual([[task]])
    } finally {
      await endAll(client)
    }
  })

  it('a REST device is never connected: requestConnection sends the SMS', async () => {
    const d = await device()
    await writeTask(d.uid, 'REST')
    await dispatch({ systemUid: d.uid, protocol: 'REST', requestConnection: true })
    expect(smsFor(d)).toEqual([{ to: d.mobileNumber, text: 'FLEET CONNECT', system: d.uid }])
  })

  it('no SMS without requestConnection, without a waiting task, or without a mobile number', async () => {
    const quiet = await device()
    await writeTask(quiet.uid, 'MQTT')
    const idle = await device()
    const noNumber = await device({ mobileNumber: null })
    const waiting = await writeTask(noNumber.uid, 'MQTT')
    await dispatch(
      { systemUid: quiet.uid, protocol: 'MQTT', requestConnection: false },
      { systemUid: idle.uid, protocol: 'MQTT', requestConnection: true },
      { systemUid: noNumber.uid, protocol: 'MQTT', requestConnection: true },
      { systemUid: 'no-such-system', protocol: 'MQTT', requestConnection: true }
    )
    expect([...smsFor(quiet), ...smsFor(idle), ...smsFor(noNumber)]).toEqual([])
    expect((await taskState(stack, waiting.uid))?.state).toBe('PENDING')
  })
})

describe('taking tasks for many devices at once', () => {
  it('takeMany answers each request its own tasks, oldest first, in one statement; again adds the unanswered SENT ones', async () => {
    const [a, b, c] = [await device(), await device(), await device()]
    const a1 = await writeTask(a.uid, 'MQTT', { read: ['one'] })
    const a2 = await writeTask(a.uid, 'MQTT', { read: ['two'] })
    const b1 = await writeTask(b.uid, 'MQTT')
    const bRest = await writeTask(b.uid, 'REST')
    const repo = createDeviceTasksRepository(stack.db)
    const now = Date.now()
    const taken = await repo.takeMany([
      { systemUid: a.uid, protocol: 'MQTT' },
      { systemUid: b.uid, protocol: 'MQTT' },
      { systemUid: c.uid, protocol: 'MQTT' },
      // The same system twice: both get its tasks (a device ignores a task it already has by its uid).
      { systemUid: a.uid, protocol: 'MQTT' }
    ], now)
    expect(taken.map((ts) => ts.map((t) => t.uid))).toEqual([[a1.uid, a2.uid], [b1.uid], [], [a1.uid, a2.uid]])
    expect((await taskState(stack, a1.uid))?.state).toBe('SENT')
    // Another protocol's task is left for its own transport.
    expect((await taskState(stack, bRest.uid))?.state).toBe('PENDING')
    // Taken once: a second take without `again` finds nothing; with it, the SENT ones not answered come again.
    expect(await repo.takeMany([{ systemUid: a.uid, protocol: 'MQTT' }], now)).toEqual([[]])
    await createIngestService({ inTransaction: async (fn) => await stack.db.transaction(async (tx) => await fn(createRepositories(tx))), clock: { now: () => Date.now() }, log: pino({ level: 'silent' }) })
      .acceptAcks(a.uid, 'MQTT', [{ uid: a1.uid, status: 'OK', message: null }])
    const again = await repo.takeMany([{ systemUid: a.uid, protocol: 'MQTT', again: true }, { systemUid: b.uid, protocol: 'REST', again: true }], now)
    expect(again.map((ts) => ts.map((t) => t.uid))).toEqual([[a2.uid], [bRest.uid]])
  })

  it('tasks written within the same millisecond go out in the order they were written, by every take', async () => {
    const d = await device()
    const at = Date.now()
    const uids = Array.from({ length: 8 }, () => uniq('task'))
    const repo = createDeviceTasksRepository(stack.db)
    // One insert, then one more row at a time, all with the same created_at (0028_device_task_order.sql).
    await repo.insert(uids.slice(0, 5).map((uid) => ({ uid, systemUid: d.uid, operationUid: null, operationTaskUid: null, protocol: 'MQTT', task: { uid, timestamp: at, read: ['_RSSI'] } as DeviceTask, createdAt: at })))
    for (const uid of uids.slice(5)) {
      await repo.insert([{ uid, systemUid: d.uid, operationUid: null, operationTaskUid: null, protocol: 'MQTT', task: { uid, timestamp: at, read: ['_RSSI'] } as DeviceTask, createdAt: at }])
    }
    expect((await repo.takeMany([{ systemUid: d.uid, protocol: 'MQTT' }], at))[0]?.map((t) => t.uid)).toEqual(uids)
    expect((await repo.take(d.uid, 'MQTT', at, { again: true })).map((t) => t.uid)).toEqual(uids)
    const stale = await repo.takeStale('MQTT', at + 1, at + 2, 1000)
    expect(stale.find((s) => s.systemUid === d.uid)?.tasks.map((t) => t.uid)).toEqual(uids)
  })

  it('takeTasks of devices coming back together are written together, and each marks its system communicating', async () => {
    const devices = await Promise.all(Array.from({ length: 12 }, async () => await device()))
    const tasks = await Promise.all(devices.map(async (d) => await writeTask(d.uid, 'MQTT')))
    const transactions: number[] = []
    const inTransaction: UnitOfWork = async (fn) => { transactions.push(1); return await stack.db.transaction(async (tx) => await fn(createRepositories(tx))) }
    const ingest = createIngestService({ inTransaction, clock: { now: () => Date.now() }, log: pino({ level: 'silent' }) })
    const before = Date.now()
    const taken = await Promise.all(devices.map(async (d) => await ingest.takeTasks(d.uid, 'MQTT', { again: true })))
    expect(taken.map((ts) => ts.map((t) => t.uid))).toEqual(tasks.map((t) => [t.uid]))
    // One transaction for the first, one for all that arrived while it was written.
    expect(transactions.length).toBeLessThanOrEqual(2)
    // lastCommDate follows in the coalesced flush of the traffic state (core/services/ingest/derived-state.ts): one
    // more, and the drain's fold of the rollup increments (rollup-folds.ts) another.
    await ingest.drain()
    expect(transactions.length).toBeLessThanOrEqual(4)
    for (const d of devices) expect(await lastComm(d.uid)).toBeGreaterThanOrEqual(before)
  })
})

describe('answering tasks of many devices at once', () => {
  it('answerMany closes each system\'s own open tasks once, whoever else names them in the same statement', async () => {
    const [a, b] = [await device(), await device()]
    const a1 = await writeTask(a.uid, 'MQTT')
    const a2 = await writeTask(a.uid, 'MQTT')
    const b1 = await writeTask(b.uid, 'MQTT')
    const repo = createDeviceTasksRepository(stack.db)
    const answered = await repo.answerMany([
      // b names a's task first: it is not b's, and must not hide a's own ack of it.
      { systemUid: b.uid, acks: [{ taskUid: a1.uid, status: 'ERROR', message: 'not mine' }, { taskUid: b1.uid, status: 'ERROR', message: 'broken' }] },
      { systemUid: a.uid, acks: [{ taskUid: a1.uid, status: 'OK', message: null }, { taskUid: a1.uid, status: 'ERROR', message: 'twice' }, { taskUid: 'no-such-task', status: 'OK', message: null }] },
      { systemUid: a.uid, acks: [{ taskUid: a1.uid, status: 'ERROR', message: 'again' }, { taskUid: a2.uid, status: 'OK', message: null }] },
      { systemUid: a.uid, acks: [] }
    ], 1234)
    const brief = answered.map((list) => list.map((x) => ({ task: x.taskUid, system: x.systemUid, status: x.status, message: x.message, at: x.at })))
    expect(brief).toEqual([
      [{ task: b1.uid, system: b.uid, status: 'ERROR', message: 'broken', at: 1234 }],
      [{ task: a1.uid, system: a.uid, status: 'OK', message: null, at: 1234 }],
      [{ task: a2.uid, system: a.uid, status: 'OK', message: null, at: 1234 }],
      []
    ])
    expect((await taskState(stack, a1.uid))?.state).toBe('OK')
    // Answered once: the same acks again close nothing.
    expect(await repo.answerMany([{ systemUid: a.uid, acks: [{ taskUid: a1.uid, status: 'ERROR', message: null }] }], 5678)).toEqual([[]])
  })
})
