// OperationsRepository, the end of tasks (storage/repositories/operations/task-writes.ts, task-reads.ts): a cancel
// that withdraws undelivered device tasks in the same statement, the time-out sweep, and the reads that chain
// operations (dependsOn parents, open tasks of systems, children).
import { expect } from 'vitest'
import { defineContract, newCompany, newSystem, uniq, type Repos } from './store.js'
import { operation } from './operations.contract.js'

/** An operation with one task per system, its tasks' uids in seq order. */
async function withTasks (repos: Repos, co: string, n: number, patch: Parameters<typeof operation>[1] = {}): Promise<{ uid: string, tasks: string[], systems: string[] }> {
  const op = operation(co, patch)
  await repos.operations.insert(op)
  const systems: string[] = []
  for (let i = 0; i < n; i++) systems.push(await newSystem(repos, co))
  await repos.operations.insertTasks(op.uid, systems.map((systemUid, i) => ({ systemUid, systemName: `S${i}` })), 1)
  const tasks = (await repos.operations.tasks(op.uid, undefined, { offset: 0, size: n })).items.map((t) => t.uid)
  return { uid: op.uid, tasks, systems }
}

export const operationsLifecycleContract = defineContract('OperationsRepository lifecycle', {
  'cancels: PENDING and undelivered tasks CANCELLED at once, delivered ones BEING_CANCELLED': async ({ repos }) => {
    const co = await newCompany(repos)
    const op = await withTasks(repos, co, 3)
    const [pending, undelivered, delivered] = op.tasks
    await repos.operations.setTaskResults([{ uid: undelivered!, state: 'IN_PROGRESS' }, { uid: delivered!, state: 'IN_PROGRESS' }], 10)
    const device = (taskUid: string, systemUid: string): Parameters<Repos['deviceTasks']['insert']>[0][number] => {
      const uid = uniq('dt')
      return { uid, systemUid, operationUid: op.uid, operationTaskUid: taskUid, protocol: 'MQTT', task: { uid, timestamp: 1, read: ['x'] }, createdAt: 10 }
    }
    const [d1, d2] = [device(undelivered!, op.systems[1]!), device(delivered!, op.systems[2]!)]
    await repos.deviceTasks.insert([d1, d2])
    await repos.deviceTasks.take(op.systems[2]!, 'MQTT', 11)
    await repos.operations.cancelTasks(op.uid, 20)
    const states = (await repos.operations.tasks(op.uid, undefined, { offset: 0, size: 5 })).items.map((t) => [t.uid, t.state, t.endDate])
    expect(states).toEqual([[pending, 'CANCELLED', 20], [undelivered, 'CANCELLED', 20], [delivered, 'BEING_CANCELLED', null]])
    expect(await repos.deviceTasks.states([d1.uid, d2.uid])).toEqual(new Map([[d1.uid, 'CANCELLED'], [d2.uid, 'SENT']]))
    expect((await repos.operations.openTasksOf(op.systems, ['SYSTEM_LABEL'])).map((t) => t.uid)).toEqual([delivered])
    expect(await repos.operations.openTasksOf(op.systems, ['SYSTEM_REBOOT'])).toEqual([])
    expect(await repos.operations.openTasksOf([], ['SYSTEM_LABEL'])).toEqual([])
  },

  'times out the open tasks of operations past their timeout date, withdrawing their device tasks': async ({ repos }) => {
    const co = await newCompany(repos)
    const late = await withTasks(repos, co, 2, { timeoutDate: 1000 })
    const onTime = await withTasks(repos, co, 1, { timeoutDate: 5000 })
    const empty = operation(co, { timeoutDate: 1000 })
    await repos.operations.insert(empty)
    await repos.operations.setTaskResults([{ uid: late.tasks[0]!, state: 'SUCCESS' }], 500)
    const uid = uniq('dt')
    await repos.deviceTasks.insert([{ uid, systemUid: late.systems[1]!, operationUid: late.uid, operationTaskUid: late.tasks[1]!, protocol: 'REST', task: { uid, timestamp: 1, read: ['x'] }, createdAt: 1 }])
    const touched = await repos.operations.timeOut(1000)
    expect(touched.filter((u) => [late.uid, onTime.uid, empty.uid].includes(u)).sort()).toEqual([late.uid, empty.uid].sort())
    const tasks = (await repos.operations.tasks(late.uid, undefined, { offset: 0, size: 5 })).items
    expect(tasks.map((t) => [t.state, t.errorCode, t.endDate])).toEqual([['SUCCESS', null, 500], ['FAILURE', 'operation.timeout', 1000]])
    expect(await repos.deviceTasks.states([uid])).toEqual(new Map([[uid, 'CANCELLED']]))
    expect((await repos.operations.tasks(onTime.uid, ['PENDING'], { offset: 0, size: 5 })).count).toBe(1)
  },

  'chains operations: the parent\'s systems in seq order by final state, its children, follow-ups until cleared': async ({ repos }) => {
    const co = await newCompany(repos)
    const parent = await withTasks(repos, co, 3)
    await repos.operations.setTaskResults([{ uid: parent.tasks[0]!, state: 'FAILURE' }, { uid: parent.tasks[2]!, state: 'FAILURE' }, { uid: parent.tasks[1]!, state: 'SUCCESS' }], 5)
    expect(await repos.operations.parentSystems({ operation: parent.uid, states: ['FAILURE'] })).toEqual([
      { systemUid: parent.systems[0], systemName: 'S0' }, { systemUid: parent.systems[2], systemName: 'S2' }])
    expect((await repos.operations.parentSystems({ operation: parent.uid, states: [] })).length).toBe(3)
    const child = operation(co, { dependsOn: { operation: parent.uid, states: ['FAILURE'] }, resolved: false })
    await repos.operations.insert(child)
    expect(await repos.operations.children(parent.uid)).toEqual([child.uid])
    expect(await repos.operations.find(child.uid)).toMatchObject({ dependsOn: { operation: parent.uid, states: ['FAILURE'] }, resolved: false })
    await repos.operations.setResolved(child.uid)
    expect((await repos.operations.find(child.uid))?.resolved).toBe(true)
    expect(await repos.operations.transition(parent.uid, ['SCHEDULED'], 'FINISHED', { endDate: 9, followupsPending: true })).toBe(true)
    expect((await repos.operations.pendingFollowups()).map((o) => o.uid)).toContain(parent.uid)
    await repos.operations.clearFollowups(parent.uid)
    expect((await repos.operations.pendingFollowups()).map((o) => o.uid)).not.toContain(parent.uid)
  },

  'records callback tries (the latest outcome kept), a rollout abort once, and the answers the engine may not have heard': async ({ repos }) => {
    const co = await newCompany(repos)
    const op = await withTasks(repos, co, 2)
    await repos.operations.recordCallback(op.uid, { at: 200, status: 500, error: 'http 500', delivered: false })
    await repos.operations.recordCallback(op.uid, { at: 100, status: 200, error: null, delivered: true }) // ended late
    expect((await repos.operations.find(op.uid))?.callbackDelivery).toEqual({ attempts: 2, lastStatus: 500, lastError: 'http 500', lastAttemptAt: 200, delivered: false })
    const abortedBy = { reason: 'failure.threshold' as const, failurePercent: 12.5, minTasks: 2, ended: 2, failed: 1 }
    expect(await repos.operations.setAborted(op.uid, abortedBy, 300)).toBe(true)
    expect(await repos.operations.setAborted(op.uid, { ...abortedBy, failed: 2 }, 400)).toBe(false)
    expect(await repos.operations.find(op.uid)).toMatchObject({ abortedBy, cancelDate: 300 })
    // The latest device task of each open operation task that has an answer: the process stopped before the engine heard it.
    await repos.operations.setTaskResults(op.tasks.map((uid) => ({ uid, state: 'IN_PROGRESS' as const })), 10)
    const dt = (n: number, at: number): Parameters<Repos['deviceTasks']['insert']>[0][number] => {
      const uid = uniq('dt')
      return { uid, systemUid: op.systems[n]!, operationUid: op.uid, operationTaskUid: op.tasks[n]!, protocol: 'MQTT', task: { uid, timestamp: at, read: ['x'] }, createdAt: at }
    }
    const [older, newer, other] = [dt(0, 1), dt(0, 2), dt(1, 1)]
    await repos.deviceTasks.insert([older, newer, other])
    await repos.deviceTasks.answer(op.systems[0]!, [{ taskUid: older.uid, status: 'OK', message: null }, { taskUid: newer.uid, status: 'ERROR', message: 'no' }], 50)
    const mine = (await repos.deviceTasks.unheard()).filter((a) => a.operationUid === op.uid)
    expect(mine).toEqual([{ taskUid: newer.uid, systemUid: op.systems[0], operationUid: op.uid, operationTaskUid: op.tasks[0], status: 'ERROR', message: 'no', at: 50 }])
    expect((await repos.deviceTasks.unheard(50)).filter((a) => a.operationUid === op.uid)).toEqual([])
    const locked = await repos.operations.lockTasks([op.tasks[1]!, op.tasks[0]!, 'none'])
    expect([...locked.keys()].sort()).toEqual([...op.tasks].sort())
  }
})
