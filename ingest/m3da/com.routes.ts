// M3DA over HTTP (docs/protocols/m3da.md; docs/devices.md): POST /device/com with one envelope as an
// application/octet-stream body, the reply envelope in the answer's body. Each request is a session of its own for
// the security extension's challenge rule; the nonce chain and an auto-registration in progress carry over between
// requests (session.ts). HTTP 400 answers bytes that are no envelope, 403 a device that is refused; every other
// answer is 200 with the M3DA status in the reply envelope (the agent reads challenges from a 2xx body).
import type { FastifyError, FastifyInstance } from 'fastify'
import { decodeEnvelope } from '../../protocols/m3da/index.js'
import { MAX_ENVELOPE_BYTES } from './limits.js'
import type { Answer, SessionHandler } from './session.js'
import { createTurnGate } from './turn-gate.js'

const envelopeBody = {
  description: 'One M3DA envelope (Bysant, protocols of the M3DA device agent); secured or not as the system requires',
  content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } }
}

const comSchema = {
  tags: ['devices'],
  summary: 'M3DA exchange',
  description: 'Takes one M3DA envelope from a device (its header id: the gateway serial number or IMEI) and answers the reply envelope: ' +
    'status 200 with the tasks queued for the device once its data is committed, or a 401/407 challenge, or an error status. ' +
    'The same exchange runs over TCP on M3DA_PORT.',
  response: {
    200: { description: 'The reply envelope (empty when the envelope asks for no reply)', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
    400: { description: 'The body is no M3DA envelope (or too large): refused and counted; the body is an M3DA status 400 envelope', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
    403: { description: 'Unknown device, device address filtered out, or a device that must use security: an M3DA status 403 envelope', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } }
  }
}

export default async function m3daComRoutes (app: FastifyInstance, opts: { handler: SessionHandler }): Promise<void> {
  const turn = createTurnGate()
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_ENVELOPE_BYTES }, (_req, body, done) => { done(null, body) })
  app.setErrorHandler(async (err: FastifyError, _req, reply) => {
    if (err.code !== 'FST_ERR_CTP_BODY_TOO_LARGE') throw err
    const a = opts.handler.malformed('payload.too.large')
    return await reply.status(400).type('application/octet-stream').send(a.reply)
  })

  /** HTTP 400 and 403 mirror the M3DA status of a refusal; every other answer is a 200 carrying its envelope. */
  const httpStatus = (a: Answer): 200 | 400 | 403 => a.status === 400 ? 400 : a.status === 403 ? 403 : 200

  app.post('/device/com', {
    config: { public: true, swaggerTransform: ({ schema, url }: { schema: object, url: string }) => ({ schema: { ...schema, body: envelopeBody }, url }) },
    schema: comSchema
  }, async (req, reply) => {
    const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)
    const decoded = decodeEnvelope(bytes, { maxBytes: MAX_ENVELOPE_BYTES })
    if (decoded.ok) await turn() // with the other requests of this turn (turn-gate.ts)
    const answer = decoded.ok
      ? await opts.handler.handle({ ip: req.ip, challenged: false, packages: 0, http: true }, decoded.envelope)
      : opts.handler.malformed(decoded.reason)
    const out = { status: httpStatus(answer), body: answer.reply ?? Buffer.alloc(0) }
    return await reply.status(out.status).type('application/octet-stream').send(out.body)
  })
}
