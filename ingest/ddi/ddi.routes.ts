// The hawkBit DDI endpoints (docs/protocols/ddi.md) under /ddi/<tenant>/controller/v1/<controllerId>. Every answer to
// a request that passed authentication is 200 (feedback and configData included: agents treat anything else as a
// failed report and send it again), except 404 for an action that is not the controller's and 400 for a body that is
// no DDI document. A wrong tenant, controller or token is one 401, never saying which.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { FleetError } from '../../core/errors.js'
import type { DeviceSession } from '../../core/services/ingest/devices.service.js'
import type { DeviceLimits } from '../device-limits.js'
import type { Pipeline } from '../pipeline.js'
import type { DdiAuth } from './ddi-auth.js'
import type { DdiController, Offer } from './ddi-controller.js'
import { cancelDocument, deploymentDocument, pollDocument, readConfigData, readFeedback } from './ddi-json.js'
import { ddiSchemas } from './ddi.schema.js'

export interface DdiRoutesOptions {
  authenticate: (tenant: string, controllerId: string, authorization: string | undefined, ip: string) => Promise<DdiAuth>
  controller: DdiController
  pipeline: Pipeline
  limits: DeviceLimits
  pollSleepS: (systemUid: string) => Promise<number>
  /** PUBLIC_URL: the links' base; absent, the address the controller used (its Host header). */
  publicUrl: string | undefined
}

interface Params { tenant: string, controllerId: string, id?: string }

const BASE = '/ddi/:tenant/controller/v1/:controllerId'
// Feedback and configData are small JSON documents; a gateway's attributes fit well within this.
const BODY_LIMIT = 64 * 1024

function refuse (reply: FastifyReply, status: number, error: string): FastifyReply {
  return reply.status(status).send({ error, errorParameters: [] })
}

/** An action id as DDI writes it: a positive integer that fits the agents' int. */
function actionId (text: string | undefined): number | undefined {
  if (text === undefined || !/^[1-9][0-9]{0,9}$/.test(text)) return undefined
  const n = Number(text)
  return n <= 2_147_483_647 ? n : undefined
}

export default async function ddiRoutes (app: FastifyInstance, opts: DdiRoutesOptions): Promise<void> {
  // Bodies are read by the DDI readers, never by the JSON parser: malformed JSON is a counted 400 like any device's.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_req, body, done) => { done(null, body) })
  app.setErrorHandler(async (err: FastifyError, _req, reply) => {
    if (err.code !== 'FST_ERR_CTP_BODY_TOO_LARGE') throw err
    opts.pipeline.refuse('payload.too.large')
    return refuse(reply, 400, 'payload.too.large')
  })

  const session = async (req: FastifyRequest<{ Params: Params }>, reply: FastifyReply): Promise<DeviceSession | undefined> => {
    const r = await opts.authenticate(req.params.tenant, req.params.controllerId, req.headers.authorization, req.ip)
    if (r.ok) {
      // Over the device's budget (docs/security.md#device-limits): 429 with Retry-After, as REST devices get.
      const admitted = opts.limits.admit(r.session.systemUid, Buffer.isBuffer(req.body) ? req.body.length : 0)
      if (!admitted.ok) throw Object.assign(new FleetError('rate.limit.exceeded'), { retryAfterS: admitted.retryAfterS })
      return r.session
    }
    opts.pipeline.refuse(r.reason)
    if (r.reason === 'device.throttled') throw Object.assign(new FleetError('rate.limit.exceeded'), { retryAfterS: r.retryAfterS })
    if (r.reason === 'device.ip.forbidden') refuse(reply, 403, 'ip.forbidden')
    else refuse(reply.header('www-authenticate', 'TargetToken'), 401, 'device.unauthorized')
    return undefined
  }
  const base = (req: FastifyRequest<{ Params: Params }>): string => {
    const root = (opts.publicUrl ?? `${req.protocol}://${req.headers.host ?? req.hostname}`).replace(/\/+$/, '')
    return `${root}/ddi/${encodeURIComponent(req.params.tenant)}/controller/v1/${encodeURIComponent(req.params.controllerId)}`
  }
  const href = (req: FastifyRequest<{ Params: Params }>, offer: NonNullable<Offer>): string => `${base(req)}/${offer.rel}/${offer.id}`
  const body = (req: FastifyRequest): Buffer => Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)
  const json = async (reply: FastifyReply, doc: object): Promise<FastifyReply> => await reply.status(200).type('application/hal+json;charset=UTF-8').send(JSON.stringify(doc))
  const route = { config: { public: true } }

  app.get<{ Params: Params }>(BASE, { ...route, schema: ddiSchemas.poll }, async (req, reply) => {
    const s = await session(req, reply)
    if (s === undefined) return reply
    const offer = await opts.controller.poll(s)
    return await json(reply, pollDocument(await opts.pollSleepS(s.systemUid), offer === undefined ? undefined : { rel: offer.rel, href: href(req, offer) }))
  })

  app.get<{ Params: Params }>(`${BASE}/deploymentBase/:id`, { ...route, schema: ddiSchemas.deployment }, async (req, reply) => {
    const s = await session(req, reply)
    if (s === undefined) return reply
    const id = actionId(req.params.id)
    const d = id === undefined ? undefined : await opts.controller.deployment(s, id)
    if (d === undefined) return refuse(reply, 404, 'ddi.action.not.found')
    return await json(reply, deploymentDocument(d.id, { name: d.name, version: d.version, artifacts: d.artifacts.map(({ url, ...a }) => ({ ...a, href: url })) }))
  })

  app.get<{ Params: Params }>(`${BASE}/cancelAction/:id`, { ...route, schema: ddiSchemas.cancel }, async (req, reply) => {
    const s = await session(req, reply)
    if (s === undefined) return reply
    const id = actionId(req.params.id)
    if (id === undefined || !(await opts.controller.cancelling(s, id))) return refuse(reply, 404, 'ddi.action.not.found')
    return await json(reply, cancelDocument(id))
  })

  for (const kind of ['deploymentBase', 'cancelAction'] as const) {
    app.post<{ Params: Params }>(`${BASE}/${kind}/:id/feedback`, { ...route, schema: ddiSchemas.feedback }, async (req, reply) => {
      const s = await session(req, reply)
      if (s === undefined) return reply
      const read = readFeedback(body(req))
      if (!read.ok) {
        opts.pipeline.refuse(read.reason)
        return refuse(reply, 400, read.reason)
      }
      const id = actionId(req.params.id)
      const known = id !== undefined && (kind === 'deploymentBase' ? await opts.controller.feedback(s, id, read.feedback) : await opts.controller.cancelFeedback(s, id, read.feedback))
      return known ? await reply.status(200).send() : refuse(reply, 404, 'ddi.action.not.found')
    })
  }

  app.put<{ Params: Params }>(`${BASE}/configData`, { ...route, schema: ddiSchemas.configData }, async (req, reply) => {
    const s = await session(req, reply)
    if (s === undefined) return reply
    const outcome = await opts.pipeline.data(s, body(req), readConfigData)
    return outcome.kind === 'stored' ? await reply.status(200).send() : refuse(reply, 400, outcome.kind === 'refused' ? outcome.reason : 'payload.invalid')
  })
}
