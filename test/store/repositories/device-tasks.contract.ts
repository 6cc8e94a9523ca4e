// DeviceTasksRepository (storage/repositories/device-tasks.repository.ts): JSON record sets, array parameters and
// the order of tasks written in one millisecond must read the same on both engines.
import { expect } from 'vitest'
import { newCompany, newSystem, uniq, defineContract, type Repos } from './store.js'

type Protocol = 'MQTT' | 'REST'

function task (systemUid: string, createdAt: number, protocol: Protocol = 'MQTT', operationTaskUid: string | null = null): Parameters<Repos['deviceTasks']['insert']>[0][number] {
  const uid = uniq('task')
  return { uid, systemUid, operationUid: null, operationTaskUid, protocol, task: { uid, timestamp: createdAt, command: { id: 'reboot', params: { n: 1.5, s: 'é' } } }, createdAt }
}

async function system (repos: Repos): Promise<string> {
  return await newSystem(repos, await newCompany(repos))
}

export const deviceTasksContract = defineContract('DeviceTasksRepository', {
  'takes the PENDING tasks of one protocol oldest first, same-ms ones in written order, then the SENT ones again': async ({ repos }) => {
    const s = await system(repos)
    const tasks = [task(s, 2000), task(s, 1000), task(s, 1000), task(s, 1000, 'REST')]
    await repos.deviceTasks.insert(tasks)
    await repos.deviceTasks.insert([])
    const first = await repos.deviceTasks.take(s, 'MQTT', 5000)
    expect(first).toEqual([tasks[1]?.task, tasks[2]?.task, tasks[0]?.task])
    expect(await repos.deviceTasks.take(s, 'MQTT', 5001)).toEqual([])
    expect((await repos.deviceTasks.take(s, 'MQTT', 5002, { again: true })).map((t) => t.uid)).toEqual(first.map((t) => t.uid))
    expect(await repos.deviceTasks.withPending([s, 'other'], 'REST')).toEqual([s])
    expect(await repos.deviceTasks.withPending([s], 'MQTT')).toEqual([])
    const states = await repos.deviceTasks.states([...tasks.map((t) => t.uid), 'unknown'])
    expect([...states.entries()].sort()).toEqual(tasks.map((t) => [t.uid, t.protocol === 'REST' ? 'PENDING' : 'SENT']).sort())
  },

  'takeMany answers each request in order, merging two requests of one system': async ({ repos }) => {
    const a = await system(repos)
    const b = await system(repos)
    const [a1, a2, b1] = [task(a, 1), task(a, 2), task(b, 1)]
    await repos.deviceTasks.insert([a1!, a2!, b1!])
    await repos.deviceTasks.take(a, 'MQTT', 10) // both of a SENT
    const got = await repos.deviceTasks.takeMany([
      { systemUid: a, protocol: 'MQTT', again: true, received: [a1!.uid] },
      { systemUid: b, protocol: 'MQTT' },
      { systemUid: a, protocol: 'MQTT', received: [a1!.uid, a2!.uid] },
      { systemUid: b, protocol: 'REST' }
    ], 20)
    expect(got.map((l) => l.map((t) => t.uid))).toEqual([[a2!.uid], [b1!.uid], [a2!.uid], []])
    expect(await repos.deviceTasks.takeMany([], 30)).toEqual([])
  },

  'takes stale SENT tasks again, at most `systems` systems': async ({ repos }) => {
    const a = await system(repos)
    const b = await system(repos)
    await repos.deviceTasks.insert([task(a, 1, 'REST'), task(a, 2, 'REST'), task(b, 1, 'REST')])
    await repos.deviceTasks.take(a, 'REST', 100)
    await repos.deviceTasks.take(b, 'REST', 300)
    const stale = await repos.deviceTasks.takeStale('REST', 200, 400, 10)
    expect(stale.map((x) => [x.systemUid, x.tasks.map((t) => t.timestamp)])).toEqual([[a, [1, 2]]])
    expect(await repos.deviceTasks.takeStale('REST', 200, 500, 10)).toEqual([]) // sent_at is now 400
    expect((await repos.deviceTasks.takeStale('REST', 1000, 600, 1)).length).toBe(1)
  },

  'answers open tasks once, the first ack of a task winning, and withdraws only PENDING ones': async ({ repos }) => {
    const a = await system(repos)
    const b = await system(repos)
    const [t1, t2, t3] = [task(a, 1), task(a, 2), task(b, 3)]
    await repos.deviceTasks.insert([t1!, t2!, t3!])
    const out = await repos.deviceTasks.answerMany([
      { systemUid: a, acks: [{ taskUid: t1!.uid, status: 'OK', message: null }, { taskUid: t1!.uid, status: 'ERROR', message: 'x' }] },
      { systemUid: b, acks: [{ taskUid: t2!.uid, status: 'OK', message: null }] }, // not b's task
      { systemUid: a, acks: [{ taskUid: t2!.uid, status: 'ERROR', message: 'failed é' }] }
    ], 50)
    expect(out).toEqual([
      [{ taskUid: t1!.uid, systemUid: a, operationUid: null, operationTaskUid: null, status: 'OK', message: null, at: 50 }],
      [],
      [{ taskUid: t2!.uid, systemUid: a, operationUid: null, operationTaskUid: null, status: 'ERROR', message: 'failed é', at: 50 }]
    ])
    expect(await repos.deviceTasks.answer(a, [{ taskUid: t1!.uid, status: 'ERROR', message: null }], 60)).toEqual([])
    expect(await repos.deviceTasks.answerMany([{ systemUid: a, acks: [] }], 60)).toEqual([[]])
    await repos.deviceTasks.take(b, 'MQTT', 70)
    expect(await repos.deviceTasks.withdraw([t1!.uid, t3!.uid], 80)).toEqual([])
    const [t4] = [task(b, 4)]
    await repos.deviceTasks.insert([t4!])
    expect(await repos.deviceTasks.withdraw([t4!.uid], 80)).toEqual([t4!.uid])
    expect(await repos.deviceTasks.withdraw([], 80)).toEqual([])
    expect((await repos.deviceTasks.states([t1!.uid, t2!.uid, t3!.uid, t4!.uid]))).toEqual(new Map([
      [t1!.uid, 'OK'], [t2!.uid, 'ERROR'], [t3!.uid, 'SENT'], [t4!.uid, 'CANCELLED']]))
  }
})
