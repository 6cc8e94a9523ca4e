// Helpers for the operations tests (docs/operations.md#bulk-operations): create systems, start label / delete
// operations, read an operation and its tasks through HTTP, and wait (by polling with a deadline) until it reaches a
// state.
import { once } from 'node:events'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { LightMyRequestResponse } from 'fastify'
import type { Stack } from './stack.js'
import { eventually } from './eventually.js'

export type Json = Record<string, any>

export interface Counter { state: string, count: number }

export interface OperationJson {
  uid: string
  operationType: string
  state: 'SCHEDULED' | 'IN_PROGRESS' | 'FINISHED'
  createdAt: number
  startDate: number | null
  scheduledTime: number | null
  timeoutDate: number
  endDate: number | null
  cancelDate: number | null
  total: number
  counters: Counter[]
  dependsOn: { operation: string, states: string[] } | null
  [field: string]: unknown
}

export interface TaskJson {
  uid: string
  operation: string
  system: { uid: string, name: string | null }
  state: string
  createdAt: number
  startDate: number | null
  endDate: number | null
  error: { code: string, message: string } | null
}

export interface TaskPage { items: TaskJson[], count: number, size: number, offset: number }

/** The count of one task state in the operation's counters (0 when absent, which the tests also check). */
export function count (op: Pick<OperationJson, 'counters'>, state: string): number {
  return op.counters.find((c) => c.state === state)?.count ?? 0
}

/** GET /api/v1/operations/{uid} as the administrator (or `token`); fails the test on any other answer than 200. */
export async function getOperation (stack: Stack, uid: string, token = stack.adminToken): Promise<OperationJson> {
  const res = await stack.call(token, { method: 'GET', url: `/api/v1/operations/${uid}` })
  if (res.statusCode !== 200) throw new Error(`get operation ${uid}: ${res.statusCode} ${res.body}`)
  return res.json()
}

/** GET /api/v1/operations/{uid}/tasks with optional `states`, `offset` and `size`. */
export async function listTasks (stack: Stack, uid: string, q: { states?: string, offset?: number, size?: number } = {}, token = stack.adminToken): Promise<TaskPage> {
  const qs = new URLSearchParams(Object.entries(q).filter(([, v]) => v !== undefined).map(([k, v]): [string, string] => [k, String(v)]))
  const res = await stack.call(token, { method: 'GET', url: `/api/v1/operations/${uid}/tasks?${qs.toString()}` })
  if (res.statusCode !== 200) throw new Error(`tasks of ${uid}: ${res.statusCode} ${res.body}`)
  return res.json()
}

/** Every task of the operation, page after page. */
export async function allTasks (stack: Stack, uid: string, states?: string): Promise<TaskJson[]> {
  const out: TaskJson[] = []
  for (let offset = 0; ; offset += 500) {
    const page = await listTasks(stack, uid, { states, offset, size: 500 })
    out.push(...page.items)
    if (page.items.length < 500) return out
  }
}

/** Polls the operation until `ok` holds; answers it. Rejects at the deadline with the last state seen. */
export async function waitOperation (stack: Stack, uid: string, ok: (op: OperationJson) => boolean, timeoutMs = 10_000, what = 'the condition'): Promise<OperationJson> {
  let last: OperationJson | undefined
  return await eventually(async () => {
    last = await getOperation(stack, uid)
    return ok(last) ? last : undefined
  }, { timeoutMs, intervalMs: 25, what: `operation ${uid}: ${what}`, seen: () => `last seen ${JSON.stringify(last)}` })
}

/** Polls until the operation is FINISHED; answers it. */
export async function waitFinished (stack: Stack, uid: string, timeoutMs = 10_000): Promise<OperationJson> {
  return await waitOperation(stack, uid, (op) => op.state === 'FINISHED', timeoutMs, 'FINISHED')
}

/** Polls `check` (any async probe) until it answers true: eventually() with the arguments these tests pass. */
export async function until (what: string, check: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  await eventually(check, { timeoutMs, intervalMs: 25, what })
}

/** Creates `n` systems named `${prefix}-1` … through HTTP, carrying `labels`; answers their uids in order. */
export async function createSystems (stack: Stack, n: number, prefix: string, labels: string[] = [], token = stack.adminToken): Promise<string[]> {
  const uids: string[] = []
  for (let i = 1; i <= n; i++) {
    const res = await stack.call(token, { method: 'POST', url: '/api/v1/systems', payload: { name: `${prefix}-${i}`, labels } })
    if (res.statusCode !== 200) throw new Error(`create system: ${res.statusCode} ${res.body}`)
    uids.push((res.json() as { uid: string }).uid)
  }
  return uids
}

/** POST /api/v1/operations/systems/label. */
export async function postLabel (stack: Stack, body: Json, token = stack.adminToken): Promise<LightMyRequestResponse> {
  return await stack.call(token, { method: 'POST', url: '/api/v1/operations/systems/label', payload: body })
}

/** POST /api/v1/operations/systems/delete. */
export async function postDelete (stack: Stack, body: Json, token = stack.adminToken): Promise<LightMyRequestResponse> {
  return await stack.call(token, { method: 'POST', url: '/api/v1/operations/systems/delete', payload: body })
}

/** Starts an operation through `post` and answers its uid; fails the test when it is refused. */
export async function started (res: LightMyRequestResponse | Promise<LightMyRequestResponse>): Promise<string> {
  const r = await res
  if (r.statusCode !== 200) throw new Error(`operation refused: ${r.statusCode} ${r.body}`)
  return (r.json() as { operation: string }).operation
}

/** The labels of a system, straight from the store, sorted as JavaScript sorts. */
export async function labelsOf (stack: Stack, systemUid: string): Promise<string[]> {
  const { rows } = await stack.db.query<{ labels: string[] }>('SELECT labels FROM systems WHERE uid = $1', [systemUid])
  return [...rows[0]?.labels ?? []].sort()
}

/** Operations of every company, counted straight in the store: a refused request must create none. */
export async function countOperations (stack: Stack): Promise<number> {
  const { rows } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM operations')
  return rows[0]?.n ?? 0
}

/** POST /api/v1/operations/systems/{uid}/export/data/historical. */
export async function postExport (stack: Stack, systemUid: string, body: Json, token = stack.adminToken, company?: string): Promise<LightMyRequestResponse> {
  const url = `/api/v1/operations/systems/${systemUid}/export/data/historical${company === undefined ? '' : `?company=${company}`}`
  return await stack.call(token, { method: 'POST', url, payload: body })
}

/** Every task of the operation (GET /api/v1/operations/{uid}/tasks, all pages). */
export async function tasks (stack: Stack, uid: string): Promise<TaskJson[]> {
  return await allTasks(stack, uid)
}

/**
 * Keeps the operation workers busy, so that operations created meanwhile stay pending (a deterministic "while the
 * operation is pending"). Needs a stack started with WORKER_CONCURRENCY=1 and CALLBACK_ALLOW_PRIVATE=true: a label
 * operation on `systemUid` calls back a receiver on 127.0.0.1:0 that does not answer, which holds the only worker.
 * release() answers the held callbacks (and every later one) and frees the worker; close() stops the receiver.
 */
export async function holdWorker (stack: Stack, systemUid: string): Promise<{ release: () => void, close: () => Promise<void> }> {
  const held: ServerResponse[] = []
  let released = false
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => { if (released) res.end(); else held.push(res) })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  await started(postLabel(stack, { labels: { add: ['held'] }, criteria: { uids: [systemUid] }, callback: `http://127.0.0.1:${port}/hold` }))
  await until('the worker to deliver the held callback', () => held.length > 0)
  return {
    release () {
      released = true
      for (const res of held.splice(0)) res.end()
    },
    async close () {
      released = true
      for (const res of held.splice(0)) res.end()
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    }
  }
}
