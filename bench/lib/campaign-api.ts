// What the campaign benchmark asks of the service over HTTP, as an API client would: a token, an operation posted and
// followed to FINISHED, every task of it (pages of 500, docs/api.md), and the bytes its downloads served
// (fleet_package_download_bytes_total on /metrics, docs/monitoring.md).
import { setTimeout as sleep } from 'node:timers/promises'

export interface Api { origin: string, headers: Record<string, string> }

export interface Operation {
  uid: string
  state: string
  total: number
  counters: Array<{ state: string, count: number }>
  abortReason: string | null
  rollout: { wave: number | null, sent: number } | null
}

export interface Task { state: string, startDate: number | null, endDate: number | null }

const POLL_MS = 200

export async function login (origin: string, admin: { email: string, password: string, client: string, secret: string }): Promise<Api> {
  const qs = new URLSearchParams({ grant_type: 'password', username: admin.email, password: admin.password, client_id: admin.client, client_secret: admin.secret })
  const res = await fetch(`${origin}/api/oauth/token?${qs.toString()}`)
  if (!res.ok) throw new Error(`token: ${res.status} ${await res.text()}`)
  const token = ((await res.json()) as { access_token: string }).access_token
  return { origin, headers: { authorization: `Bearer ${token}` } }
}

export const count = (op: Operation, state: string): number => op.counters.find((c) => c.state === state)?.count ?? 0

/** POSTs a device operation of /api/v1/operations/systems/<path>; answers its uid. */
export async function postOperation (api: Api, path: string, body: unknown): Promise<string> {
  const res = await fetch(`${api.origin}/api/v1/operations/systems/${path}`, { method: 'POST', headers: { ...api.headers, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`)
  return (await res.json() as { operation: string }).operation
}

/** GET /operations/{uid}; asked again while the service sheds it (503 under a busy event loop, docs/monitoring.md). */
export async function getOperation (api: Api, uid: string): Promise<Operation> {
  let res: Response
  for (;;) {
    res = await fetch(`${api.origin}/api/v1/operations/${uid}`, { headers: api.headers })
    if (res.status !== 503) break
    await res.text()
    await sleep(POLL_MS)
  }
  if (res.status !== 200) throw new Error(`GET operation: ${res.status} ${await res.text()}`)
  return await res.json() as Operation
}

/**
 * Polls the operation until FINISHED or `maxSeconds`; `onPoll` sees each answer (progress lines, RSS samples).
 * Answers the last one seen.
 */
export async function followOperation (api: Api, uid: string, maxSeconds = 600, onPoll?: (op: Operation, elapsedS: number) => Promise<void>): Promise<Operation> {
  const t0 = performance.now()
  for (;;) {
    const op = await getOperation(api, uid)
    const elapsed = (performance.now() - t0) / 1000
    await onPoll?.(op, elapsed)
    if (op.state === 'FINISHED' || elapsed > maxSeconds) return op
    await sleep(POLL_MS)
  }
}

/** Every task of the operation. */
export async function allTasks (api: Api, uid: string): Promise<Task[]> {
  const out: Task[] = []
  for (let offset = 0; ; offset += 500) {
    const res = await fetch(`${api.origin}/api/v1/operations/${uid}/tasks?offset=${offset}&size=500`, { headers: api.headers })
    if (res.status !== 200) throw new Error(`GET tasks: ${res.status} ${await res.text()}`)
    const page = await res.json() as { items: Task[], count: number }
    out.push(...page.items)
    if (page.items.length === 0 || out.length >= page.count) return out
  }
}

/** The bytes the service's download links have sent so far. */
export async function bytesServed (origin: string): Promise<number> {
  const text = await (await fetch(`${origin}/metrics`)).text()
  const v = /^fleet_package_download_bytes_total(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1]
  return v === undefined ? 0 : Number(v)
}

/** Samples `read` every `everyMs` until stopped; answers the largest value seen. */
export function sampleMax (read: () => Promise<number>, everyMs = 250): { stop: () => Promise<number> } {
  let max = 0
  const state = { running: true }
  const loop = (async () => {
    while (state.running) {
      max = Math.max(max, await read().catch(() => 0))
      await sleep(everyMs)
    }
  })()
  return {
    async stop () {
      if (!state.running) return max
      state.running = false
      await loop
      max = Math.max(max, await read().catch(() => 0))
      return max
    }
  }
}
