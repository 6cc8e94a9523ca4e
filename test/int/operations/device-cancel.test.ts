// Cancel and timeout of device operations (docs/devices.md; docs/operations.md#bulk-operations): on cancel, PENDING
// tasks become CANCELLED, a task whose device task was not delivered is withdrawn and CANCELLED at once, a delivered
// one is BEING_CANCELLED until its device answers; at timeoutDate what is open fails with operation.timeout and its
// device task is withdrawn: a device connecting afterwards gets nothing. Reboot operations through HTTP with real
// MQTT devices; a rollout keeps tasks PENDING; the rollout's later windows on an engine with a moved clock.
import type { MqttClient } from 'mqtt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { uniq } from '../../helpers/factories.js'
import { allTasks, count, createSystems, getOperation, waitFinished, waitOperation, type OperationJson, type TaskJson } from '../../helpers/operations.js'
import { commandHandler, ownEngine } from '../../helpers/own-engine.js'
import { endAll, eventually } from '../../helpers/devices.js'
import { ack, cancelOperation, deviceTasksOfSystem, mqttDevices, online, postReboot, type MqttDevice } from '../../helpers/rollout-devices.js'
import { createRepositories } from '../../../storage/repositories/index.js'

let stack: Stack
const clients: MqttClient[] = []
beforeAll(async () => { stack = await startStack({ listen: true }) })
afterAll(async () => {
  await endAll(...clients)
  await stack.close()
})

const counters = (op: OperationJson): Record<string, number> => Object.fromEntries(op.counters.map((c) => [c.state, c.count]))

async function connected (d: MqttDevice): Promise<Awaited<ReturnType<typeof online>>> {
  const o = await online(stack, d)
  clients.push(o.client)
  return o
}

const taskOf = (tasks: TaskJson[], d: MqttDevice): TaskJson => {
  const t = tasks.find((x) => x.system.uid === d.uid)
  if (t === undefined) throw new Error(`no task for ${d.uid}`)
  return t
}

describe('cancel', () => {
  it('a reboot: PENDING → CANCELLED, undelivered → CANCELLED at once, delivered → BEING_CANCELLED until the device answers', async () => {
    const label = uniq('cancel')
    const devices = await mqttDevices(stack, 3, label)
    // A rollout of 2 a minute: two tasks start, the third stays PENDING.
    const res = await postReboot(stack, { systems: { label }, rollout: { maxPerMinute: 2 } })
    expect(res.statusCode).toBe(200)
    const uid = res.json().operation as string
    await waitOperation(stack, uid, (o) => count(o, 'IN_PROGRESS') === 2, 10_000, 'two tasks started')
    let tasks = await allTasks(stack, uid)
    const [delivered, undelivered] = devices.filter((d) => taskOf(tasks, d).state === 'IN_PROGRESS') as [MqttDevice, MqttDevice]
    const pending = devices.find((d) => taskOf(tasks, d).state === 'PENDING') as MqttDevice
    // One device connects and takes its task; the other released one stays away.
    const first = await connected(delivered)
    await eventually(async () => first.got.length > 0, 5000, 'the delivered task')
    expect(first.got.flat().map((t) => t.uid)).toEqual([taskOf(tasks, delivered).uid])

    const before = Date.now()
    const cancelled = await cancelOperation(stack, uid)
    expect(cancelled.statusCode).toBe(200)
    const op = cancelled.json() as OperationJson
    expect(op).toMatchObject({ state: 'IN_PROGRESS', abortedBy: null })
    expect(op.cancelDate).toBeGreaterThanOrEqual(before)
    expect(counters(op)).toEqual({ PENDING: 0, IN_PROGRESS: 0, SUCCESS: 0, FAILURE: 0, BEING_CANCELLED: 1, CANCELLED: 2 })
    tasks = await allTasks(stack, uid)
    expect([delivered, undelivered, pending].map((d) => taskOf(tasks, d).state)).toEqual(['BEING_CANCELLED', 'CANCELLED', 'CANCELLED'])
    expect(taskOf(tasks, undelivered).endDate).toBe(op.cancelDate)
    expect(taskOf(tasks, pending)).toMatchObject({ startDate: null, endDate: op.cancelDate })

    // The device that stayed away connects: its withdrawn task never reaches it; the PENDING one never had one.
    const late = await connected(undelivered)
    expect(late.got).toEqual([])
    expect((await deviceTasksOfSystem(stack, undelivered.uid)).map((t) => [t.state, t.sentAt])).toEqual([['CANCELLED', null]])
    expect(await deviceTasksOfSystem(stack, pending.uid)).toEqual([])

    // The delivered one ends with its device's answer (docs/operations.md#bulk-operations: "or whatever the device
    // answers").
    await ack(first.client, delivered, taskOf(tasks, delivered).uid, 'OK')
    const done = await waitFinished(stack, uid)
    expect(counters(done)).toEqual({ PENDING: 0, IN_PROGRESS: 0, SUCCESS: 1, FAILURE: 0, BEING_CANCELLED: 0, CANCELLED: 2 })
    expect(done.cancelDate).toBe(op.cancelDate)
  })

  it('a cancelled rollout releases nothing in its later windows', async () => {
    const systems = await createSystems(stack, 4, uniq('cancel-roll'), [])
    const own = await ownEngine(stack, commandHandler('MQTT'), { chunkSize: 4 })
    try {
      const uid = await own.launch(systems, { rollout: { maxPerMinute: 2 } })
      await own.idle()
      expect(counters(await getOperation(stack, uid))).toMatchObject({ IN_PROGRESS: 2, PENDING: 2 })
      const op = await createRepositories(stack.db).operations.find(uid)
      if (op === undefined) throw new Error('no operation')
      await own.engine.cancel(op)
      const after = await getOperation(stack, uid)
      // Neither device task was delivered: every task ends CANCELLED at once and the operation with them.
      expect(after).toMatchObject({ state: 'FINISHED', cancelDate: own.clock.now() })
      expect(counters(after)).toMatchObject({ CANCELLED: 4, IN_PROGRESS: 0, PENDING: 0 })
      own.clock.move(60_000)
      await own.idle()
      expect(await getOperation(stack, uid)).toEqual(after)
      for (const s of systems) expect((await deviceTasksOfSystem(stack, s)).every((t) => t.state === 'CANCELLED')).toBe(true)
    } finally { await own.close() }
  })
})

describe('timeout', () => {
  it('open tasks fail with operation.timeout; their device tasks are never delivered afterwards, a late answer changes nothing', async () => {
    const label = uniq('timeout')
    const [silent, away] = await mqttDevices(stack, 2, label) as [MqttDevice, MqttDevice]
    const first = await connected(silent) // takes its task and never answers
    const timeout = Date.now() + 2000
    const res = await postReboot(stack, { systems: { label }, timeout })
    expect(res.statusCode).toBe(200)
    const uid = res.json().operation as string
    await eventually(async () => first.got.length > 0, 5000, 'the delivered task')
    const done = await waitFinished(stack, uid, 20_000) // the timeout sweeper passes every few seconds
    expect(done.endDate).toBeGreaterThanOrEqual(timeout)
    expect(counters(done)).toMatchObject({ FAILURE: 2, IN_PROGRESS: 0, PENDING: 0 })
    const tasks = await allTasks(stack, uid)
    for (const t of tasks) expect(t).toMatchObject({ state: 'FAILURE', error: { code: 'operation.timeout' } })

    // The device that was away connects: nothing. The silent one reconnects: its unanswered task is not sent again.
    const late = await connected(away)
    expect(late.got).toEqual([])
    expect((await deviceTasksOfSystem(stack, away.uid)).map((t) => [t.state, t.sentAt])).toEqual([['CANCELLED', null]])
    await first.client.endAsync(true)
    const again = await connected(silent)
    expect(again.got).toEqual([])
    expect((await deviceTasksOfSystem(stack, silent.uid)).map((t) => t.state)).toEqual(['CANCELLED'])

    // Its answer, late, ends nothing.
    await ack(again.client, silent, taskOf(tasks, silent).uid, 'OK')
    expect((await allTasks(stack, uid)).map((t) => t.state)).toEqual(['FAILURE', 'FAILURE'])
    expect(await getOperation(stack, uid)).toMatchObject({ state: 'FINISHED', endDate: done.endDate })
  })
})
