// GET /api/v1/stream (docs/stream.md): committed changes over a WebSocket. The upgrade request goes
// through the API's hooks like any call (api/plugins/auth.ts): the token as `Authorization: Bearer` or the
// `access_token` query parameter (docs/api.md#get-a-token; browsers cannot set headers on a WebSocket), the
// rate limit, and the context company of the `company` parameter; a refusal answers the API's HTTP error instead of
// upgrading. Afterwards the token, the company access and the rights are checked again every STREAM_RECHECK_MS.
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify'
import type { WebSocket } from 'ws'
import { FleetError } from '../../core/errors.js'
import type { AuthService } from '../../core/services/auth.service.js'
import type { CompaniesRepository } from '../../core/ports/repositories.js'
import type { RateCounter } from '../../core/ports/store.js'
import { enterCompany } from '../../core/services/access.js'
import { sha256 } from '../../core/security/secrets.js'
import type { StreamService } from '../../core/services/stream/stream.service.js'
import type { ServerMessage, StreamSession } from '../../core/services/stream/stream-session.js'
import { parseCommand, refOf } from '../../core/services/stream/commands.js'
import { bearerToken, enforceRate } from '../plugins/auth.js'
import { toFleetError } from '../plugins/error-handler.js'
import { CompanyQuery } from '../schemas/common.schema.js'
import '../types.js'

export interface StreamRoutesOptions {
  stream: StreamService
  auth: Pick<AuthService, 'authenticate'>
  companies: Pick<CompaniesRepository, 'findByUid'>
  rateCounter: RateCounter
  ratePerSecond: number
  /** STREAM_MAX_BUFFER_BYTES */
  maxBufferBytes: number
  /** STREAM_RECHECK_MS */
  recheckMs: number
  /** CORS_ORIGINS: the browser origins, besides the service's own, whose pages may open a stream. */
  corsOrigins: string[] | '*' | undefined
  /** PUBLIC_URL: the service's own origin when it is behind a proxy. */
  publicUrl: string | undefined
}

/** Close codes (RFC 6455 §7.4.2: 4000-4999 are the application's), each sent with a reason text. */
export const CLOSE = {
  /** The token expired or was revoked (the API would answer 401 invalid_token). */
  invalidToken: 4401,
  /** The caller lost its access to the context company or its address is filtered (403 / partner.unknown). */
  forbidden: 4403,
  /** More than STREAM_MAX_BUFFER_BYTES waited to be sent: the client does not read fast enough. */
  slowClient: 4008,
  /** The token already holds MAX_STREAMS_PER_TOKEN streams (the API would answer 429). */
  tooMany: 4429
} as const

/**
 * Streams one access token may hold open at once in a process. A console tab holds one, so a user with a few tabs
 * fits; each stream costs the service its subscriptions, their re-reads every STREAM_RECHECK_MS and a buffer of up
 * to STREAM_MAX_BUFFER_BYTES, so one token must not open them without bound.
 */
export const MAX_STREAMS_PER_TOKEN = 5

/** A client message is one command: 64 KiB is far above any valid one. */
const MAX_MESSAGE_BYTES = 64 * 1024
/** Commands of one stream being run at once; more are refused with rate.limit.exceeded rather than queued. */
const MAX_IN_FLIGHT = 16

/** The wire shape of a refusal (docs/api.md#using-the-api), as a stream message. */
function errorMessage (err: unknown, ref: string | null): ServerMessage {
  const e = toFleetError(err)
  return { event: 'error', ref, error: e.code, errorParameters: [...e.params] }
}

/** RFC 6455 §5.5: a close reason fits in 123 bytes. */
const reasonText = (s: string): string => Buffer.from(s).subarray(0, 123).toString().replace(/\uFFFD+$/, '')

/**
 * Whether a browser page of this origin may open a stream: the service's own origin (PUBLIC_URL, or the host the
 * request was sent to) or one of CORS_ORIGINS. A WebSocket is not covered by CORS, so without this any web page a
 * signed-in user visits could open one with a token it got hold of (cross-site WebSocket hijacking).
 */
export function streamOriginAllowed (origin: string, host: string | undefined, opts: Pick<StreamRoutesOptions, 'corsOrigins' | 'publicUrl'>): boolean {
  if (opts.corsOrigins === '*' || (opts.corsOrigins ?? []).includes(origin)) return true
  let url: URL
  try { url = new URL(origin) } catch { return false }
  if (opts.publicUrl !== undefined && url.origin === new URL(opts.publicUrl).origin) return true
  // A browser sets Host to where it connects and the page cannot change it: the same host is the service's page.
  return host !== undefined && url.host === host
}

export default async function streamRoutes (app: FastifyInstance, opts: StreamRoutesOptions): Promise<void> {
  const open = new Map<string, number>()
  app.get('/stream', {
    websocket: true,
    // No right to connect: each subscription asks for entities.systems.view, as the REST endpoints it mirrors.
    config: { right: null },
    schema: { querystring: CompanyQuery },
    // Before the upgrade, so that a refusal is the API's HTTP error. Clients other than browsers send no Origin.
    preHandler: async (req) => {
      const origin = req.headers.origin
      if (origin !== undefined && !streamOriginAllowed(origin, req.headers.host, opts)) throw new FleetError('origin.forbidden', [origin, 'CORS_ORIGINS'])
      if ((open.get(sha256(bearerToken(req) ?? '')) ?? 0) >= MAX_STREAMS_PER_TOKEN) {
        throw new FleetError('rate.limit.exceeded', ['streams', `at most ${MAX_STREAMS_PER_TOKEN} live streams open per access token`])
      }
    }
  }, (socket: WebSocket, req: FastifyRequest) => {
    const key = sha256(bearerToken(req) ?? '')
    const count = (open.get(key) ?? 0) + 1
    open.set(key, count)
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1
      if (left <= 0) open.delete(key); else open.set(key, left)
    })
    // Two upgrades of one token may pass the check together: the one over the cap is closed at once.
    if (count > MAX_STREAMS_PER_TOKEN) { socket.close(CLOSE.tooMany, `rate.limit.exceeded: at most ${MAX_STREAMS_PER_TOKEN} live streams open per access token`); return }
    serve(opts, socket, req)
  })
}

interface Caller { session: StreamSession, token: string, log: FastifyBaseLogger }

/** The answers to one client message: the session's, or its refusal as an error message. */
async function answersTo (opts: StreamRoutesOptions, { session, token, log }: Caller, data: Buffer, isBinary: boolean): Promise<ServerMessage[]> {
  const raw = data.toString('utf8')
  const ref = isBinary ? null : refOf(raw)
  try {
    if (isBinary) throw new FleetError('request.invalid', ['message', 'must be a JSON text message'])
    if (data.length > MAX_MESSAGE_BYTES) throw new FleetError('payload.too.large', ['message', `at most ${MAX_MESSAGE_BYTES} bytes`])
    await enforceRate(opts.rateCounter, sha256(token), opts.ratePerSecond)
    return await session.handle(parseCommand(raw))
  } catch (err) {
    const e = toFleetError(err)
    if (e.status >= 500) log.error({ err }, 'live stream command failed')
    return [errorMessage(e, ref)]
  }
}

/**
 * How a recheck's refusal ends the stream (close code, reason, and the closes metric's label); undefined for an
 * error that says nothing of the caller's access (the store away): the stream stays and is checked again later.
 */
function accessLost (e: FleetError, companyUid: string): { code: number, reason: string, by: 'invalid_token' | 'forbidden' } | undefined {
  if (e.code === 'invalid_token') return { code: CLOSE.invalidToken, reason: 'invalid_token: the access token expired or was revoked', by: 'invalid_token' }
  if (e.status === 403 || e.code === 'partner.unknown') return { code: CLOSE.forbidden, reason: `${e.code}: no more access to company ${companyUid}`, by: 'forbidden' }
  return undefined
}

function serve (opts: StreamRoutesOptions, socket: WebSocket, req: FastifyRequest): void {
  const token = bearerToken(req) ?? ''
  const companyUid = req.access.company.uid
  const log = req.log
  let closed = false
  let inFlight = 0
  let stream: Awaited<ReturnType<StreamService['open']>> | undefined
  let checking = false
  const timer = setInterval(() => {
    if (checking) return
    checking = true
    recheck().catch(() => {}).finally(() => { checking = false })
  }, opts.recheckMs)

  function close (code: number, reason: string): void {
    if (closed) return
    closed = true
    clearInterval(timer)
    stream?.close()
    socket.close(code, reasonText(reason))
  }

  // Never more than maxBufferBytes waiting for the client: a message that would pass the bound closes the stream
  // instead, with the reason behind what is already queued, and nothing more is queued after it.
  function send (m: ServerMessage): void {
    if (closed || socket.readyState !== socket.OPEN) return
    const data = JSON.stringify(m)
    if (socket.bufferedAmount + Buffer.byteLength(data) > opts.maxBufferBytes) {
      log.info({ buffered: socket.bufferedAmount }, 'live stream closed: client too slow')
      opts.stream.closedBy('slow_client')
      close(CLOSE.slowClient, `slow client: more than ${opts.maxBufferBytes} bytes waiting to be sent`)
      return
    }
    socket.send(data)
  }

  /** The token, the company access and the rights, as a new API call would see them now. */
  async function recheck (): Promise<void> {
    try {
      const actor = await opts.auth.authenticate(token, req.ip)
      const access = await enterCompany(opts.companies, actor, companyUid, { right: null, unknown: 'partner.unknown' })
      stream?.setAccess({ companyUid, rights: access.membership.rights })
    } catch (err) {
      const end = accessLost(toFleetError(err), companyUid)
      if (end === undefined) log.warn({ err }, 'live stream access not checked; checked again later')
      else { opts.stream.closedBy(end.by); close(end.code, end.reason) }
      return
    }
    if (socket.readyState === socket.OPEN) socket.ping()
    await stream?.session.refresh().catch((err: unknown) => { log.warn({ err }, 'live stream subscriptions not refreshed') })
  }

  // Errors of the socket (a bad frame, a payload above maxPayload) end with its close; the process goes on.
  socket.on('error', (err) => { log.debug({ err }, 'live stream socket error') })
  socket.on('close', () => { closed = true; clearInterval(timer); stream?.close() })
  // Commands run one after the other, in the order sent (so are their answers), once the session is ready; at most
  // MAX_IN_FLIGHT wait, and the rest are refused at once rather than queued without bound.
  let chain: Promise<void> = opts.stream.open({ companyUid, rights: req.access.membership.rights }, send).then((s) => {
    stream = s
    if (closed) s.close()
  }, (err: unknown) => {
    log.error({ err }, 'live stream not opened')
    opts.stream.closedBy('error')
    close(1011, 'internal.error: the stream could not be opened')
  })
  socket.on('message', (data: Buffer, isBinary: boolean) => {
    if (inFlight >= MAX_IN_FLIGHT) {
      send({ event: 'error', ref: null, error: 'rate.limit.exceeded', errorParameters: [`at most ${MAX_IN_FLIGHT} commands waiting`] })
      return
    }
    inFlight++
    chain = chain.then(async () => {
      if (closed || stream === undefined) return
      for (const a of await answersTo(opts, { session: stream.session, token, log }, data, isBinary)) send(a)
    })
      .catch((err: unknown) => { log.error({ err }, 'live stream command failed') })
      .finally(() => { inFlight-- })
  })
}
