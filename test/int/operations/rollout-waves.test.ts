// Safe rollouts, waves (docs/operations.md#safe-rollouts; core/operations/rollout-gate.ts, rollout-abort.ts,
// engine/rollouts.ts): wave n+1 leaves once waveSuccessPercent of the tasks of waves 1..n succeeded; the devices'
// answers that open a wave queue its run, and answers that open none release nothing; a wave that can no longer
// pass stops the rollout, its PENDING tasks CANCELLED with operation.aborted.threshold; rollout.abort (minFinished)
// stops it the same way. An engine of the test's own runs test-only device tasks on a clock the test holds still
// (test/helpers/own-engine.ts); the devices' acks are recorded as ingest records them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FleetError } from '../../../core/errors.js'
import type { OperationHandler } from '../../../core/operations/handler.js'
import { startStack, type Stack } from '../../helpers/stack.js'
import { uniq } from '../../helpers/factories.js'
import { allTasks, createSystems, getOperation, type OperationJson, type TaskJson } from '../../helpers/operations.js'
import { answer, commandHandler, ownEngine, type OwnEngine } from '../../helpers/own-engine.js'

let stack: Stack
beforeAll(async () => { stack = await startStack() })
afterAll(async () => { await stack.close() })

const counters = (op: OperationJson): Record<string, number> => Object.fromEntries(op.counters.map((c) => [c.state, c.count]))
const rolloutOf = (op: OperationJson): Record<string, unknown> => (op as unknown as { rollout: Record<string, unknown> }).rollout
const inFlight = (tasks: TaskJson[]): TaskJson[] => tasks.filter((t) => t.state === 'IN_PROGRESS')

/** Acks these tasks as their devices do, then waits until the engine has done all it queued for them. */
async function ack (own: OwnEngine, tasks: TaskJson[], status: 'OK' | 'ERROR' = 'OK'): Promise<void> {
  for (const t of tasks) await answer(stack, own.engine, t.system.uid, t.uid, status, own.clock.now(), status === 'ERROR' ? 'flash failed' : null)
  await own.idle()
}

describe('waves', () => {
  it('release each wave once the waves before it succeeded, the implicit last wave taking the rest', async () => {
    const systems = await createSystems(stack, 10, uniq('waves'), [])
    const own = await ownEngine(stack, commandHandler('MQTT'), { chunkSize: 10 })
    try {
      // [10, 50] of 10 tasks, then the implicit 100: waves of 1, 5 and 10 tasks; every task must succeed.
      const uid = await own.launch(systems, { rollout: { waves: [10, 50], waveSuccessPercent: 100 } })
      await own.idle()
      let tasks = await allTasks(stack, uid)
      expect(inFlight(tasks).map((t) => t.system.uid)).toEqual([systems[0]])
      let op = await getOperation(stack, uid)
      expect(rolloutOf(op)).toEqual({
        maxPerMinute: null, waves: [10, 50, 100], waveSuccessPercent: 100, abort: null, maintenanceWindow: null, wave: 1, sent: 1, nextAt: null, paused: false
      })
      expect(op).toMatchObject({ abortReason: null, abortedBy: null })

      await ack(own, inFlight(tasks))
      tasks = await allTasks(stack, uid)
      expect(inFlight(tasks)).toHaveLength(4)
      expect(rolloutOf(await getOperation(stack, uid))).toMatchObject({ wave: 2, sent: 5 })

      // Three of the four: the wave has not passed, nothing more leaves (the engine went idle with nothing queued).
      await ack(own, inFlight(tasks).slice(0, 3))
      expect(inFlight(await allTasks(stack, uid))).toHaveLength(1)
      expect(await own.nextRunAt()).toBeUndefined()

      await ack(own, inFlight(await allTasks(stack, uid)))
      tasks = await allTasks(stack, uid)
      expect(inFlight(tasks)).toHaveLength(5)
      expect(rolloutOf(await getOperation(stack, uid))).toMatchObject({ wave: 3, sent: 10 })
      await ack(own, inFlight(tasks))
      op = await getOperation(stack, uid)
      expect(op.state).toBe('FINISHED')
      expect(counters(op)).toMatchObject({ SUCCESS: 10, PENDING: 0 })
    } finally { await own.close() }
  })

  it('a wave that can no longer reach its share stops the rollout: PENDING tasks CANCELLED with operation.aborted.threshold', async () => {
    const systems = await createSystems(stack, 6, uniq('wavefail'), [])
    const own = await ownEngine(stack, commandHandler('MQTT'), { chunkSize: 10 })
    try {
      // Waves of 2 then 6 tasks; 50 % of the first must succeed: one failure leaves it possible, two do not.
      const t0 = own.clock.now()
      const uid = await own.launch(systems, { rollout: { waves: [30], waveSuccessPercent: 50 } })
      await own.idle()
      const first = inFlight(await allTasks(stack, uid))
      expect(first).toHaveLength(2)
      await ack(own, first.slice(0, 1), 'ERROR')
      expect((await getOperation(stack, uid)).abortedBy).toBeNull()
      await ack(own, first.slice(1), 'ERROR')
      const op = await getOperation(stack, uid)
      expect(op).toMatchObject({
        state: 'FINISHED',
        cancelDate: t0,
        abortReason: 'wave.failed',
        abortedBy: { reason: 'wave.failed', wave: 1, waveSuccessPercent: 50, size: 2, needed: 1, succeeded: 0, failed: 2 }
      })
      expect(counters(op)).toMatchObject({ FAILURE: 2, CANCELLED: 4, PENDING: 0 })
      for (const t of (await allTasks(stack, uid)).filter((x) => x.state === 'CANCELLED')) {
        expect(t).toMatchObject({ startDate: null, error: { code: 'operation.aborted.threshold', message: 'operation.aborted.threshold wave.failed' } })
      }
    } finally { await own.close() }
  })
})

describe('rollout.abort', () => {
  it('stops at failurePercent once minFinished tasks finished, shown as abortReason and rollout.abort', async () => {
    const systems = await createSystems(stack, 8, uniq('minfin'), [])
    const failing: OperationHandler = {
      async run ({ task }) {
        if (task.systemUid === systems[1]) throw new FleetError('operation.no.communication.id.on.system.for.protocol', [task.systemUid, 'MQTT'])
        return { state: 'SUCCESS' }
      }
    }
    const own = await ownEngine(stack, failing, { chunkSize: 2 })
    try {
      // After the first chunk of 2: 1 failed of 2 finished, 50 %.
      const uid = await own.launch(systems, { rollout: { abort: { failurePercent: 50, minFinished: 2 } } })
      await own.idle()
      const op = await getOperation(stack, uid)
      expect(op).toMatchObject({
        state: 'FINISHED', abortReason: 'failure.threshold', abortedBy: { reason: 'failure.threshold', failurePercent: 50, minTasks: 2, ended: 2, failed: 1 }
      })
      expect(rolloutOf(op)).toMatchObject({ abort: { failurePercent: 50, minFinished: 2 }, sent: 2, wave: null, nextAt: null })
      expect(counters(op)).toMatchObject({ SUCCESS: 1, FAILURE: 1, CANCELLED: 6 })
    } finally { await own.close() }
  })
})
