// The REST device API (docs/devices.md): HTTP Basic with the gateway serial number or IMEI and the system's
// `communication.rest.password`. POST /device/messages answers 200 only once the message is committed. Payloads go
// through the ingest pipeline (ingest/pipeline.ts) with the AirVantage codecs (protocols/airvantage).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { DevicesService, DeviceSession } from '../../core/services/ingest/devices.service.js'
import type { IngestService } from '../../core/services/ingest/ingest.service.js'
import { decodeAcks, decodeData, encodeTasks } from '../../protocols/airvantage/index.js'
import type { AckDecoder, DataDecoder, Pipeline, PipelineOutcome } from '../pipeline.js'
import { ackBody, acksSchema, dataBody, documentBody, messagesSchema, tasksSchema } from './device.schema.js'
import { FleetError } from '../../core/errors.js'
import type { DeviceLimits } from '../device-limits.js'
import { certificateOf } from '../tls/socket-certificate.js'

export interface DeviceRoutesOptions {
  devices: DevicesService
  ingest: Pick<IngestService, 'takeTasks'>
  pipeline: Pipeline
  /** Each device's budget (ingest/device-limits.ts): every request of a device counts, its body's bytes too. */
  limits: DeviceLimits
}

const data: DataDecoder = (payload, receivedAt) => decodeData(payload, { receivedAt })
// Device-REST-Version: 2 sends the object keyed by timestamps (docs/devices.md).
const timestampKeyedData: DataDecoder = (payload, receivedAt) => decodeData(payload, { receivedAt, timestampKeyed: true })
const acks: AckDecoder = (payload) => decodeAcks(payload)

// Device payloads are at most 1 MiB (protocols/airvantage README); the transport reads a little more so that the
// decoder answers payload.too.large itself.
const BODY_LIMIT = 1024 * 1024 + 1024

function credentials (req: FastifyRequest): { user: string, password: string } | undefined {
  const header = req.headers.authorization
  if (header === undefined || !/^basic /i.test(header)) return undefined
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8')
  const at = decoded.indexOf(':')
  return at <= 0 ? undefined : { user: decoded.slice(0, at), password: decoded.slice(at + 1) }
}

function reject (reply: FastifyReply, status: number, error: string): FastifyReply {
  if (status === 401) reply.header('www-authenticate', 'Basic realm="devices"')
  return reply.status(status).send({ error, errorParameters: [] })
}

function answer (reply: FastifyReply, outcome: PipelineOutcome): FastifyReply {
  if (outcome.kind === 'stored') return reply.status(200).send()
  return reject(reply, 400, outcome.kind === 'refused' ? outcome.reason : 'topic.forbidden')
}

export default async function deviceRoutes (app: FastifyInstance, opts: DeviceRoutesOptions): Promise<void> {
  // The payload is decoded by the device protocol codec, never by the JSON body parser: a malformed body must be
  // refused with the codec's reason and counted like on MQTT.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_req, body, done) => { done(null, body) })
  // A body beyond the transport limit is as malformed as one the codec finds too large: the same 400
  // payload.too.large (docs/devices.md: REST answers 400), not the API's 413. Other errors go to the API's
  // handler (a child handler that throws hands the error to its parent).
  app.setErrorHandler(async (err: FastifyError, _req, reply) => {
    if (err.code !== 'FST_ERR_CTP_BODY_TOO_LARGE') throw err
    opts.pipeline.refuse('payload.too.large')
    return reject(reply, 400, 'payload.too.large')
  })

  const session = async (req: FastifyRequest, reply: FastifyReply): Promise<DeviceSession | undefined> => {
    // A client certificate of the HTTPS handshake replaces the Basic credentials (docs/security.md#device-certificates).
    const certificate = certificateOf(req.raw.socket)
    const c = certificate === undefined ? credentials(req) : undefined
    const r = certificate !== undefined
      ? await opts.devices.authenticateCertificate(certificate, 'rest', req.ip)
      : c === undefined ? undefined : await opts.devices.authenticate(c.user, c.password, 'rest', req.ip)
    if (r?.ok === true) {
      // Over the device's budget (docs/security.md#device-limits): 429 with Retry-After (the API error handler renders
      // it).
      const admitted = opts.limits.admit(r.session.systemUid, Buffer.isBuffer(req.body) ? req.body.length : 0)
      if (!admitted.ok) throw Object.assign(new FleetError('rate.limit.exceeded'), { retryAfterS: admitted.retryAfterS })
      return r.session
    }
    opts.pipeline.refuse(r === undefined ? 'device.missing.credentials' : r.reason)
    // Throttled after wrong passwords (docs/security.md#device-login-throttling): 429 with Retry-After, credentials
    // unchecked.
    if (r?.ok === false && r.reason === 'device.throttled') throw Object.assign(new FleetError('rate.limit.exceeded'), { retryAfterS: r.retryAfterS })
    if (r?.ok === false && r.reason === 'device.ip.forbidden') reject(reply, 403, 'ip.forbidden')
    else reject(reply, 401, 'device.unauthorized')
    return undefined
  }
  const body = (req: FastifyRequest): Buffer => Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)
  const schema = { tags: ['devices'], security: [{ basic: [] }] }

  app.post('/device/messages', { config: { public: true, swaggerTransform: documentBody(dataBody) }, schema: { ...schema, ...messagesSchema } }, async (req, reply) => {
    const s = await session(req, reply)
    if (s === undefined) return reply
    const decode = req.headers['device-rest-version'] === '2' ? timestampKeyedData : data
    return answer(reply, await opts.pipeline.data(s, body(req), decode))
  })

  app.get('/device/tasks', { config: { public: true }, schema: { ...schema, ...tasksSchema } }, async (req, reply) => {
    const s = await session(req, reply)
    if (s === undefined) return reply
    // The tasks waiting and those sent before and not answered: a poll whose answer was lost gets them again (the
    // device ignores a task it already ran by its uid, docs/devices.md).
    const tasks = await opts.ingest.takeTasks(s.systemUid, 'REST', { again: true })
    return await reply.type('application/json').send(encodeTasks(tasks))
  })

  app.post('/device/acks', { config: { public: true, swaggerTransform: documentBody(ackBody) }, schema: { ...schema, ...acksSchema } }, async (req, reply) => {
    const s = await session(req, reply)
    if (s === undefined) return reply
    return answer(reply, await opts.pipeline.acks(s, body(req), acks))
  })
}
