// Safe rollouts, the failure threshold in its older top-level form (docs/operations.md#safe-rollouts;
// core/operations/rollout-abort.ts): once at least `abort.minTasks` tasks have ended and the share of FAILURE among
// them reaches `abort.failurePercent`, the remaining tasks are cancelled as a cancel does (those CANCELLED with
// operation.aborted.threshold) and the operation's `abortedBy` says why. Judged after each chunk
// and after each device answer; never before minTasks. An engine of the test's own drives test-only handlers
// (test/helpers/own-engine.ts); the reboot operation runs through HTTP with real MQTT devices.
import type { MqttClient } from 'mqtt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FleetError } from '../../../core/errors.js'
import type { OperationHandler } from '../../../core/operations/handler.js'
import { createRepositories } from '../../../storage/repositories/index.js'
import { startStack, type Stack } from '../../helpers/stack.js'
import { uniq } from '../../helpers/factories.js'
import { expectError } from '../../helpers/systems.js'
import { allTasks, createSystems, getOperation, waitFinished, waitOperation, type OperationJson } from '../../helpers/operations.js'
import { answer, commandHandler, ownEngine } from '../../helpers/own-engine.js'
import { endAll } from '../../helpers/devices.js'
import { ack, cancelOperation, deviceTasksOfSystem, mqttDevices, online, postReboot } from '../../helpers/rollout-devices.js'

let stack: Stack
beforeAll(async () => { stack = await startStack({ listen: true }) })
afterAll(async () => { await stack.close() })

/** Fails the tasks of these systems with a per-system error, runs the others. */
function failing (bad: readonly string[]): OperationHandler {
  return {
    async run ({ task }) {
      if (bad.includes(task.systemUid)) throw new FleetError('operation.no.communication.id.on.system.for.protocol', [task.systemUid, 'MQTT'])
      return { state: 'SUCCESS' }
    }
  }
}

const counters = (op: OperationJson): Record<string, number> => Object.fromEntries(op.counters.map((c) => [c.state, c.count]))

describe('abort after a chunk', () => {
  it('cancels the remaining tasks once minTasks have ended with the share of failures reached, not before', async () => {
    const systems = await createSystems(stack, 10, uniq('abort'), [])
    const own = await ownEngine(stack, failing(systems), { chunkSize: 2 })
    try {
      const t0 = own.clock.now()
      // Chunks of 2: after the first, 2 ended (all failed) is fewer than minTasks; after the second, 4 are.
      const uid = await own.launch(systems, { abort: { failurePercent: 100, minTasks: 3 } })
      await own.idle()
      const op = await getOperation(stack, uid)
      expect(op).toMatchObject({
        state: 'FINISHED',
        cancelDate: t0,
        endDate: t0,
        abortedBy: { reason: 'failure.threshold', failurePercent: 100, minTasks: 3, ended: 4, failed: 4 },
        parameters: { abort: { failurePercent: 100, minTasks: 3 } }
      })
      expect(counters(op)).toEqual({ PENDING: 0, IN_PROGRESS: 0, SUCCESS: 0, FAILURE: 4, BEING_CANCELLED: 0, CANCELLED: 6 })
      const tasks = await allTasks(stack, uid)
      expect(tasks.map((t) => t.state)).toEqual([...Array(4).fill('FAILURE'), ...Array(6).fill('CANCELLED')])
      // Cancelled by the abort: they say so (docs/operations.md#safe-rollouts).
      for (const t of tasks.slice(4)) {
        expect(t).toMatchObject({ startDate: null, endDate: t0, error: { code: 'operation.aborted.threshold', message: 'operation.aborted.threshold failure.threshold' } })
      }
    } finally { await own.close() }
  })

  it('a share below the threshold runs every task; a share equal to it stops', async () => {
    const below = await createSystems(stack, 8, uniq('below'), [])
    const at = await createSystems(stack, 8, uniq('at'), [])
    // Failures at positions 1 and 4: after each chunk of 2 the share is 1/2, 2/4, 2/6, 2/8.
    const bad = [below[0], below[3], at[0], at[3]].map((s) => s ?? '')
    const own = await ownEngine(stack, failing(bad), { chunkSize: 2 })
    try {
      const runs = await own.launch(below, { abort: { failurePercent: 60, minTasks: 2 } })
      const stops = await own.launch(at, { abort: { failurePercent: 50, minTasks: 2 } })
      await own.idle()
      const ran = await getOperation(stack, runs)
      expect(ran).toMatchObject({ state: 'FINISHED', abortedBy: null, cancelDate: null })
      expect(counters(ran)).toMatchObject({ SUCCESS: 6, FAILURE: 2, CANCELLED: 0 })
      const stopped = await getOperation(stack, stops)
      expect(stopped).toMatchObject({ state: 'FINISHED', abortedBy: { failurePercent: 50, minTasks: 2, ended: 2, failed: 1 } })
      expect(counters(stopped)).toMatchObject({ SUCCESS: 1, FAILURE: 1, CANCELLED: 6 })
    } finally { await own.close() }
  })

  it('with a rollout, the tasks waiting for a later window are the ones cancelled', async () => {
    const systems = await createSystems(stack, 6, uniq('abroll'), [])
    const own = await ownEngine(stack, failing(systems.slice(0, 2)), { chunkSize: 2 })
    try {
      const uid = await own.launch(systems, { rollout: { maxPerMinute: 2 }, abort: { failurePercent: 100, minTasks: 2 } })
      await own.idle()
      const op = await getOperation(stack, uid)
      expect(op).toMatchObject({ state: 'FINISHED', abortedBy: { ended: 2, failed: 2 } })
      expect(counters(op)).toMatchObject({ FAILURE: 2, CANCELLED: 4, PENDING: 0 })
      // Nothing waits for the next window any more.
      expect(await own.nextRunAt()).toBeUndefined()
    } finally { await own.close() }
  })
})

describe('abort after device answers', () => {
  it('judges each answer: under minTasks nothing happens; then undelivered tasks CANCELLED, delivered ones BEING_CANCELLED until their device answers', async () => {
    const systems = await createSystems(stack, 5, uniq('answers'), [])
    const own = await ownEngine(stack, commandHandler('MQTT'), { chunkSize: 5 })
    const repos = createRepositories(stack.db)
    try {
      const uid = await own.launch(systems, { abort: { failurePercent: 50, minTasks: 2 } })
      await own.idle()
      expect(counters(await getOperation(stack, uid))).toMatchObject({ IN_PROGRESS: 5 })
      const task = new Map((await allTasks(stack, uid)).map((t) => [t.system.uid, t.uid]))
      const [s0, s1, s2, s3, s4] = systems as [string, string, string, string, string]
      // Three devices took their task (as their transport does when they connect); two did not.
      for (const s of [s0, s1, s2]) expect(await repos.deviceTasks.take(s, 'MQTT', own.clock.now())).toHaveLength(1)

      await answer(stack, own.engine, s0, task.get(s0) ?? '', 'ERROR', own.clock.now(), 'flash write failed')
      let op = await getOperation(stack, uid)
      expect(op).toMatchObject({ state: 'IN_PROGRESS', abortedBy: null, cancelDate: null })
      expect(counters(op)).toMatchObject({ FAILURE: 1, IN_PROGRESS: 4 })

      await answer(stack, own.engine, s1, task.get(s1) ?? '', 'OK', own.clock.now())
      op = await getOperation(stack, uid)
      expect(op).toMatchObject({ state: 'IN_PROGRESS', cancelDate: own.clock.now(), abortedBy: { reason: 'failure.threshold', failurePercent: 50, minTasks: 2, ended: 2, failed: 1 } })
      expect(counters(op)).toEqual({ PENDING: 0, IN_PROGRESS: 0, SUCCESS: 1, FAILURE: 1, BEING_CANCELLED: 1, CANCELLED: 2 })
      const states = new Map((await allTasks(stack, uid)).map((t) => [t.system.uid, t.state]))
      expect([s2, s3, s4].map((s) => states.get(s))).toEqual(['BEING_CANCELLED', 'CANCELLED', 'CANCELLED'])
      // The withdrawn tasks never reach their devices, even on a reconnection.
      for (const s of [s3, s4]) {
        expect(await repos.deviceTasks.take(s, 'MQTT', own.clock.now(), { again: true })).toEqual([])
        expect((await deviceTasksOfSystem(stack, s)).map((t) => [t.state, t.sentAt])).toEqual([['CANCELLED', null]])
      }

      // The delivered one ends with what its device answers; then the operation is FINISHED, its abortedBy kept.
      await answer(stack, own.engine, s2, task.get(s2) ?? '', 'ERROR', own.clock.now(), 'busy')
      op = await getOperation(stack, uid)
      expect(op).toMatchObject({ state: 'FINISHED', abortedBy: { ended: 2, failed: 1 } })
      expect(counters(op)).toEqual({ PENDING: 0, IN_PROGRESS: 0, SUCCESS: 1, FAILURE: 2, BEING_CANCELLED: 0, CANCELLED: 2 })
      expect((await allTasks(stack, uid)).find((t) => t.system.uid === s2)?.error).toEqual({ code: 'operation.device.error', message: 'busy' })
    } finally { await own.close() }
  })

  it('an operation the user cancelled is not marked aborted afterwards', async () => {
    const systems = await createSystems(stack, 3, uniq('usercancel'), [])
    const own = await ownEngine(stack, commandHandler('MQTT'), { chunkSize: 5 })
    const repos = createRepositories(stack.db)
    try {
      const uid = await own.launch(systems, { abort: { failurePercent: 10, minTasks: 1 } })
      await own.idle()
      for (const s of systems) await repos.deviceTasks.take(s, 'MQTT', own.clock.now())
      const op = await repos.operations.find(uid)
      if (op === undefined) throw new Error('no operation')
      await own.engine.cancel(op)
      const [first] = await allTasks(stack, uid)
      await answer(stack, own.engine, first?.system.uid ?? '', first?.uid ?? '', 'ERROR', own.clock.now())
      const after = await getOperation(stack, uid)
      expect(after).toMatchObject({ abortedBy: null, cancelDate: own.clock.now() })
      expect(counters(after)).toMatchObject({ FAILURE: 1, BEING_CANCELLED: 2 })
    } finally { await own.close() }
  })
})

describe('a reboot with abort, through HTTP', () => {
  const clients: MqttClient[] = []
  afterAll(async () => { await endAll(...clients) })

  it('devices answering ERROR stop the rollout: the tasks not released are CANCELLED and never reach their devices', async () => {
    const label = uniq('reboot-abort')
    const devices = await mqttDevices(stack, 4, label)
    const inboxes = []
    for (const d of devices) {
      const o = await online(stack, d)
      clients.push(o.client)
      inboxes.push(o.got)
      // Every device fails its reboot (docs/devices.md: ERROR with its message).
      o.client.on('message', (topic, payload) => {
        if (!topic.endsWith('/tasks/json')) return
        for (const t of JSON.parse(payload.toString('utf8')) as Array<{ uid: string }>) ack(o.client, d, t.uid, 'ERROR', 'low battery').catch(() => {})
      })
    }
    const res = await postReboot(stack, { systems: { label }, rollout: { maxPerMinute: 2 }, abort: { failurePercent: 100, minTasks: 2 } })
    expect(res.statusCode).toBe(200)
    const uid = res.json().operation as string
    const op = await waitFinished(stack, uid, 15_000)
    expect(op).toMatchObject({
      total: 4,
      abortedBy: { reason: 'failure.threshold', failurePercent: 100, minTasks: 2, ended: 2, failed: 2 },
      parameters: { rollout: { maxPerMinute: 2 }, abort: { failurePercent: 100, minTasks: 2 } }
    })
    expect(op.cancelDate).not.toBeNull()
    expect(counters(op)).toMatchObject({ FAILURE: 2, CANCELLED: 2, SUCCESS: 0 })
    const tasks = await allTasks(stack, uid)
    for (const [i, d] of devices.entries()) {
      const t = tasks.find((x) => x.system.uid === d.uid)
      if (t?.state === 'FAILURE') {
        expect(t.error).toEqual({ code: 'operation.device.error', message: 'low battery' })
        expect(inboxes[i]?.flat().map((x) => x.uid)).toEqual([t.uid])
      } else {
        expect(t).toMatchObject({ state: 'CANCELLED', startDate: null })
        expect(await deviceTasksOfSystem(stack, d.uid)).toEqual([])
        expect(inboxes[i]).toEqual([])
      }
    }
  })

  it('refuses abort fields out of range with operation.rollout.invalid naming the field, creating nothing; the bounds are accepted', async () => {
    const label = uniq('abort-fields')
    const [d] = await mqttDevices(stack, 1, label)
    const countOps = async (): Promise<number | undefined> => (await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM operations')).rows[0]?.n
    const before = await countOps()
    const wrong: unknown[] = [
      { failurePercent: -1, minTasks: 1 }, { failurePercent: 100.5, minTasks: 1 }, { failurePercent: '50', minTasks: 1 },
      { failurePercent: 50, minTasks: 0 }, { failurePercent: 50, minTasks: 2.5 }, { failurePercent: 50, minTasks: 1_000_001 },
      { failurePercent: 50 }, { minTasks: 3 }, 'stop', [50, 3], { failurePercent: 50, minTasks: 3, minFinished: 3 }
    ]
    for (const abort of wrong) {
      const body = expectError(await postReboot(stack, { systems: { uids: [d?.uid] }, abort }), 'operation.rollout.invalid')
      expect(body.errorParameters[0]).toMatch(/^abort(\.failurePercent|\.minTasks|\.minFinished)?$/)
    }
    expect(await countOps()).toBe(before)
    for (const abort of [{ failurePercent: 0, minTasks: 1 }, { failurePercent: 100, minTasks: 1_000_000 }, { failurePercent: 12.5, minTasks: 8 }]) {
      const res = await postReboot(stack, { systems: { uids: [d?.uid] }, abort, scheduledTime: Date.now() + 60_000 })
      expect(res.statusCode, res.body).toBe(200)
      const uid = res.json().operation as string
      expect((await getOperation(stack, uid)).parameters).toEqual(expect.objectContaining({ abort }))
      expect((await cancelOperation(stack, uid)).statusCode).toBe(200)
    }
    // null is no abort.
    const res = await postReboot(stack, { systems: { uids: [d?.uid] }, abort: null, scheduledTime: Date.now() + 60_000 })
    const plain = await waitOperation(stack, res.json().operation, () => true)
    expect(plain.parameters).not.toHaveProperty('abort')
    expect((await cancelOperation(stack, plain.uid)).statusCode).toBe(200)
  })
})
