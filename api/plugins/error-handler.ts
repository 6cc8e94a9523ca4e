import fp from 'fastify-plugin'
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify'
import { FleetError, isFleetError, type ErrorCode } from '../../core/errors.js'
import { isStoreUnavailable } from '../../core/store-errors.js'

interface AjvError { keyword: string, instancePath: string, message?: string, params?: Record<string, unknown> }

// docs/architecture.md#house-rules: where the spec names a code for a schema-level failure, the Ajv keyword maps to it.
const KEYWORD_CODES: Record<string, ErrorCode> = { enum: 'unknown.enum.value', maxLength: 'value.too.long' }

/**
 * How to fix what Ajv found: the allowed values of an enum, the name of a missing property, every type a union
 * takes (Ajv reports one error per branch: "must be null", "must be integer"), else Ajv's message.
 */
function fix (e: AjvError | undefined, all: readonly AjvError[]): { at: string, message: string } {
  const allowed = e?.params?.allowedValues
  if (e?.keyword === 'enum' && Array.isArray(allowed)) return { at: '', message: `must be one of ${allowed.join(', ')}` }
  const missing = e?.params?.missingProperty
  if (e?.keyword === 'required' && typeof missing === 'string') return { at: `/${missing}`, message: 'is required' }
  if (e?.keyword === 'type') {
    const types = all.filter((x) => x.keyword === 'type' && x.instancePath === e.instancePath).map((x) => String(x.params?.type))
    return { at: '', message: `must be ${[...new Set(types)].join(' or ')}` }
  }
  return { at: '', message: e?.message ?? '' }
}

function fromValidation (err: FastifyError & { validationContext?: string }): FleetError {
  const all = (err.validation as AjvError[] | undefined) ?? []
  const first = all[0]
  const { at, message } = fix(first, all)
  const path = `${err.validationContext ?? ''}${first?.instancePath ?? ''}${at}`
  const code = first === undefined ? 'request.invalid' : KEYWORD_CODES[first.keyword] ?? 'request.invalid'
  return new FleetError(code, [path, message])
}

/**
 * A PostgreSQL (or PGlite) error that a value of the request caused: class 22, data exception (22003 a number out
 * of range, 22P02 text that is not a number, 22021 a NUL byte, 22008 a date out of range...) and class 54, program
 * limit exceeded (54000: a value too long for its index). Validation should have refused such a value; this is the
 * safety net that keeps it a 400 (docs/api.md#using-the-api: bad input never answers 500). The statement failed, so
 * its transaction rolled back and the request changed nothing.
 */
export function isStoreInputError (err: unknown): boolean {
  const e = err as { code?: unknown, severity?: unknown } | null
  return typeof e?.code === 'string' && typeof e.severity === 'string' && /^(22|54)[0-9A-Z]{3}$/.test(e.code)
}

/** Any thrown thing to the one wire shape of docs/api.md#using-the-api. */
export function toFleetError (err: unknown): FleetError {
  if (isFleetError(err)) return err
  const fe = err as FastifyError
  if (fe.validation !== undefined) return fromValidation(fe)
  if (isStoreInputError(err)) return new FleetError('request.invalid', ['a value of the request is out of range or cannot be stored'], { cause: err })
  // A lost store connection is a passing fault (core/store-errors.ts): the statement and its transaction did not
  // take effect, so the caller may simply try again; 503 with Retry-After says so, where 500 would say "our bug".
  if (isStoreUnavailable(err)) return new FleetError('service.unavailable', [], { cause: err })
  if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new FleetError('payload.too.large')
  if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return new FleetError('unsupported.media.type')
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new FleetError('request.invalid', [fe.message])
  }
  return new FleetError('internal.error', [], { cause: err })
}

/** What a 503 for a lost store connection tells the caller to wait: the pool opens a new connection at once. */
const STORE_RETRY_AFTER_S = 1

/** The longest path parameter the router takes (Fastify's maxParamLength); uids are 32 characters. */
export const MAX_PATH_PARAM_LENGTH = 100

/**
 * What the router refuses before any hook runs (Fastify's `frameworkErrors`): a path parameter longer than
 * MAX_PATH_PARAM_LENGTH, or a path that is not valid percent-encoding. The same 400 as every bad request
 * (docs/api.md#using-the-api) rather than Fastify's own 414 and 400 bodies.
 */
export function frameworkError (err: FastifyError, reply: FastifyReply): FastifyReply {
  const why = err.code === 'FST_ERR_MAX_PARAM_LENGTH'
    ? `a path segment is longer than ${MAX_PATH_PARAM_LENGTH} characters`
    : 'the path is not valid percent-encoded UTF-8'
  return reply.status(400).send({ error: 'request.invalid', errorParameters: ['path', why] })
}

/** Renders every error once: 400 business codes, 401/403/404/429 as docs/api.md#using-the-api says, 500 otherwise. */
export default fp(async (app: FastifyInstance) => {
  app.setErrorHandler(async (err, req, reply) => {
    const e = toFleetError(err)
    if (e.status >= 500) req.log.error({ err }, 'request failed')
    // A store error turned 400 is a value that validation let through: logged with its cause, to be fixed there.
    else if (isStoreInputError(err)) req.log.warn({ err }, 'request rejected by the store')
    else req.log.info({ code: e.code, params: e.params }, 'request rejected')
    // docs/api.md#using-the-api: a 429 carries Retry-After (seconds); enforceRate (plugins/auth.ts) puts it on the
    // error.
    const retryAfterS = (err as { retryAfterS?: unknown }).retryAfterS
    if (typeof retryAfterS === 'number') reply.header('retry-after', String(retryAfterS))
    else if (e.code === 'service.unavailable') reply.header('retry-after', String(STORE_RETRY_AFTER_S))
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
