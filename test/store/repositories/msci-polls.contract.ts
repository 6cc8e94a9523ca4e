// The MSCI module's repository (ingest/msci/msci-polls.repository.ts, made by the module's createStore): poll rows kept
// in step with communication.msci.host, claims under a lease with SKIP LOCKED, outcomes written under the claim's
// token with the failures counted into commStatus, read the same on both engines. The cases share one store, so each
// claims with a `now` of its own and looks only at its own systems.
import { expect } from 'vitest'
import { msciModule } from '../../../ingest/msci/index.js'
import type { MsciPollsRepository } from '../../../ingest/msci/msci-polls.port.js'
import { newCompany, newSystem, uniq, defineContract, type Store } from './store.js'

const storeOf = ({ db }: Store): MsciPollsRepository => {
  if (msciModule.createStore === undefined) throw new Error('the MSCI module has no store')
  return msciModule.createStore(db)
}

const msci = (host: string) => ({ communication: { msci: { host, user: 'u', password: 'p' } } })

async function rows ({ db }: Store, uids: readonly string[]): Promise<Array<{ system_uid: string, next_poll_at: number, failures: number, locked_by: string | null }>> {
  const { rows } = await db.query<{ system_uid: string, next_poll_at: string | number, failures: number, locked_by: string | null }>(
    'SELECT system_uid, next_poll_at, failures, locked_by FROM msci_polls WHERE system_uid = ANY($1::text[]) ORDER BY system_uid', [[...uids]])
  return rows.map((r) => ({ ...r, next_poll_at: Number(r.next_poll_at) }))
}

const stateOf = async ({ db }: Store, uid: string): Promise<{ comm: string, failedAt: unknown }> => {
  const r = (await db.query<{ comm_status: string, data: Record<string, unknown> }>('SELECT comm_status, data FROM system_state WHERE system_uid = $1', [uid])).rows[0]
  return { comm: r?.comm_status ?? '', failedAt: r?.data.lastCommFailureDate }
}

export const msciPollsContract = defineContract('MsciPollsRepository', {
  'sync: a row due now for each system with a host, none for an empty host; a cleared host takes the row out': async (store) => {
    const polls = storeOf(store)
    await polls.sync(1) // rows of the systems before this case
    const co = await newCompany(store.repos)
    const [a, b] = [await newSystem(store.repos, co, msci('10.0.0.1')), await newSystem(store.repos, co, msci('10.0.0.2:9191'))]
    const none = await newSystem(store.repos, co, msci(''))
    expect(await polls.sync(1000)).toEqual({ added: 2, removed: 0 })
    expect(await polls.sync(2000)).toEqual({ added: 0, removed: 0 })
    expect(new Map((await rows(store, [a, b, none])).map((r) => [r.system_uid, r.next_poll_at]))).toEqual(new Map([[a, 1000], [b, 1000]]))
    await store.db.query('UPDATE systems SET communication = \'{"msci": {"host": ""}}\'::jsonb WHERE uid = $1', [a])
    expect(await polls.sync(3000)).toEqual({ added: 0, removed: 1 })
    expect((await rows(store, [a, b])).map((r) => r.system_uid)).toEqual([b])
  },

  'claim: due ones oldest first up to the limit, each once until its lease passes; with the system and its tasks': async (store) => {
    const polls = storeOf(store)
    const now = 1_000_000_000
    const co = await newCompany(store.repos)
    const uids = [await newSystem(store.repos, co, msci('10.0.1.1')), await newSystem(store.repos, co, msci('10.0.1.2')), await newSystem(store.repos, co, msci('10.0.1.3'))]
    await polls.sync(now)
    // Only these are due at `now` (earlier cases' rows are due before it, moved far ahead).
    await store.db.query('UPDATE msci_polls SET next_poll_at = 9000000000000 WHERE NOT (system_uid = ANY($1::text[]))', [uids])
    await store.db.query('UPDATE msci_polls SET next_poll_at = $2 WHERE system_uid = $1', [uids[0], now - 10])
    await store.db.query('UPDATE msci_polls SET next_poll_at = $2, last_success_at = 5 WHERE system_uid = $1', [uids[1], now - 20])
    const uid = uniq('task')
    await store.repos.deviceTasks.insert([{ uid, systemUid: uids[2] as string, operationUid: null, operationTaskUid: null, protocol: 'MSCI', task: { uid, timestamp: 1, command: { id: 'reboot', params: {} } }, createdAt: 1 }])
    const first = await polls.claim(now, 2, now + 60_000, 'token-a')
    expect(first).toEqual([
      { systemUid: uids[1], companyUid: co, msci: { host: '10.0.1.2', user: 'u', password: 'p' }, dueAt: now - 20, failures: 0, polledBefore: true, hasTasks: false },
      { systemUid: uids[0], companyUid: co, msci: { host: '10.0.1.1', user: 'u', password: 'p' }, dueAt: now - 10, failures: 0, polledBefore: false, hasTasks: false }
    ])
    const second = await polls.claim(now, 10, now + 60_000, 'token-b')
    expect(second.map((c) => [c.systemUid, c.hasTasks])).toEqual([[uids[2], true]])
    expect(await polls.claim(now + 59_999, 10, now + 120_000, 'token-c')).toEqual([])
    expect((await polls.claim(now + 60_000, 10, now + 120_000, 'token-c')).map((c) => c.systemUid).sort()).toEqual([...uids].sort())
    await polls.release(['token-c'])
    await polls.release([])
    expect((await rows(store, uids)).map((r) => r.locked_by)).toEqual([null, null, null])
    // Out of the later cases' way: no task waits for them, no row is theirs.
    await store.db.query('DELETE FROM device_tasks WHERE system_uid = ANY($1::text[])', [uids])
    await store.db.query('DELETE FROM msci_polls WHERE system_uid = ANY($1::text[])', [uids])
  },

  'finish: only under the claim\'s token; failures count (WARNING, ERROR from errorAfter, kept), a success resets': async (store) => {
    const polls = storeOf(store)
    const now = 2_000_000_000
    const s = await newSystem(store.repos, await newCompany(store.repos), msci('10.0.2.1'))
    await polls.sync(now)
    await store.db.query('UPDATE msci_polls SET next_poll_at = 9000000000000 WHERE system_uid <> $1', [s])
    await store.db.query('UPDATE msci_polls SET next_poll_at = $2 WHERE system_uid = $1', [s, now])
    const round = async (ok: boolean, at: number, token = 'tok'): Promise<void> => {
      expect((await polls.claim(at, 10, at + 1, 'tok')).map((c) => c.systemUid)).toEqual([s])
      await polls.finish([{ systemUid: s, token, ok, at, nextPollAt: at + 1 }], 3)
      if (token !== 'tok') await polls.release(['tok'])
    }
    await polls.finish([], 3)
    await round(false, now, 'not-the-claim')
    expect((await rows(store, [s]))[0]).toMatchObject({ failures: 0, next_poll_at: now })
    await round(false, now + 1)
    expect((await rows(store, [s]))[0]).toMatchObject({ failures: 1, next_poll_at: now + 2, locked_by: null })
    expect(await stateOf(store, s)).toEqual({ comm: 'WARNING', failedAt: now + 1 })
    await round(false, now + 2)
    await round(false, now + 3)
    expect(await stateOf(store, s)).toEqual({ comm: 'ERROR', failedAt: now + 3 })
    await round(true, now + 4)
    expect((await rows(store, [s]))[0]).toMatchObject({ failures: 0, next_poll_at: now + 5 })
    await round(false, now + 5)
    expect(await stateOf(store, s)).toEqual({ comm: 'ERROR', failedAt: now + 5 })
    await store.db.query('DELETE FROM msci_polls WHERE system_uid = $1', [s])
  },

  'hurry: systems with PENDING MSCI tasks and no failure in a row become due now; answers how many': async (store) => {
    const polls = storeOf(store)
    const now = 3_000_000_000
    const co = await newCompany(store.repos)
    const [waiting, failing, idle] = [await newSystem(store.repos, co, msci('10.0.3.1')), await newSystem(store.repos, co, msci('10.0.3.2')), await newSystem(store.repos, co, msci('10.0.3.3'))]
    await polls.sync(now)
    await store.db.query('UPDATE msci_polls SET next_poll_at = 9000000000000')
    await store.db.query('UPDATE msci_polls SET failures = 1 WHERE system_uid = $1', [failing])
    for (const systemUid of [waiting, failing]) {
      const uid = uniq('task')
      await store.repos.deviceTasks.insert([{ uid, systemUid, operationUid: null, operationTaskUid: null, protocol: 'MSCI', task: { uid, timestamp: 1, command: { id: 'reboot', params: {} } }, createdAt: 1 }])
    }
    expect(await polls.hurry(now)).toBe(1)
    const due = new Map((await rows(store, [waiting, failing, idle])).map((r) => [r.system_uid, r.next_poll_at]))
    expect(due).toEqual(new Map([[waiting, now], [failing, 9_000_000_000_000], [idle, 9_000_000_000_000]]))
    expect(await polls.hurry(now)).toBe(0)
  }
})
