// A small HTTP load loop: N concurrent keep-alive connections issue GET requests for a fixed time, cycling
// through the paths of every request kind in turn, and record each latency (ms) per kind.
import { Agent, request } from 'node:http'
import { Worker } from 'node:worker_threads'

export interface LoadKind { name: string, paths: string[] }

export interface LoadOptions {
  origin: string
  headers: Record<string, string>
  kinds: LoadKind[]
  concurrency: number
  durationMs: number
  /** A request not answered within this many ms is given up and counted in `timeouts` (default: no limit). */
  timeoutMs?: number
  /** Requests before this many ms are not recorded (connections open meanwhile); durationMs counts after it. */
  warmupMs?: number
  /** A connection answered 503 with Retry-After waits that long before its next request, as a client should. */
  honourRetryAfter?: boolean
}

export interface KindResult {
  name: string
  /** ms of every answered request, whatever its status. */
  latencies: number[]
  /** The HTTP status of each of `latencies`, at the same index. */
  latencyStatuses: number[]
  /** Requests not answered with 200 (other statuses, timeouts, connection errors). */
  errors: number
  firstError: string | undefined
  /** Answered requests by HTTP status. */
  statuses: Record<string, number>
  /** Requests given up after timeoutMs. */
  timeouts: number
  /** Requests of the warm-up (not in the figures above) and the longest of them, ms. */
  warmup: { requests: number, maxMs: number }
}
export interface LoadResult { seconds: number, kinds: KindResult[] }

class Timeout extends Error {}

function get (agent: Agent, url: URL, headers: Record<string, string>, timeoutMs: number | undefined): Promise<{ status: number, body: string, retryAfterS: number }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), retryAfterS: Number(res.headers['retry-after'] ?? 0) }) })
      res.on('error', reject)
    })
    req.on('error', reject)
    if (timeoutMs !== undefined) req.setTimeout(timeoutMs, () => { req.destroy(new Timeout(`no answer in ${timeoutMs} ms`)) })
    req.end()
  })
}

/** Runs the load in this thread. */
export async function runLoad (opts: LoadOptions): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: opts.concurrency })
  const results: KindResult[] = opts.kinds.map((k) => ({ name: k.name, latencies: [], latencyStatuses: [], errors: 0, firstError: undefined, statuses: {}, timeouts: 0, warmup: { requests: 0, maxMs: 0 } }))
  const started = performance.now() + (opts.warmupMs ?? 0)
  const deadline = started + opts.durationMs
  let next = 0
  async function connection (): Promise<void> {
    while (performance.now() < deadline) {
      const i = next++
      const k = i % opts.kinds.length
      const kind = opts.kinds[k]
      const result = results[k]
      if (kind === undefined || result === undefined || kind.paths.length === 0) continue
      const path = kind.paths[Math.floor(i / opts.kinds.length) % kind.paths.length] ?? '/'
      const t = performance.now()
      if (t < started) {
        await get(agent, new URL(path, opts.origin), opts.headers, opts.timeoutMs).catch(() => undefined)
        result.warmup.requests++
        result.warmup.maxMs = Math.max(result.warmup.maxMs, performance.now() - t)
        continue
      }
      try {
        const res = await get(agent, new URL(path, opts.origin), opts.headers, opts.timeoutMs)
        result.latencies.push(performance.now() - t)
        result.latencyStatuses.push(res.status)
        result.statuses[res.status] = (result.statuses[res.status] ?? 0) + 1
        if (res.status !== 200) { result.errors++; result.firstError ??= `${res.status} ${path} ${res.body.slice(0, 200)}` }
        if (opts.honourRetryAfter === true && res.status === 503 && res.retryAfterS > 0) {
          await new Promise((resolve) => setTimeout(resolve, Math.min(res.retryAfterS * 1000, deadline - performance.now())))
        }
      } catch (err) {
        result.errors++
        if (err instanceof Timeout) result.timeouts++
        result.firstError ??= `${path} ${(err as Error).message}`
      }
    }
  }
  await Promise.all(Array.from({ length: opts.concurrency }, connection))
  const seconds = (performance.now() - started) / 1000
  agent.destroy()
  return { seconds, kinds: results }
}

/** Runs the load in a worker thread, so that the client does not share the server's event loop. */
export async function runLoadInWorker (opts: LoadOptions): Promise<LoadResult> {
  // Node 20 applies --import loaders to a worker only after its entry is loaded: register tsx first, then import.
  const tsx = import.meta.resolve('tsx/esm/api')
  const entry = new URL('./load-worker.ts', import.meta.url).href
  const code = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}) })`
  const worker = new Worker(code, { eval: true, workerData: opts })
  try {
    return await new Promise<LoadResult>((resolve, reject) => {
      worker.once('message', (m: LoadResult) => { resolve(m) })
      worker.once('error', reject)
      worker.once('exit', (code) => { reject(new Error(`load worker exited with ${code}`)) })
    })
  } finally {
    await worker.terminate()
  }
}
