// The engine's device path (docs/devices.md): a task that wrote a device task waits IN_PROGRESS, its
// device task is dispatched only once its chunk is committed, and the device's answer ends it (OK → SUCCESS, ERROR →
// FAILURE operation.device.error with the device's message). An answer committed while the engine was not told (the
// process stopped in between) is taken at recovery.
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Operation } from '../../../core/domain/operation.js'
import type { DispatchRequest } from '../../../core/ports/devices.js'
import type { OperationHandler } from '../../../core/operations/handler.js'
import { createEngine } from '../../../core/operations/engine.js'
import { FleetError } from '../../../core/errors.js'
import { issueDeviceTask } from '../../../core/operations/device/issue.js'
import { newUid } from '../../../core/security/secrets.js'
import { createLocalQueue } from '../../../storage/queue/local-queue.js'
import { createRepositories } from '../../../storage/repositories/index.js'
import { startStack, type Stack } from '../../helpers/stack.js'
import { uniq } from '../../helpers/factories.js'
import { allTasks, createSystems, until } from '../../helpers/operations.js'

const DAY = 86_400_000
let stack: Stack
beforeAll(async () => { stack = await startStack() })
afterAll(async () => { await stack.close() })

/** A device operation that asks each system to read `_RSSI` over MQTT. */
const readRssi: OperationHandler = {
  async run (ctx) { return await issueDeviceTask(ctx, 'MQTT', { read: ['_RSSI'] }, { requestConnection: false }) }
}

/** Like readRssi, but an OK answer waits for the values, which `arrived` says are stored. */
const arrived = new Set<string>()
const readAndWait: OperationHandler = {
  ...readRssi,
  async answered () { return { state: 'IN_PROGRESS' } },
  async reported ({ task }) { return arrived.has(task.systemUid) ? { state: 'SUCCESS' } : undefined }
}

async function engineWith (dispatched: DispatchRequest[][], handler: OperationHandler = readRssi) {
  const queue = createLocalQueue<any>(stack.db, { queue: uniq('devans'), pollMs: 20, onError: () => {} })
  const repos = createRepositories(stack.db)
  const engine = createEngine({
    repos,
    inTransaction: async (fn) => await stack.db.transaction(async (tx) => await fn(createRepositories(tx))),
    queue,
    clock: { now: () => Date.now() },
    log: pino({ level: 'silent' }),
    callbacks: { send: async () => ({ outcome: 'delivered', status: 200 }) },
    mailer: { send: async () => {}, close: async () => {} },
    handlers: { SYSTEM_RETRIEVE_DATA: handler },
    // Each dispatch sees the device tasks already committed: they are in the store when it is called.
    dispatch: {
      dispatch: async (requests) => {
        const pending = await repos.deviceTasks.withPending(requests.map((r) => r.systemUid), 'MQTT')
        expect(pending.sort()).toEqual(requests.map((r) => r.systemUid).sort())
        dispatched.push([...requests])
      }
    },
    chunkSize: 2,
    sliceMs: 0
  })
  await engine.work(2)
  return { engine, repos, close: async () => { await queue.close() } }
}

async function launch (engine: ReturnType<typeof createEngine>, systems: string[]): Promise<string> {
  const now = Date.now()
  const op: Operation = {
    uid: newUid(),
    type: 'SYSTEM_RETRIEVE_DATA',
    state: 'IN_PROGRESS',
    total: 0,
    target: null,
    parameters: {},
    dependsOn: null,
    resolved: true,
    createdAt: now,
    startDate: now,
    scheduledTime: null,
    timeoutDate: now + DAY,
    endDate: null,
    cancelDate: null,
    companyUid: stack.companyUid,
    userUid: stack.adminUid,
    userEmail: null,
    notify: false,
    callback: null
  }
  return await engine.create(op, systems.map((systemUid) => ({ systemUid, systemName: null })))
}

describe('device answers', () => {
  it('dispatches committed device tasks, then ends each task with its device\'s answer', async () => {
    const dispatched: DispatchRequest[][] = []
    const { engine, repos, close } = await engineWith(dispatched)
    try {
      const systems = await createSystems(stack, 3, uniq('ans'))
      const uid = await launch(engine, systems)
      // A chunk's device tasks are dispatched just after its commit: the store may show them IN_PROGRESS a moment
      // before the dispatch is called.
      await until('every task is at its device', async () =>
        dispatched.flat().length >= 3 && (await allTasks(stack, uid, 'IN_PROGRESS')).length === 3)
      expect(dispatched.flat().map((r) => r.systemUid).sort()).toEqual([...systems].sort())
      expect(dispatched.flat().every((r) => r.protocol === 'MQTT' && !r.requestConnection)).toBe(true)

      const tasks = await allTasks(stack, uid)
      const bySystem = new Map(tasks.map((t) => [t.system.uid, t.uid]))
      const answer = async (systemUid: string, status: 'OK' | 'ERROR', message: string | null): Promise<void> => {
        const taskUid = bySystem.get(systemUid) ?? ''
        const answers = await repos.deviceTasks.answer(systemUid, [{ taskUid, status, message }], Date.now())
        expect(answers).toHaveLength(1)
        await engine.deviceAnswered(answers)
      }
      const [a = '', b = '', c = ''] = systems
      await answer(a, 'OK', null)
      await answer(b, 'ERROR', 'sensor offline')
      // An answer to a task already answered closes nothing: the device task is no longer open.
      expect(await repos.deviceTasks.answer(a, [{ taskUid: bySystem.get(a) ?? '', status: 'ERROR', message: 'late' }], Date.now())).toEqual([])
      await answer(c, 'OK', null)

      const done = await allTasks(stack, uid)
      const state = (s: string) => done.find((t) => t.system.uid === s)
      expect(state(a)).toMatchObject({ state: 'SUCCESS', error: null })
      expect(state(b)).toMatchObject({ state: 'FAILURE', error: { code: 'operation.device.error', message: 'sensor offline' } })
      expect(state(c)).toMatchObject({ state: 'SUCCESS' })
      await until('the operation finishes', async () => (await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/operations/${uid}` })).json().state === 'FINISHED')
    } finally { await close() }
  })

  it('answers of one batch run together; one a handler refuses leaves no write of its own, the others keep theirs', async () => {
    // `answered` writes a marker device task, then refuses an ERROR answer: the marker of that one must not stay.
    const failedSeen: string[] = []
    const marking: OperationHandler = {
      ...readRssi,
      async answered ({ tx, task, answer }) {
        await tx.deviceTasks.insert([{ uid: `mark-${task.uid}`, systemUid: task.systemUid, operationUid: null, operationTaskUid: null, protocol: 'MQTT', task: { uid: `mark-${task.uid}`, timestamp: 0, read: ['x'] }, createdAt: 0 }])
        if (answer.status === 'ERROR') throw new FleetError('operation.device.error', [answer.message ?? ''])
        return { state: 'SUCCESS' }
      },
      async failed ({ task }) { failedSeen.push(task.systemUid) }
    }
    const { engine, repos, close } = await engineWith([], marking)
    try {
      const systems = await createSystems(stack, 3, uniq('batch'))
      const uid = await launch(engine, systems)
      await until('every task is at its device', async () => (await allTasks(stack, uid, 'IN_PROGRESS')).length === 3)
      const tasks = await allTasks(stack, uid)
      const taskOf = (s: string): string => tasks.find((t) => t.system.uid === s)?.uid ?? ''
      const [a = '', b = '', c = ''] = systems
      const answers = await repos.deviceTasks.answerMany([a, b, c].map((s) => ({ systemUid: s, acks: [{ taskUid: taskOf(s), status: s === b ? 'ERROR' as const : 'OK' as const, message: s === b ? 'refused' : null }] })), Date.now())
      await engine.deviceAnswered(answers.flat())
      const done = await allTasks(stack, uid)
      expect(systems.map((s) => done.find((t) => t.system.uid === s)?.state)).toEqual(['SUCCESS', 'FAILURE', 'SUCCESS'])
      expect(done.find((t) => t.system.uid === b)?.error).toMatchObject({ code: 'operation.device.error', message: 'refused' })
      expect(failedSeen).toEqual([b])
      const marks = await repos.deviceTasks.states(systems.map((s) => `mark-${taskOf(s)}`))
      expect([...marks.keys()].sort()).toEqual([`mark-${taskOf(a)}`, `mark-${taskOf(c)}`].sort())
    } finally { await close() }
  })

  it('takes at recovery an answer committed while the engine was not told', async () => {
    const { engine, repos, close } = await engineWith([])
    try {
      const [system = ''] = await createSystems(stack, 1, uniq('rec'))
      const uid = await launch(engine, [system])
      await until('the task is at its device', async () => (await allTasks(stack, uid, 'IN_PROGRESS')).length === 1)
      const [task] = await allTasks(stack, uid)
      // The ack is committed; the process "stops" before telling the engine.
      expect(await repos.deviceTasks.answer(system, [{ taskUid: task?.uid ?? '', status: 'OK', message: null }], Date.now())).toHaveLength(1)
      expect((await allTasks(stack, uid))[0]?.state).toBe('IN_PROGRESS')
      await engine.recover()
      expect((await allTasks(stack, uid))[0]?.state).toBe('SUCCESS')
      // Recovering again finds nothing more to take.
      expect((await repos.deviceTasks.unheard()).filter((a) => a.operationUid === uid)).toEqual([])
    } finally { await close() }
  })

  it('takes in the timeout sweep an answer left unheard for 10 s (in a cluster no worker restarts for it)', async () => {
    const { engine, repos, close } = await engineWith([])
    try {
      const [system = ''] = await createSystems(stack, 1, uniq('sweep'))
      const uid = await launch(engine, [system])
      await until('the task is at its device', async () => (await allTasks(stack, uid, 'IN_PROGRESS')).length === 1)
      const [task] = await allTasks(stack, uid)
      // Committed by an ingest process that died before telling the engine.
      expect(await repos.deviceTasks.answer(system, [{ taskUid: task?.uid ?? '', status: 'OK', message: null }], Date.now())).toHaveLength(1)
      // Just answered: left to the process that committed it.
      await engine.sweepTimeouts()
      expect((await allTasks(stack, uid))[0]?.state).toBe('IN_PROGRESS')
      await stack.db.query('UPDATE device_tasks SET acked_at = acked_at - 11000 WHERE uid = $1', [task?.uid ?? ''])
      await engine.sweepTimeouts()
      expect((await allTasks(stack, uid))[0]?.state).toBe('SUCCESS')
    } finally { await close() }
  })

  it('looks again at recovery at tasks waiting for values the engine was not told of', async () => {
    const { engine, repos, close } = await engineWith([], readAndWait)
    try {
      const [system = ''] = await createSystems(stack, 1, uniq('val'))
      const uid = await launch(engine, [system])
      await until('the task is at its device', async () => (await allTasks(stack, uid, 'IN_PROGRESS')).length === 1)
      const [task] = await allTasks(stack, uid)
      await engine.deviceAnswered(await repos.deviceTasks.answer(system, [{ taskUid: task?.uid ?? '', status: 'OK', message: null }], Date.now()))
      expect((await allTasks(stack, uid))[0]?.state).toBe('IN_PROGRESS') // acked, waiting for its values
      arrived.add(system) // the values are stored; the process "stops" before valuesStored
      await engine.recover()
      expect((await allTasks(stack, uid))[0]?.state).toBe('SUCCESS')
    } finally { await close() }
  })
})
