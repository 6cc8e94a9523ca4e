// Load shedding (issue 8, Overload): under overload a request is refused at once with 503 service.unavailable and
// Retry-After (conventions.md §Errors shape) rather than queued until the client gives up. Routes with
// `config.shed === false` (health, readiness, metrics) are always answered: they are how an operator sees the overload.
//
// Signals:
// - Event loop delay, measured inline: how long the loop has gone without turning when the request is read. When the
//   embedded store (PGlite) ran its statements in this thread and settled them as microtasks, one loop turn could
//   read and answer a whole batch of requests back to back; 200 clients made a turn last seconds while every request
//   in flight looked fine (bench/load.ts). It has a thread of its own now (storage/pglite-worker.ts), but any long
//   synchronous work (a large CSV, a big answer to serialize) holds the loop the same way. A request read that late into a turn has waited at least that long, so it
//   is refused and the rest of the batch costs microseconds each. A sampled mean (@fastify/under-pressure's
//   maxEventLoopDelay) only sees the long turn once it is over, one sampling interval too late.
// - Requests in flight: with a PostgreSQL pool the loop stays free and requests wait for a connection instead.
// - Heap in use (@fastify/under-pressure samples it).
import fp from 'fastify-plugin'
import underPressure from '@fastify/under-pressure'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import '../types.js'

export type ShedReason = 'event_loop_delay' | 'heap' | 'in_flight' | 'other'

export interface OverloadOptions {
  /** Event loop delay (ms) a request may find when it is read; above it, it is shed. 0: not checked. */
  maxEventLoopDelayMs: number
  /** Heap in use (MiB) above which requests are shed; 0: not checked. */
  maxHeapMb: number
  /** Requests answered at once above which new ones are shed; 0: no cap. */
  maxInFlight: number
  retryAfterS: number
  onShed?: (reason: ShedReason) => void
}

// The loop marks each turn with a timer this often; idle, the mark is never older than this.
const TURN_MARK_MS = 10

/** Milliseconds the event loop has gone without turning (0 on a loop that turns). */
function loopDelay (app: FastifyInstance): () => number {
  let mark = performance.now()
  const timer = setInterval(() => { mark = performance.now() }, TURN_MARK_MS)
  timer.unref()
  app.addHook('onClose', async () => { clearInterval(timer) })
  return () => Math.max(0, performance.now() - mark - TURN_MARK_MS)
}

export default fp(async (app: FastifyInstance, opts: OverloadOptions) => {
  const exempt = (req: FastifyRequest): boolean => req.routeOptions.config.shed === false
  const refuse = async (reply: FastifyReply, reason: ShedReason): Promise<FastifyReply> => {
    opts.onShed?.(reason)
    return await reply.status(503).header('retry-after', String(opts.retryAfterS)).send({ error: 'service.unavailable', errorParameters: [] })
  }

  if (opts.maxHeapMb > 0) {
    await app.register(underPressure, {
      maxHeapUsedBytes: opts.maxHeapMb * 1024 * 1024,
      retryAfter: opts.retryAfterS,
      // Sends the refusal, or nothing to let the request through (a request already answered goes no further).
      pressureHandler: async (req, reply) => { if (!exempt(req)) await refuse(reply, 'heap') }
    })
  }

  const delay = opts.maxEventLoopDelayMs > 0 ? loopDelay(app) : undefined
  let inFlight = 0
  const counted = new WeakSet<FastifyRequest>()
  const done = (req: FastifyRequest): void => { if (counted.delete(req)) inFlight-- }
  app.addHook('onRequest', async (req, reply) => {
    if (exempt(req)) return
    if (delay !== undefined && delay() > opts.maxEventLoopDelayMs) return await refuse(reply, 'event_loop_delay')
    if (opts.maxInFlight === 0) return
    if (inFlight >= opts.maxInFlight) return await refuse(reply, 'in_flight')
    inFlight++
    counted.add(req)
  })
  if (opts.maxInFlight > 0) {
    // A request leaves the count when its answer is written, or when its client goes away first.
    app.addHook('onResponse', async (req) => { done(req) })
    app.addHook('onRequestAbort', async (req) => { done(req) })
  }
}, { name: 'overload' })
