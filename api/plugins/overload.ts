// Load shedding: under overload a request is refused at once with 503 service.unavailable and Retry-After (the
// error shape of every refusal: docs/api.md#using-the-api) rather than queued until the client gives up. Routes with
// `config.shed === false` (health, readiness, metrics) are always answered: they are how an operator sees the overload.
//
// Signals:
// - Admission of API requests (/api/...: OAuth and /api/v1): a limited number are served at once, the others wait a
//   bounded time for a place and are refused when they get none (api/plugins/admission.ts). That is where requests
//   waited under overload: for the store, behind every other request let in. The device routes (REST, M3DA over
//   HTTP, MQTT over WebSocket) and the console are outside it: the device ingest has bounds of its own, and a device
//   must not lose its place to API clients. The live stream's WebSocket is outside it too (it lasts for hours).
//   A route with `config.admitAfterBody` (a package release: hundreds of MiB at the client's pace) takes its place
//   only once its handler has read the body (req.admit()): a slow upload waits on its client, not on the store, and
//   holding a place for it left the other API requests refused for as long (four 100 MiB uploads at 8 MiB/s with
//   OVERLOAD_MAX_IN_FLIGHT=4 beside four reading clients: 225 of 232 reads refused over 15 s; once read: 42 of 1,694,
//   while the packages were read and stored, and no upload refused). The place is then taken at once, past the limit
//   if need be (Admission.force): the others wait for the package's reading and storing, but a package its client
//   took minutes to send is not refused at its end (docs/packages.md#release-and-publish).
// - Event loop delay, measured inline: how long the loop has gone without turning when the request is read. Long
//   synchronous work (a large CSV, a big answer to serialize) holds the loop, and requests read late in such a turn
//   have already waited that long, so they are refused and the rest of the batch costs microseconds each. A sampled
//   mean (@fastify/under-pressure's maxEventLoopDelay) only sees the long turn once it is over, one sampling interval
//   too late.
// - Heap in use (@fastify/under-pressure samples it).
import fp from 'fastify-plugin'
import underPressure from '@fastify/under-pressure'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import '../types.js'
import { Admission, type AdmissionStats, type Release } from './admission.js'

export type ShedReason = 'event_loop_delay' | 'heap' | 'in_flight' | 'queue_timeout' | 'other'

/** Thrown by req.admit() when the request's client went away while it sent the body: nobody to serve. */
export class ClientGone extends Error {
  constructor () { super('request not admitted: its client is gone') }
}

export interface OverloadOptions {
  /** Event loop delay (ms) a request may find when it is read; above it, it is shed. 0: not checked. */
  maxEventLoopDelayMs: number
  /** Heap in use (MiB) above which requests are shed; 0: not checked. */
  maxHeapMb: number
  /** API requests served at once (the most the adaptive limit reaches); 0: no admission control. */
  maxInFlight: number
  /** How long an API request may wait for a place before it is shed; 0: shed at once when every place is taken. */
  maxQueueMs: number
  /** Service time the limit of API requests adapts to; 0: the limit is maxInFlight. */
  targetMs: number
  retryAfterS: number
  onShed?: (reason: ShedReason) => void
  /** Given how to read the admission's figures, when there is admission control (metrics). */
  onAdmission?: (stats: () => AdmissionStats) => void
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

/** Whether the request takes a place of the API's admission: an API call, not a WebSocket upgrade. */
function admitted (req: FastifyRequest): boolean {
  return req.url.startsWith('/api/') && req.headers.upgrade === undefined
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
  const admission = opts.maxInFlight > 0 ? new Admission({ maxInFlight: opts.maxInFlight, maxWaitMs: opts.maxQueueMs, targetMs: opts.targetMs }) : undefined
  const places = new WeakMap<FastifyRequest, Release>()
  app.decorateRequest('admit', async () => {})
  app.addHook('onRequest', async (req, reply) => {
    if (exempt(req)) return
    if (delay !== undefined && delay() > opts.maxEventLoopDelayMs) return await refuse(reply, 'event_loop_delay')
    if (admission === undefined || !admitted(req)) return
    if (req.routeOptions.config.admitAfterBody === true) {
      req.admit = async () => {
        if (places.has(req)) return
        // Gone (its abort already seen): a place taken now would never be given back.
        if (req.raw.socket.destroyed) { reply.hijack(); throw new ClientGone() }
        places.set(req, admission.force())
      }
      return
    }
    const place = await admission.enter()
    if ('refused' in place) return await refuse(reply, place.refused)
    // Its client went away while it waited: nobody to serve (no response, hence no onResponse, follows).
    if (req.raw.socket.destroyed) { place.release(); reply.hijack(); return }
    places.set(req, place.release)
  })
  if (admission !== undefined) {
    opts.onAdmission?.(() => admission.stats())
    // A request leaves its place when its answer is written, or when its client goes away first.
    const done = (req: FastifyRequest): void => { places.get(req)?.(); places.delete(req) }
    app.addHook('onResponse', async (req) => { done(req) })
    app.addHook('onRequestAbort', async (req) => { done(req) })
  }
}, { name: 'overload' })
