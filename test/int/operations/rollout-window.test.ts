// Safe rollouts, the maintenance window and the pause (docs/operations.md#safe-rollouts;
// core/operations/rollout-gate.ts): outside the window nothing leaves and one run waits for its opening (shown as
// rollout.nextAt); a window that closes mid-rollout holds the rest until the next day's opening; a paused operation
// releases nothing, queues nothing, and a resume goes on where it stopped. The engine's clock is the test's
// (test/helpers/own-engine.ts): the hours pass at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { OperationHandler } from '../../../core/operations/handler.js'
import { createRepositories } from '../../../storage/repositories/index.js'
import { startStack, type Stack } from '../../helpers/stack.js'
import { uniq } from '../../helpers/factories.js'
import { allTasks, createSystems, getOperation, type OperationJson, type TaskJson } from '../../helpers/operations.js'
import { manualClock, ownEngine } from '../../helpers/own-engine.js'

let stack: Stack
beforeAll(async () => { stack = await startStack() })
afterAll(async () => { await stack.close() })

const succeed: OperationHandler = { async run () { return { state: 'SUCCESS' } } }
const rolloutOf = (op: OperationJson): Record<string, unknown> => (op as unknown as { rollout: Record<string, unknown> }).rollout
const started = (tasks: TaskJson[]): number => tasks.filter((t) => t.startDate !== null).length
const MINUTE = 60_000
const HOUR = 60 * MINUTE
// A day ahead of the real clock: the stack's own engine times out, on the real clock, operations whose timeoutDate
// has passed, and these run on a clock of their own.
const DAY0 = Date.UTC(new Date().getUTCFullYear() + 1, 0, 5)
const WEEK = 7 * 24 * HOUR

describe('maintenanceWindow', () => {
  it('holds every task until the window opens, then releases them', async () => {
    const systems = await createSystems(stack, 3, uniq('win'), [])
    const own = await ownEngine(stack, succeed, { clock: manualClock(DAY0 + 20 * HOUR + 15 * MINUTE), chunkSize: 2 })
    try {
      // 22:00 to 05:00 in Tokyo (UTC+9, no daylight saving time): 13:00 to 20:00 UTC, so 20:15 UTC is outside.
      const window = { start: '22:00', end: '05:00', timeZone: 'Asia/Tokyo' }
      const uid = await own.launch(systems, { maintenanceWindow: window }, { timeoutDate: DAY0 + WEEK })
      await own.idle()
      expect(started(await allTasks(stack, uid))).toBe(0)
      const opens = DAY0 + 24 * HOUR + 13 * HOUR
      expect(await own.nextRunAt()).toBe(opens)
      expect(rolloutOf(await getOperation(stack, uid))).toMatchObject({ maintenanceWindow: window, sent: 0, nextAt: opens, paused: false })

      own.clock.move(opens - own.clock.now())
      await own.idle()
      const op = await getOperation(stack, uid)
      expect(op).toMatchObject({ state: 'FINISHED', endDate: opens })
      expect(rolloutOf(op)).toMatchObject({ sent: 3, nextAt: null })
    } finally { await own.close() }
  })

  it('a window that closes mid-rollout holds the rest until it opens again', async () => {
    const systems = await createSystems(stack, 5, uniq('winclose'), [])
    const own = await ownEngine(stack, succeed, { clock: manualClock(DAY0 + 9 * HOUR), chunkSize: 2 })
    try {
      const uid = await own.launch(systems, { rollout: { maxPerMinute: 2 }, maintenanceWindow: { start: '09:00', end: '09:01' } }, { timeoutDate: DAY0 + WEEK })
      await own.idle()
      expect(started(await allTasks(stack, uid))).toBe(2)
      expect(await own.nextRunAt()).toBe(DAY0 + 9 * HOUR + MINUTE) // the budget frees as the window closes
      own.clock.move(MINUTE)
      await own.idle()
      expect(started(await allTasks(stack, uid))).toBe(2)
      const tomorrow = DAY0 + 24 * HOUR + 9 * HOUR
      expect(await own.nextRunAt()).toBe(tomorrow)
      own.clock.move(tomorrow - own.clock.now())
      await own.idle()
      expect(started(await allTasks(stack, uid))).toBe(4)
    } finally { await own.close() }
  })
})

describe('pause and resume', () => {
  it('a paused rollout releases nothing and queues nothing; resumed, it goes on at its pace', async () => {
    const systems = await createSystems(stack, 6, uniq('pause'), [])
    const own = await ownEngine(stack, succeed, { chunkSize: 2 })
    const repos = createRepositories(stack.db)
    try {
      const t0 = own.clock.now()
      const uid = await own.launch(systems, { rollout: { maxPerMinute: 2 } })
      await own.idle()
      expect(started(await allTasks(stack, uid))).toBe(2)
      const op = await repos.operations.find(uid)
      if (op === undefined) throw new Error('no operation')
      await own.engine.pause(op, true)
      expect(rolloutOf(await getOperation(stack, uid))).toMatchObject({ paused: true, sent: 2 })

      // The run queued for the next minute finds it paused: nothing leaves, nothing more is queued.
      own.clock.move(MINUTE)
      await own.idle()
      expect(started(await allTasks(stack, uid))).toBe(2)
      expect(await own.nextRunAt()).toBeUndefined()
      expect((await getOperation(stack, uid)).state).toBe('IN_PROGRESS')

      await own.engine.pause(op, false)
      await own.idle()
      const tasks = await allTasks(stack, uid)
      expect(tasks.map((t) => (t.startDate ?? 0) - t0)).toEqual([0, 0, MINUTE, MINUTE, 0 - t0, 0 - t0])
      expect(rolloutOf(await getOperation(stack, uid))).toMatchObject({ paused: false, sent: 4, nextAt: t0 + 2 * MINUTE })
      own.clock.move(MINUTE)
      await own.idle()
      expect((await getOperation(stack, uid)).state).toBe('FINISHED')
    } finally { await own.close() }
  })
})
