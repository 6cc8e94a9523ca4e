// OperationsRepository (storage/repositories/operations*): lists newest first with filters and totals, tasks in seq
// order across appends, claims in seq order, results and counts per state, state transitions, files as bytes.
import { expect } from 'vitest'
import { createRepositories } from '../../../storage/repositories/index.js'
import { defineContract, newCompany, newSystem, uniq, type Repos } from './store.js'

export type Op = Parameters<Repos['operations']['insert']>[0]

/** An operation of the company, SCHEDULED, with `patch` over it. */
export function operation (companyUid: string, patch: Partial<Op> = {}): Op {
  return {
    uid: uniq('op'),
    companyUid,
    type: 'SYSTEM_LABEL',
    state: 'SCHEDULED',
    createdAt: 1_767_225_600_000,
    startDate: null,
    scheduledTime: null,
    timeoutDate: 1_767_312_000_000,
    endDate: null,
    cancelDate: null,
    total: 0,
    target: null,
    userUid: null,
    userEmail: 'Ops@Example.com',
    notify: false,
    callback: null,
    parameters: { labels: ['a', 'é"'], n: 1.5 },
    dependsOn: null,
    resolved: true,
    ...patch
  } as Op
}

export const operationsContract = defineContract('OperationsRepository', {
  'inserts and reads an operation; lists newest first with filters, the user ignoring case, and totals': async ({ repos }) => {
    const co = await newCompany(repos)
    const s = await newSystem(repos, co)
    const old = operation(co, { createdAt: 1000 })
    const mid = operation(co, { createdAt: 2000, type: 'SYSTEM_REBOOT' as Op['type'], userEmail: null })
    const young = operation(co, { createdAt: 3000 })
    for (const op of [old, mid, young]) await repos.operations.insert(op)
    await repos.operations.insertTasks(old.uid, [{ systemUid: s, systemName: 'S' }], 1000)
    const found = await repos.operations.find(old.uid)
    expect(found).toMatchObject({ uid: old.uid, companyUid: co, parameters: old.parameters, total: 1, createdAt: 1000, startDate: null, dependsOn: null })
    expect(await repos.operations.findInCompany(await newCompany(repos), old.uid)).toBeUndefined()
    const list = async (f: Parameters<Repos['operations']['list']>[1], size = 10): Promise<[number, string[]]> => {
      const r = await repos.operations.list(co, f, { offset: 0, size })
      return [r.count, r.items.map((o) => o.uid)]
    }
    expect(await list({}, 2)).toEqual([3, [young.uid, mid.uid]])
    expect(await list({ user: 'ops@example.COM' })).toEqual([2, [young.uid, old.uid]])
    expect(await list({ operationTypes: ['SYSTEM_LABEL'], createdAfter: 1000, createdBefore: 2999 })).toEqual([1, [old.uid]])
    expect(await list({ target: s })).toEqual([1, [old.uid]])
    expect(await list({ uid: [mid.uid, 'none'], states: ['SCHEDULED'] })).toEqual([1, [mid.uid]])
    expect(await list({ uid: [] })).toEqual([0, []])
  },

  'appends tasks with seq continuing, pages them by state, claims PENDING ones in seq order, counts by state': async ({ repos, db }) => {
    const co = await newCompany(repos)
    const systems = [await newSystem(repos, co), await newSystem(repos, co), await newSystem(repos, co)]
    const op = operation(co)
    await repos.operations.insert(op)
    await repos.operations.insertTasks(op.uid, [{ systemUid: systems[0]!, systemName: 'A', params: { x: [1] }, line: 2 }, { systemUid: systems[1]!, systemName: null }], 10)
    await repos.operations.insertTasks(op.uid, [{ systemUid: systems[2]!, systemName: 'C' }], 20)
    expect((await repos.operations.find(op.uid))?.total).toBe(3)
    const all = await repos.operations.tasks(op.uid, undefined, { offset: 0, size: 10 })
    expect(all.count).toBe(3)
    expect(all.items.map((t) => [t.systemUid, t.seq, t.systemName, t.line, t.params, t.state])).toEqual([
      [systems[0], 1, 'A', 2, { x: [1] }, 'PENDING'], [systems[1], 2, null, null, null, 'PENDING'], [systems[2], 3, 'C', null, null, 'PENDING']])
    const claimed = await db.transaction(async (tx) => await createRepositories(tx).operations.claimPending(op.uid, 2))
    expect(claimed.map((t) => t.seq)).toEqual([1, 2])
    const [t1, t2, t3] = all.items
    await repos.operations.setTaskResults([
      { uid: t1!.uid, state: 'SUCCESS' }, { uid: t2!.uid, state: 'FAILURE', errorCode: 'x.y', errorMessage: 'é"', params: { why: null } }], 500)
    expect(await repos.operations.counts([op.uid, 'none'])).toEqual(new Map([[op.uid, { SUCCESS: 1, FAILURE: 1, PENDING: 1 }]]))
    const failed = await repos.operations.tasks(op.uid, ['FAILURE'], { offset: 0, size: 10 })
    expect(failed.items.map((t) => [t.uid, t.errorCode, t.errorMessage, t.params, t.endDate])).toEqual([[t2!.uid, 'x.y', 'é"', { why: null }, 500]])
    expect(await repos.operations.hasOpenTasks(op.uid)).toBe(true)
    await repos.operations.setTaskResults([{ uid: t3!.uid, state: 'SUCCESS' }], 600)
    expect(await repos.operations.hasOpenTasks(op.uid)).toBe(false)
    // A result stamps the start of a task not started yet.
    expect(await repos.operations.startedSince(op.uid, 0)).toEqual({ count: 3, oldest: 500 })
    expect(await repos.operations.startedSince(op.uid, 500)).toEqual({ count: 1, oldest: 600 })
    expect(await repos.operations.startedSince(op.uid, 600)).toEqual({ count: 0, oldest: null })
  },

  'moves state only from the given states; stores a produced file as bytes and datasets as text[]': async ({ repos }) => {
    const co = await newCompany(repos)
    const op = operation(co)
    await repos.operations.insert(op)
    expect(await repos.operations.transition(op.uid, ['IN_PROGRESS'], 'FINISHED', { endDate: 5 })).toBe(false)
    expect(await repos.operations.transition(op.uid, ['SCHEDULED'], 'IN_PROGRESS', { startDate: 4 })).toBe(true)
    expect(await repos.operations.find(op.uid)).toMatchObject({ state: 'IN_PROGRESS', startDate: 4, endDate: null })
    expect((await repos.operations.unfinished()).map((o) => o.uid)).toContain(op.uid)
    const data = Buffer.from('a;b\r\n"é";\u0000', 'utf8')
    await repos.operations.putFile(op.uid, { name: 'out.csv', contentType: 'text/csv', data })
    const file = await repos.operations.file(op.uid)
    expect(file?.name).toBe('out.csv')
    expect(Buffer.isBuffer(file?.data) && file.data.equals(data)).toBe(true)
    expect(await repos.operations.file('none')).toBeUndefined()
    const set = { uid: uniq('ds'), companyUid: co, name: 'Set 1', data: ['x,y', '', 'é'] }
    await repos.operations.putDataset(set)
    expect(await repos.operations.dataset(co, set.uid)).toEqual({ uid: set.uid, name: 'Set 1', data: ['x,y', '', 'é'] })
    expect(await repos.operations.datasetByName(co, 'Set 1')).toEqual({ uid: set.uid, name: 'Set 1', data: ['x,y', '', 'é'] })
  }
})
