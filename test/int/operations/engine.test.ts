// The operations engine through HTTP (docs/operations.md#bulk-operations; docs/operations.md#bulk-operations dependsOn,
// set T): states and counters, scheduledTime, dependsOn chaining, timeout and cancel, with the label and bulk delete
// operations.
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FleetError } from '../../../core/errors.js'
import { StoreUnavailableError } from '../../../core/store-errors.js'
import type { Operation } from '../../../core/domain/operation.js'
import type { OperationHandler } from '../../../core/operations/handler.js'
import type { CallbackSender } from '../../../core/ports/notify.js'
import { createEngine } from '../../../core/operations/engine.js'
import type { Repositories } from '../../../core/ports/repositories.js'
import { newUid } from '../../../core/security/secrets.js'
import { createLocalQueue } from '../../../storage/queue/local-queue.js'
import { createRepositories } from '../../../storage/repositories/index.js'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createUser, uniq, type TestUser } from '../../helpers/factories.js'
import { expectError } from '../../helpers/systems.js'
import {
  allTasks, count, createSystems, getOperation, labelsOf, listTasks, postDelete, postLabel, started, until, waitFinished,
  waitOperation, type OperationJson
} from '../../helpers/operations.js'

const TASK_STATES = ['PENDING', 'IN_PROGRESS', 'SUCCESS', 'FAILURE', 'BEING_CANCELLED', 'CANCELLED']
const DAY = 86_400_000

let stack: Stack
let other: TestUser

beforeAll(async () => {
  stack = await startStack()
  other = await createUser(stack, { company: 'Other Company', rights: ['entities.systems.view', 'entities.systems.edit'] })
})
afterAll(async () => { await stack.close() })

const deleteSystem = async (uid: string): Promise<void> => {
  const res = await stack.call(stack.adminToken, { method: 'DELETE', url: `/api/v1/systems/${uid}` })
  expect(res.statusCode).toBe(200)
}

const operationCount = async (): Promise<number> =>
  (await stack.call(stack.adminToken, { method: 'GET', url: '/api/v1/operations?size=1' })).json().count

/** The counters as a map, after checking that all six task states are listed in order. */
function countersOf (op: OperationJson): Record<string, number> {
  expect(op.counters.map((c) => c.state)).toEqual(TASK_STATES)
  return Object.fromEntries(op.counters.map((c) => [c.state, c.count]))
}

const cancel = async (uid: string, token = stack.adminToken) =>
  await stack.call(token, { method: 'POST', url: `/api/v1/operations/${uid}/cancel` })

describe('states and counters', () => {
  it('goes SCHEDULED → IN_PROGRESS → FINISHED with all six counters, total, dates and a task list with states filter and paging', async () => {
    const label = uniq('grp')
    const systems = await createSystems(stack, 7, label, [label])
    const scheduledTime = Date.now() + 1500
    const uid = await started(postLabel(stack, { labels: { add: ['done'] }, criteria: { labels: [label] }, scheduledTime }))
    // Two systems vanish before the operation runs: their tasks fail with system.unknown.
    await deleteSystem(systems[1] ?? '')
    await deleteSystem(systems[4] ?? '')

    const created = await getOperation(stack, uid)
    expect(created).toMatchObject({ uid, entity: 'SYSTEM', operationType: 'SYSTEM_LABEL', state: 'SCHEDULED', startDate: null, endDate: null, cancelDate: null, total: 7, scheduledTime })
    expect(countersOf(created)).toEqual({ PENDING: 7, IN_PROGRESS: 0, SUCCESS: 0, FAILURE: 0, BEING_CANCELLED: 0, CANCELLED: 0 })

    // Every state seen while polling, in order: never backwards.
    const seen: string[] = []
    const done = await waitOperation(stack, uid, (op) => {
      if (seen.at(-1) !== op.state) seen.push(op.state)
      const c = countersOf(op)
      expect(Object.values(c).reduce((a, b) => a + b, 0)).toBe(7) // counters always sum to total
      return op.state === 'FINISHED'
    })
    const order = ['SCHEDULED', 'IN_PROGRESS', 'FINISHED']
    expect(seen.map((s) => order.indexOf(s))).toEqual([...seen.map((s) => order.indexOf(s))].sort())
    expect(done.total).toBe(7)
    expect(countersOf(done)).toEqual({ PENDING: 0, IN_PROGRESS: 0, SUCCESS: 5, FAILURE: 2, BEING_CANCELLED: 0, CANCELLED: 0 })
    expect(done.startDate).toBeGreaterThanOrEqual(scheduledTime)
    expect(done.endDate).toBeGreaterThanOrEqual(done.startDate ?? Infinity)
    expect(done.createdAt).toBeLessThan(scheduledTime)

    const failed = await listTasks(stack, uid, { states: 'FAILURE' })
    expect(failed.count).toBe(2)
    expect(failed.items.map((t) => t.system.uid)).toEqual([systems[1], systems[4]])
    for (const t of failed.items) {
      expect(t).toMatchObject({ operation: uid, state: 'FAILURE', error: { code: 'system.unknown' } })
      expect(t.endDate).toBeGreaterThanOrEqual(scheduledTime)
    }
    const succeeded = await listTasks(stack, uid, { states: 'SUCCESS' })
    expect(succeeded.count).toBe(5)
    for (const t of succeeded.items) {
      expect(t.error).toBeNull()
      expect(t.startDate).toBeGreaterThanOrEqual(scheduledTime)
      expect(t.endDate).toBeGreaterThanOrEqual(t.startDate ?? Infinity)
      expect(await labelsOf(stack, t.system.uid)).toEqual([label, 'done'].sort())
    }
    expect((await listTasks(stack, uid, { states: 'SUCCESS,FAILURE' })).count).toBe(7)
    expect((await listTasks(stack, uid, { states: 'PENDING' })).count).toBe(0)

    // Paging in creation order of the selection; count is the whole filtered list.
    const first = await listTasks(stack, uid, { offset: 0, size: 3 })
    const last = await listTasks(stack, uid, { offset: 6, size: 3 })
    expect(first).toMatchObject({ count: 7, size: 3, offset: 0 })
    expect(last).toMatchObject({ count: 7, size: 1, offset: 6 })
    expect([...first.items, ...(await listTasks(stack, uid, { offset: 3, size: 3 })).items, ...last.items].map((t) => t.system.uid)).toEqual(systems)
    expect(first.items[0]?.system.name).toBe(`${label}-1`)
  })

  it('an immediate operation is IN_PROGRESS from its creation, then FINISHED with every task SUCCESS', async () => {
    const label = uniq('now')
    await createSystems(stack, 3, label, [label])
    const uid = await started(postLabel(stack, { labels: { add: ['x'] }, criteria: { labels: [label] } }))
    const first = await getOperation(stack, uid)
    expect(['IN_PROGRESS', 'FINISHED']).toContain(first.state)
    expect(first.startDate).toBe(first.createdAt)
    expect(first.scheduledTime).toBeNull()
    expect(first.timeoutDate).toBe(first.createdAt + 7 * DAY) // docs/operations.md#bulk-operations: 7 days
    const done = await waitFinished(stack, uid)
    expect(countersOf(done)).toMatchObject({ SUCCESS: 3, PENDING: 0, FAILURE: 0 })
  })

  it('the bulk delete operation deletes its systems and keeps the operation in the history', async () => {
    const label = uniq('del')
    const systems = await createSystems(stack, 3, label, [label])
    const uid = await started(postDelete(stack, { systems: { label } }))
    const done = await waitFinished(stack, uid)
    expect(done).toMatchObject({ operationType: 'SYSTEM_DELETE', total: 3 })
    expect(count(done, 'SUCCESS')).toBe(3)
    const { rows } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM systems WHERE uid = ANY($1::text[])', [systems])
    expect(rows[0]?.n).toBe(0)
    const listed = (await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/operations?uid=${uid}` })).json()
    expect(listed.items.map((o: OperationJson) => o.uid)).toEqual([uid])
  })
})

describe('scheduledTime', () => {
  it('stays SCHEDULED with PENDING tasks and no effect before its time, then runs', async () => {
    const label = uniq('sched')
    const systems = await createSystems(stack, 3, label, [label])
    const scheduledTime = Date.now() + 2000
    const uid = await started(postLabel(stack, { labels: { add: ['later'] }, criteria: { labels: [label] }, scheduledTime }))
    /** Whether it is untouched; undefined when read at its time or after (then it may have started). */
    const untouched = async (): Promise<boolean | undefined> => {
      const op = await getOperation(stack, uid)
      if (Date.now() >= scheduledTime) return undefined // the answer may predate the time only if read before it
      expect(op).toMatchObject({ state: 'SCHEDULED', startDate: null, total: 3 })
      expect(count(op, 'PENDING')).toBe(3)
      expect((await listTasks(stack, uid, { states: 'PENDING' })).count).toBe(3)
      for (const s of systems) expect(await labelsOf(stack, s)).toEqual([label].sort())
      return true
    }
    expect(await untouched()).toBe(true)
    // An operation posted after it runs to its end meanwhile: the engine was at work, and passed the scheduled one by.
    const marker = uniq('sched-marker')
    await createSystems(stack, 1, marker, [marker])
    await waitFinished(stack, await started(postLabel(stack, { labels: { add: ['now'] }, criteria: { labels: [marker] } })))
    expect(await untouched()).toBe(true)
    const done = await waitFinished(stack, uid, 10_000)
    expect(done.startDate).toBeGreaterThanOrEqual(scheduledTime)
    expect(count(done, 'SUCCESS')).toBe(3)
    for (const s of systems) expect(await labelsOf(stack, s)).toEqual([label, 'later'].sort())
  })

  it('set T: more than 90 days ahead, or a timeout before scheduledTime, is refused and creates nothing', async () => {
    const label = uniq('t')
    await createSystems(stack, 1, label, [label])
    const before = await operationCount()
    const body = { labels: { add: ['x'] }, criteria: { labels: [label] } }
    expectError(await postLabel(stack, { ...body, scheduledTime: Date.now() + 91 * DAY }), 'operation.invalid.schedule.date')
    expectError(await postLabel(stack, { ...body, scheduledTime: Date.now() + 90 * DAY + 60_000 }), 'operation.invalid.schedule.date')
    const at = Date.now() + DAY
    expectError(await postLabel(stack, { ...body, scheduledTime: at, timeout: at - 1000 }), 'operation.invalid.timeout.date')
    expect(await operationCount()).toBe(before)
    const { rows } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM operation_tasks')
    // Within the limits it is accepted (89 days ahead, timeout equal to scheduledTime).
    const ok = await started(postLabel(stack, { ...body, scheduledTime: Date.now() + 89 * DAY, timeout: Date.now() + 89 * DAY + 1 }))
    expect(await getOperation(stack, ok)).toMatchObject({ state: 'SCHEDULED', total: 1 })
    expect((await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM operation_tasks')).rows[0]?.n).toBe((rows[0]?.n ?? 0) + 1)
    expect((await cancel(ok)).statusCode).toBe(200)
  })
})

describe('dependsOn', () => {
  it('a child made while its parent is SCHEDULED waits for it, then takes the systems of the parent tasks in the wanted states', async () => {
    const label = uniq('dep')
    const systems = await createSystems(stack, 6, label, [label])
    const parentTime = Date.now() + 2000
    const parent = await started(postLabel(stack, { labels: { add: ['parent'] }, criteria: { labels: [label] }, scheduledTime: parentTime }))
    // Two systems vanish before the parent runs: their parent tasks fail (system.unknown).
    await deleteSystem(systems[0] ?? '')
    await deleteSystem(systems[3] ?? '')
    const onSuccess = await started(postLabel(stack, { labels: { add: ['child-ok'] }, dependsOn: { operation: parent, states: ['SUCCESS'] } }))
    const onFailure = await started(postLabel(stack, { labels: { add: ['child-ko'] }, dependsOn: { operation: parent, states: ['FAILURE'] } }))
    const onAll = await started(postLabel(stack, { labels: { add: ['child-all'] }, dependsOn: { operation: parent, states: [] } }))

    for (const child of [onSuccess, onFailure, onAll]) {
      const op = await getOperation(stack, child)
      expect(op).toMatchObject({ state: 'SCHEDULED', startDate: null, total: 0 })
      expect(op.dependsOn?.operation).toBe(parent)
    }
    expect((await getOperation(stack, onSuccess)).dependsOn?.states).toEqual(['SUCCESS'])

    const p = await waitFinished(stack, parent, 10_000)
    expect(p).toMatchObject({ total: 6 })
    expect([count(p, 'SUCCESS'), count(p, 'FAILURE')]).toEqual([4, 2])
    const ok = await waitFinished(stack, onSuccess, 10_000)
    const ko = await waitFinished(stack, onFailure, 10_000)
    const all = await waitFinished(stack, onAll, 10_000)
    for (const child of [ok, ko, all]) expect(child.startDate).toBeGreaterThanOrEqual(p.endDate ?? Infinity)

    const alive = [1, 2, 4, 5].map((i) => systems[i] ?? '')
    expect(ok).toMatchObject({ total: 4 })
    expect(count(ok, 'SUCCESS')).toBe(4)
    expect((await allTasks(stack, onSuccess)).map((t) => t.system.uid)).toEqual(alive)
    expect(ko).toMatchObject({ total: 2 })
    expect((await allTasks(stack, onFailure)).map((t) => t.system.uid)).toEqual([systems[0], systems[3]])
    expect(count(ko, 'FAILURE')).toBe(2) // those systems are gone
    expect(all).toMatchObject({ total: 6 })
    expect((await allTasks(stack, onAll)).map((t) => t.system.uid)).toEqual(systems)
    expect([count(all, 'SUCCESS'), count(all, 'FAILURE')]).toEqual([4, 2])
    for (const s of alive) expect(await labelsOf(stack, s)).toEqual([label, 'child-all', 'child-ok', 'parent'].sort())
  })

  it('bulk delete with systems.dependsOn (states null: all) waits for its scheduled parent, then deletes', async () => {
    const label = uniq('depdel')
    const systems = await createSystems(stack, 3, label, [label])
    const parent = await started(postLabel(stack, { labels: { add: ['p'] }, criteria: { labels: [label] }, scheduledTime: Date.now() + 1000 }))
    const child = await started(postDelete(stack, { systems: { dependsOn: { operation: parent } } }))
    expect(await getOperation(stack, child)).toMatchObject({ state: 'SCHEDULED', total: 0, operationType: 'SYSTEM_DELETE' })
    const p = await waitFinished(stack, parent, 10_000)
    const c = await waitFinished(stack, child, 10_000)
    expect(c.startDate).toBeGreaterThanOrEqual(p.endDate ?? Infinity)
    expect([c.total, count(c, 'SUCCESS')]).toEqual([3, 3])
    const { rows } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM systems WHERE uid = ANY($1::text[])', [systems])
    expect(rows[0]?.n).toBe(0)
  })

  it('on a FINISHED parent the child resolves at once; an unknown or foreign parent is operation.unknown', async () => {
    const label = uniq('fin')
    await createSystems(stack, 2, label, [label])
    const parent = await started(postLabel(stack, { labels: { add: ['p'] }, criteria: { labels: [label] } }))
    await waitFinished(stack, parent)
    const child = await started(postLabel(stack, { labels: { add: ['c'] }, dependsOn: { operation: parent } }))
    expect(await getOperation(stack, child)).toMatchObject({ total: 2 })
    expect(count(await waitFinished(stack, child), 'SUCCESS')).toBe(2)

    const before = await operationCount()
    expectError(await postLabel(stack, { labels: { add: ['c'] }, dependsOn: { operation: 'f'.repeat(32) } }), 'operation.unknown')
    expectError(await postDelete(stack, { systems: { dependsOn: { operation: 'f'.repeat(32) } } }), 'operation.unknown')
    // Another company's operation is unknown to this one.
    expectError(await postLabel(stack, { labels: { add: ['c'] }, dependsOn: { operation: parent } }, other.token), 'operation.unknown')
    expect(await operationCount()).toBe(before)
  })
})

describe('timeout', () => {
  it('fails the tasks still open at timeoutDate with operation.timeout and finishes the operation', async () => {
    const label = uniq('tmo')
    const systems = await createSystems(stack, 3, label, [label])
    // Timeout equal to scheduledTime: when the operation may start it has already timed out.
    const at = Date.now() + 1000
    const uid = await started(postLabel(stack, { labels: { add: ['never'] }, criteria: { labels: [label] }, scheduledTime: at, timeout: at }))
    expect(await getOperation(stack, uid)).toMatchObject({ state: 'SCHEDULED', timeoutDate: at, total: 3 })
    const done = await waitFinished(stack, uid, 10_000)
    expect(countersOf(done)).toEqual({ PENDING: 0, IN_PROGRESS: 0, SUCCESS: 0, FAILURE: 3, BEING_CANCELLED: 0, CANCELLED: 0 })
    expect(done.endDate).toBeGreaterThanOrEqual(at)
    for (const t of await allTasks(stack, uid)) {
      expect(t).toMatchObject({ state: 'FAILURE', error: { code: 'operation.timeout' } })
      expect(t.endDate).toBeGreaterThanOrEqual(at)
    }
    for (const s of systems) expect(await labelsOf(stack, s)).toEqual([label].sort())
  })

  it('a dependsOn child whose parent starts after the child timeout is finished by the sweeper and never runs', async () => {
    const label = uniq('tmc')
    const systems = await createSystems(stack, 2, label, [label])
    const parentTime = Date.now() + 7000 // after the child's timeout and the sweeper's next pass (every 5 s)
    const parent = await started(postLabel(stack, { labels: { add: ['p'] }, criteria: { labels: [label] }, scheduledTime: parentTime }))
    const childTimeout = Date.now() + 1000
    const child = await started(postLabel(stack, { labels: { add: ['late'] }, dependsOn: { operation: parent }, timeout: childTimeout }))
    const c = await waitFinished(stack, child, 8000)
    expect(c).toMatchObject({ total: 0, timeoutDate: childTimeout })
    expect(c.endDate).toBeGreaterThanOrEqual(childTimeout)
    expect((await getOperation(stack, parent)).state).toBe('SCHEDULED')
    expect(c.endDate).toBeLessThan(parentTime)
    const p = await waitFinished(stack, parent, 10_000)
    expect(count(p, 'SUCCESS')).toBe(2)
    // The parent's end does not wake the finished child.
    expect(await getOperation(stack, child)).toMatchObject({ state: 'FINISHED', total: 0, endDate: c.endDate })
    for (const s of systems) expect(await labelsOf(stack, s)).toEqual([label, 'p'].sort())
  })
})

describe('cancel', () => {
  it('cancels a scheduled operation: PENDING tasks CANCELLED, cancelDate set, FINISHED; it never runs', async () => {
    const label = uniq('cnl')
    const systems = await createSystems(stack, 4, label, [label])
    const scheduledTime = Date.now() + 1500
    const uid = await started(postLabel(stack, { labels: { add: ['no'] }, criteria: { labels: [label] }, scheduledTime }))
    const before = Date.now()
    const res = await cancel(uid)
    expect(res.statusCode).toBe(200)
    const op = res.json() as OperationJson
    expect(op).toMatchObject({ uid, state: 'FINISHED', total: 4, operationType: 'SYSTEM_LABEL' })
    expect(op.cancelDate).toBeGreaterThanOrEqual(before)
    expect(op.endDate).toBeGreaterThanOrEqual(op.cancelDate ?? Infinity)
    expect(countersOf(op)).toEqual({ PENDING: 0, IN_PROGRESS: 0, SUCCESS: 0, FAILURE: 0, BEING_CANCELLED: 0, CANCELLED: 4 })
    expect(await getOperation(stack, uid)).toEqual(op)
    for (const t of await allTasks(stack, uid)) {
      expect(t.state).toBe('CANCELLED')
      expect(t.endDate).toBe(op.cancelDate)
    }
    // Its time passes: it stays as it was and its systems untouched.
    await until('the scheduled time to pass', () => Date.now() > scheduledTime + 1000, 5000)
    expect(await getOperation(stack, uid)).toEqual(op)
    for (const s of systems) expect(await labelsOf(stack, s)).toEqual([label].sort())

    // Cancelling again, or cancelling a finished operation, changes nothing.
    expect((await cancel(uid)).json()).toEqual(op)
    const ran = await started(postLabel(stack, { labels: { add: ['yes'] }, criteria: { labels: [label] } }))
    const finished = await waitFinished(stack, ran)
    const again = await cancel(ran)
    expect(again.statusCode).toBe(200)
    expect(again.json()).toEqual(finished)
    expect(finished.cancelDate).toBeNull()
  })

  it('cancels a waiting dependsOn child, which then never starts', async () => {
    const label = uniq('cdep')
    await createSystems(stack, 2, label, [label])
    const parent = await started(postLabel(stack, { labels: { add: ['p'] }, criteria: { labels: [label] }, scheduledTime: Date.now() + 1000 }))
    const child = await started(postLabel(stack, { labels: { add: ['c'] }, dependsOn: { operation: parent } }))
    const cancelled = (await cancel(child)).json() as OperationJson
    expect(cancelled).toMatchObject({ state: 'FINISHED', total: 0 })
    expect(cancelled.cancelDate).not.toBeNull()
    await waitFinished(stack, parent, 10_000)
    expect(await getOperation(stack, child)).toEqual(cancelled)
  })

  it('another company cannot see or cancel the operation: operation.unknown', async () => {
    const label = uniq('foreign')
    await createSystems(stack, 1, label, [label])
    const uid = await started(postLabel(stack, { labels: { add: ['x'] }, criteria: { labels: [label] }, scheduledTime: Date.now() + 60_000 }))
    expectError(await cancel(uid, other.token), 'operation.unknown')
    expectError(await stack.call(other.token, { method: 'GET', url: `/api/v1/operations/${uid}` }), 'operation.unknown')
    expectError(await stack.call(other.token, { method: 'GET', url: `/api/v1/operations/${uid}/tasks` }), 'operation.unknown')
    expect(await getOperation(stack, uid)).toMatchObject({ state: 'SCHEDULED', cancelDate: null })
    expectError(await cancel('0'.repeat(32)), 'operation.unknown')
    expect((await cancel(uid)).statusCode).toBe(200)
  })
})

// The handler contract of core/operations/handler.ts, on an engine of its own (own queue namespace, tiny chunks and
// slices) over the stack's store, read back through HTTP.
describe('handler contract', () => {
  const BAD = 'bad'
  /** A handler whose effect is a label: runChunk labels the whole chunk, then refuses it when a task is bad. */
  function relabelHandler (calls: { chunks: number, failed: string[] }): OperationHandler {
    const check = async (tx: Repositories, op: Operation, systemUid: string): Promise<void> => {
      const s = await tx.systems.findByUid(op.companyUid, systemUid)
      if (s?.labels.includes(BAD) === true) throw new FleetError('system.invalid.state', [systemUid])
    }
    return {
      async run ({ tx, op, task }) {
        await tx.systems.relabel(op.companyUid, task.systemUid, ['ran'], [])
        await check(tx, op, task.systemUid) // fails after its change: the savepoint must undo it
        return { state: 'SUCCESS' }
      },
      async runChunk ({ tx, op, tasks }) {
        calls.chunks++
        await tx.systems.relabelMany(op.companyUid, tasks.map((t) => t.systemUid), ['ran'], [])
        for (const t of tasks) await check(tx, op, t.systemUid) // a refusal of the chunk: run task by task instead
        return tasks.map(() => ({ state: 'SUCCESS' as const }))
      },
      async failed ({ task }) { calls.failed.push(task.systemUid) }
    }
  }

  interface EngineOptions { queueName?: string, callbacks?: CallbackSender, enqueue?: (name: string, payload: any) => void }
  async function engineWith (handler: OperationHandler, opts: EngineOptions = {}) {
    const local = createLocalQueue<any>(stack.db, { queue: opts.queueName ?? uniq('engine'), pollMs: 20, onError: () => {} })
    // `enqueue` sees every job before it is queued; throwing there plays a process that dies at that point.
    const queue: typeof local = {
      ...local,
      enqueue: async (name, payload, o) => { opts.enqueue?.(name, payload); return await local.enqueue(name, payload, o) }
    }
    const engine = createEngine({
      repos: createRepositories(stack.db),
      inTransaction: async (fn) => await stack.db.transaction(async (tx) => await fn(createRepositories(tx))),
      queue,
      clock: { now: () => Date.now() },
      log: pino({ level: 'silent' }),
      callbacks: opts.callbacks ?? { send: async () => ({ outcome: 'delivered', status: 200 }) },
      mailer: { send: async () => {}, close: async () => {} },
      handlers: { SYSTEM_REBOOT: handler },
      chunkSize: 2,
      sliceMs: 0
    })
    await engine.work(2)
    return { engine, close: async () => { await local.close() } }
  }

  async function launch (engine: Awaited<ReturnType<typeof engineWith>>['engine'], systems: string[], callback: string | null = null): Promise<string> {
    const now = Date.now()
    const dates = { createdAt: now, startDate: now, scheduledTime: null, timeoutDate: now + DAY, endDate: null, cancelDate: null }
    const who = { companyUid: stack.companyUid, userUid: stack.adminUid, userEmail: null, notify: false, callback }
    const op: Operation = { uid: newUid(), type: 'SYSTEM_REBOOT', state: 'IN_PROGRESS', total: 0, target: null, parameters: {}, dependsOn: null, resolved: true, ...dates, ...who }
    return await engine.create(op, systems.map((systemUid) => ({ systemUid, systemName: null })))
  }

  it('runs chunks through runChunk; a chunk it refuses runs task by task, undoing what it did', async () => {
    const label = uniq('chunk')
    const good = await createSystems(stack, 4, label, [label])
    const bad = await createSystems(stack, 1, `${label}-bad`, [label, BAD])
    const calls = { chunks: 0, failed: [] as string[] }
    const { engine, close } = await engineWith(relabelHandler(calls))
    try {
      // Tasks in chunks of 2: [g0 g1] [g2 bad] [g3]; one chunk per run job (sliceMs 0).
      const uid = await launch(engine, [good[0], good[1], good[2], bad[0], good[3]].map((u) => u ?? ''))
      const done = await waitFinished(stack, uid)
      expect(countersOf(done)).toMatchObject({ SUCCESS: 4, FAILURE: 1, PENDING: 0 })
      expect(calls.chunks).toBe(3)
      expect(calls.failed).toEqual(bad)
      const failed = await listTasks(stack, uid, { states: 'FAILURE' })
      expect(failed.items.map((t) => [t.system.uid, t.error?.code])).toEqual([[bad[0], 'system.invalid.state']])
      for (const s of good) expect(await labelsOf(stack, s)).toEqual([label, 'ran'].sort())
      expect(await labelsOf(stack, bad[0] ?? '')).toEqual([label, BAD].sort()) // runChunk's and run()'s changes undone
    } finally { await close() }
  })

  it('a chunk whose store connection is lost is run again in the same job: more losses than a job has attempts, the operation still finishes, each task once', async () => {
    const label = uniq('lost')
    const systems = await createSystems(stack, 3, label, [label])
    let losses = 6 // a job has 5 attempts (core/ports/queue.ts DEFAULT_ATTEMPTS)
    const ran: string[] = []
    const handler: OperationHandler = {
      async run () { throw new Error('run() is not used when runChunk answers') },
      async runChunk ({ tasks }) {
        if (losses-- > 0) throw new StoreUnavailableError(new Error('Connection terminated unexpectedly'))
        ran.push(...tasks.map((t) => t.systemUid))
        return tasks.map(() => ({ state: 'SUCCESS' as const }))
      }
    }
    const { engine, close } = await engineWith(handler)
    try {
      const uid = await launch(engine, systems)
      const done = await waitFinished(stack, uid)
      expect(countersOf(done)).toMatchObject({ SUCCESS: 3, FAILURE: 0, PENDING: 0 })
      expect(ran.sort()).toEqual([...systems].sort())
    } finally { await close() }
  })

  it('a FleetError outcome of runChunk fails that task alone and calls failed()', async () => {
    const label = uniq('outcome')
    const systems = await createSystems(stack, 3, label, [label])
    const calls = { chunks: 0, failed: [] as string[] }
    const handler: OperationHandler = {
      async run () { throw new Error('run() is not used when runChunk answers') },
      async runChunk ({ tasks }) {
        calls.chunks++
        return tasks.map((t) => t.systemUid === systems[1] ? new FleetError('system.unknown', [t.systemUid]) : { state: 'SUCCESS' as const })
      },
      async failed ({ task }) { calls.failed.push(task.systemUid) }
    }
    const { engine, close } = await engineWith(handler)
    try {
      const uid = await launch(engine, systems)
      const done = await waitFinished(stack, uid)
      expect(countersOf(done)).toMatchObject({ SUCCESS: 2, FAILURE: 1 })
      expect(calls).toEqual({ chunks: 2, failed: [systems[1]] })
      expect((await listTasks(stack, uid, { states: 'FAILURE' })).items[0]).toMatchObject({ system: { uid: systems[1] }, error: { code: 'system.unknown' } })
    } finally { await close() }
  })

  it('queues the FINISHED callback at the next start when the process died after FINISHED committed', async () => {
    const systems = await createSystems(stack, 2, uniq('followup'), [])
    const handler: OperationHandler = { async run () { return { state: 'SUCCESS' } } }
    const queueName = uniq('followups')
    const delivered: string[] = []
    const callbacks: CallbackSender = {
      send: async (_url, body) => { delivered.push((JSON.parse(body) as { content: { state: string } }).content.state); return { outcome: 'delivered', status: 200 } }
    }
    // First life: the FINISHED callback is never queued, as if the process died right after the commit.
    const first = await engineWith(handler, {
      queueName,
      callbacks,
      enqueue: (name, payload) => { if (name === 'operation.callback' && payload.event.content.state === 'FINISHED') throw new Error('killed') }
    })
    let uid = ''
    try {
      uid = await launch(first.engine, systems, 'http://receiver.test/cb')
      await waitFinished(stack, uid)
      const pending = async (): Promise<boolean> => (await stack.db.query<{ p: boolean }>('SELECT followups_pending AS p FROM operations WHERE uid = $1', [uid])).rows[0]?.p ?? false
      expect(await pending()).toBe(true)
      expect(delivered).not.toContain('FINISHED')
    } finally { await first.close() }
    // Second life: recovery queues what the first one left.
    const second = await engineWith(handler, { queueName, callbacks })
    try {
      await second.engine.recover()
      await until('the FINISHED callback', () => delivered.includes('FINISHED'))
      const { rows } = await stack.db.query<{ p: boolean }>('SELECT followups_pending AS p FROM operations WHERE uid = $1', [uid])
      expect(rows[0]?.p).toBe(false)
    } finally { await second.close() }
  })
})
