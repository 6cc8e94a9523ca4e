import fp from 'fastify-plugin'
import type { FastifyError, FastifyInstance } from 'fastify'
import { FleetError, isFleetError, type ErrorCode } from '../../core/errors.js'

interface AjvError { keyword: string, instancePath: string, message?: string, params?: Record<string, unknown> }

// shared/style.md §2.8: where the spec names a code for a schema-level failure, the Ajv keyword maps to it.
const KEYWORD_CODES: Record<string, ErrorCode> = { enum: 'unknown.enum.value', maxLength: 'value.too.long' }

function fromValidation (err: FastifyError & { validationContext?: string }): FleetError {
  const first = (err.validation as AjvError[] | undefined)?.[0]
  const path = `${err.validationContext ?? ''}${first?.instancePath ?? ''}`
  const code = first === undefined ? 'request.invalid' : KEYWORD_CODES[first.keyword] ?? 'request.invalid'
  return new FleetError(code, [path, first?.message ?? ''])
}

/** Any thrown thing to the one wire shape of conventions.md §Errors. */
export function toFleetError (err: unknown): FleetError {
  if (isFleetError(err)) return err
  const fe = err as FastifyError
  if (fe.validation !== undefined) return fromValidation(fe)
  if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new FleetError('payload.too.large')
  if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return new FleetError('unsupported.media.type')
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new FleetError('request.invalid', [fe.message])
  }
  return new FleetError('internal.error', [], { cause: err })
}

/** Renders every error once: 400 business codes, 401/403/404/429 as conventions.md §Errors says, 500 otherwise. */
export default fp(async (app: FastifyInstance) => {
  app.setErrorHandler(async (err, req, reply) => {
    const e = toFleetError(err)
    if (e.status >= 500) req.log.error({ err }, 'request failed')
    else req.log.info({ code: e.code, params: e.params }, 'request rejected')
    // conventions.md §Errors: a 429 carries Retry-After (seconds); enforceRate (plugins/auth.ts) puts it on the error.
    const retryAfterS = (err as { retryAfterS?: unknown }).retryAfterS
    if (typeof retryAfterS === 'number') reply.header('retry-after', String(retryAfterS))
    if (e.code === 'invalid_token') {
      return await reply.status(401).header('www-authenticate', 'Bearer error="invalid_token"')
        .send({ error: 'invalid_token', error_description: e.message })
    }
    return await reply.status(e.status).send({ error: e.code, errorParameters: e.status >= 500 ? [] : e.params })
  })
  app.setNotFoundHandler(async (req, reply) => {
    return await reply.status(404).send({ error: 'not.found', errorParameters: [req.url.split('?')[0] ?? ''] })
  })
}, { name: 'error-handler' })
