// Safe rollouts, the release budget (docs/operations.md#bulk-operations; core/operations/rollout.ts): an
// operation with `rollout: {maxPerMinute}` starts at most that many tasks in any minute, waits for the next window
// rather than spinning, and finishes; the budget is read from the store, so a second engine (another process of a
// cluster, or the same one restarted) releases nothing more. Without `rollout` nothing changes. The engine runs on
// a clock the test moves (test/helpers/own-engine.ts); the reboot operation is driven through HTTP with real MQTT
// devices.
import type { MqttClient } from 'mqtt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { OperationHandler } from '../../../core/operations/handler.js'
import type { Db } from '../../../core/ports/store.js'
import { ROLLOUT_WINDOW_MS } from '../../../core/operations/rollout.js'
import { startStack, type Stack } from '../../helpers/stack.js'
import { uniq } from '../../helpers/factories.js'
import { expectError } from '../../helpers/systems.js'
import { allTasks, count, createSystems, getOperation, waitOperation, type OperationJson, type TaskJson } from '../../helpers/operations.js'
import { manualClock, ownEngine } from '../../helpers/own-engine.js'
import { endAll, eventually } from '../../helpers/devices.js'
import { cancelOperation, mqttDevices, online, postReboot, type MqttDevice } from '../../helpers/rollout-devices.js'

const MINUTE = ROLLOUT_WINDOW_MS

let stack: Stack
beforeAll(async () => { stack = await startStack({ listen: true }) })
afterAll(async () => { await stack.close() })

const succeed: OperationHandler = { async run () { return { state: 'SUCCESS' } } }

/** The largest number of tasks started within any one minute (sliding window over their start dates). */
function mostPerMinute (tasks: TaskJson[]): number {
  const starts = tasks.map((t) => t.startDate).filter((s): s is number => s !== null).sort((a, b) => a - b)
  let most = 0
  for (const [i, s] of starts.entries()) most = Math.max(most, starts.filter((x, j) => j >= i && x < s + MINUTE).length)
  return most
}

const started = (tasks: TaskJson[]): number => tasks.filter((t) => t.startDate !== null).length

/** The store as one engine sees it, keeping the calls it made and has no answer to yet (by their order of making). */
interface Watched { db: Db, made: () => number, heldSince: (made: number) => boolean }

function watched (db: Db): Watched {
  let made = 0
  const open = new Set<number>()
  const track = async <T>(call: () => Promise<T>): Promise<T> => {
    const n = ++made
    open.add(n)
    try { return await call() } finally { open.delete(n) }
  }
  return {
    db: {
      ...db,
      query: async (sql, params) => await track(async () => await db.query(sql, params)),
      transaction: async (fn) => await track(async () => await db.transaction(fn))
    },
    made: () => made,
    heldSince: (n) => [...open].some((x) => x > n)
  }
}

describe('rollout.maxPerMinute', () => {
  it('starts at most maxPerMinute tasks a minute, the next run waiting for the next window, and finishes', async () => {
    const systems = await createSystems(stack, 7, uniq('roll'), [])
    const own = await ownEngine(stack, succeed, { chunkSize: 2 })
    try {
      const t0 = own.clock.now()
      const uid = await own.launch(systems, { rollout: { maxPerMinute: 3 } })
      await own.idle()
      let tasks = await allTasks(stack, uid)
      expect(tasks.map((t) => t.state)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS', 'PENDING', 'PENDING', 'PENDING', 'PENDING'])
      expect(tasks.slice(0, 3).map((t) => t.startDate)).toEqual([t0, t0, t0])
      expect((await getOperation(stack, uid)).state).toBe('IN_PROGRESS')
      expect(await own.nextRunAt()).toBe(t0 + MINUTE) // one run, queued for the window's end

      // Within the window nothing more is released.
      own.clock.move(MINUTE / 2)
      await own.idle()
      expect(started(await allTasks(stack, uid))).toBe(3)

      own.clock.move(MINUTE / 2)
      await own.idle()
      tasks = await allTasks(stack, uid)
      expect(tasks.map((t) => t.state)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS', 'SUCCESS', 'SUCCESS', 'SUCCESS', 'PENDING'])
      expect(await own.nextRunAt()).toBe(t0 + 2 * MINUTE)

      own.clock.move(MINUTE)
      await own.idle()
      const done = await getOperation(stack, uid)
      expect(done).toMatchObject({ state: 'FINISHED', total: 7, endDate: t0 + 2 * MINUTE, abortedBy: null, parameters: { rollout: { maxPerMinute: 3 } } })
      expect(count(done, 'SUCCESS')).toBe(7)
      tasks = await allTasks(stack, uid)
      expect(tasks.map((t) => (t.startDate ?? 0) - t0)).toEqual([0, 0, 0, MINUTE, MINUTE, MINUTE, 2 * MINUTE])
      expect(mostPerMinute(tasks)).toBe(3)
      expect(await own.nextRunAt()).toBeUndefined()
    } finally { await own.close() }
  })

  it('the budget is the store\'s: a second engine releases nothing more in the window, and two at once share one budget', async () => {
    const systems = await createSystems(stack, 12, uniq('cluster'), [])
    const clock = manualClock()
    // While `overlap` is on, a task waits for the other engine to be running one too, or to be held back by the store
    // behind this task's transaction: their chunk transactions overlap unless the budget's lock keeps the second out
    // until the first has committed. (The embedded store runs one transaction at a time: there the other engine's
    // next call, made once its run is due, waits for the commit.)
    let overlap = false
    const inside = new Set<string>()
    const stores = { first: watched(stack.db), second: watched(stack.db) }
    const since = { first: 0, second: 0 }
    const meeting = (name: 'first' | 'second', other: 'first' | 'second'): OperationHandler => ({
      async run () {
        inside.add(name)
        await eventually(() => !overlap || inside.size >= 2 || stores[other].heldSince(since[other]),
          { timeoutMs: 10_000, what: `the ${other} engine running a task or held back by the store` })
        return { state: 'SUCCESS' }
      }
    })
    // Chunks as large as the budget: each engine would claim a whole window's worth on its own.
    const first = await ownEngine(stack, meeting('first', 'second'), { clock, chunkSize: 4, db: stores.first.db })
    const second = await ownEngine(stack, meeting('second', 'first'), { clock, chunkSize: 4, db: stores.second.db })
    try {
      const t0 = clock.now()
      const uid = await first.launch(systems, { rollout: { maxPerMinute: 4 } })
      await first.idle()
      expect(started(await allTasks(stack, uid))).toBe(4)
      // The other process takes the operation up at once (as after a restart: engine.recover): the window is spent.
      await second.engine.recover()
      await second.idle()
      expect(started(await allTasks(stack, uid))).toBe(4)
      expect(await second.nextRunAt()).toBe(t0 + MINUTE)
      expect(await first.nextRunAt()).toBe(t0 + MINUTE)

      // Both runs are due at the same time: together they release one window's worth.
      overlap = true
      inside.clear()
      clock.move(MINUTE)
      // What each engine asks the store from now on is for its run, due now.
      since.first = stores.first.made()
      since.second = stores.second.made()
      await Promise.all([first.idle(), second.idle()])
      let tasks = await allTasks(stack, uid)
      expect(started(tasks)).toBe(8)
      expect(mostPerMinute(tasks)).toBe(4)
      overlap = false

      clock.move(MINUTE)
      await Promise.all([first.idle(), second.idle()])
      tasks = await allTasks(stack, uid)
      expect(tasks.every((t) => t.state === 'SUCCESS')).toBe(true)
      expect(mostPerMinute(tasks)).toBe(4)
      expect((await getOperation(stack, uid)).state).toBe('FINISHED')
    } finally {
      await first.close()
      await second.close()
    }
  })

  it('without rollout every task is released by the first run, as before', async () => {
    const systems = await createSystems(stack, 7, uniq('free'), [])
    const own = await ownEngine(stack, succeed, { chunkSize: 2 })
    try {
      const t0 = own.clock.now()
      const uid = await own.launch(systems, {})
      await own.idle()
      const done = await getOperation(stack, uid)
      expect(done).toMatchObject({ state: 'FINISHED', endDate: t0, abortedBy: null })
      expect(count(done, 'SUCCESS')).toBe(7)
      expect((await allTasks(stack, uid)).map((t) => t.startDate)).toEqual(Array(7).fill(t0))
      expect(await own.nextRunAt()).toBeUndefined()
    } finally { await own.close() }
  })
})

describe('a reboot with rollout, through HTTP', () => {
  let devices: MqttDevice[] = []
  let clients: MqttClient[] = []
  afterAll(async () => { await endAll(...clients) })

  it('keeps rollout in its parameters and sends the first window\'s tasks to their devices, no more', async () => {
    const label = uniq('reboot-roll')
    devices = await mqttDevices(stack, 3, label)
    const inboxes = await Promise.all(devices.map(async (d) => await online(stack, d)))
    clients = inboxes.map((i) => i.client)
    const res = await postReboot(stack, { systems: { label }, rollout: { maxPerMinute: 2 } })
    expect(res.statusCode).toBe(200)
    const uid = res.json().operation as string
    const op = await waitOperation(stack, uid, (o) => count(o, 'IN_PROGRESS') === 2, 10_000, 'two tasks released')
    expect(op).toMatchObject({ state: 'IN_PROGRESS', total: 3, parameters: { rollout: { maxPerMinute: 2 } }, abortedBy: null })
    expect(count(op, 'PENDING')).toBe(1)
    const tasks = await allTasks(stack, uid)
    const released = tasks.filter((t) => t.state === 'IN_PROGRESS').map((t) => t.system.uid)
    // Each released device gets its reboot command; the third one gets nothing in this window.
    for (const [i, d] of devices.entries()) {
      const inbox = inboxes[i]?.got ?? []
      if (released.includes(d.uid)) {
        const got = await eventually(() => inbox.flat().length > 0 ? inbox.flat() : undefined, 5000, 'a task on a device')
        expect(got).toEqual([expect.objectContaining({ command: { id: 'system.reboot', params: {} } })])
      } else {
        const { rows } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM device_tasks WHERE system_uid = $1', [d.uid])
        expect(rows[0]?.n).toBe(0)
      }
    }
    expect((await cancelOperation(stack, uid)).statusCode).toBe(200)
  })

  it('refuses maxPerMinute out of range or not an integer with operation.rollout.invalid naming it, creating nothing', async () => {
    const before = (await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM operations')).rows[0]?.n
    for (const maxPerMinute of [0, -5, 1.5, 1_000_001, '10']) {
      const body = expectError(await postReboot(stack, { systems: { uids: [devices[0]?.uid] }, rollout: { maxPerMinute } }), 'operation.rollout.invalid')
      expect(body.errorParameters[0]).toBe('rollout.maxPerMinute')
    }
    // A rollout that sets nothing, or is no object, names the field itself.
    for (const rollout of [{}, 'fast']) {
      const body = expectError(await postReboot(stack, { systems: { uids: [devices[0]?.uid] }, rollout }), 'operation.rollout.invalid')
      expect(body.errorParameters[0]).toBe('rollout')
    }
    expect((await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM operations')).rows[0]?.n).toBe(before)
    // null is no rollout.
    const res = await postReboot(stack, { systems: { uids: [devices[0]?.uid] }, rollout: null, scheduledTime: Date.now() + 60_000 })
    expect(res.statusCode).toBe(200)
    const op: OperationJson = await getOperation(stack, res.json().operation)
    expect(op.parameters).not.toHaveProperty('rollout')
    expect((await cancelOperation(stack, op.uid)).statusCode).toBe(200)
  })
})
