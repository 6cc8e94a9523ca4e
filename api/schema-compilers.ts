import { Ajv, type ValidateFunction } from 'ajv'
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify'
import fastJsonStringify from 'fast-json-stringify'

// The route schemas' validators and serializers, compiled on a route's first use and once per process
// (docs/decisions/0033-route-schemas-compiled-on-first-use.md). Fastify compiles every route's schemas when the server
// starts: about 1.8 s of CPU per server on this service's 90 or so routes, for routes most processes never serve (a device
// edge without the API, a test that calls three). A compiled function depends only on its schema's content, the
// compiler's options and the shared schemas (api/schemas/common.schema.ts, the same in every server), so servers of
// one process share them.

// Query strings and path parameters arrive as text and are coerced to their schema types; JSON bodies are typed
// already and are never coerced (a coercing validator would turn null into "" in a string-or-null field).
const queryAjv = new Ajv({ coerceTypes: 'array', removeAdditional: true, useDefaults: true, strict: false })
const bodyAjv = new Ajv({ coerceTypes: false, removeAdditional: true, useDefaults: true, strict: false })

type Validator = ((data: unknown, ctx?: unknown) => boolean) & { errors?: FastifySchemaValidationError[] | null, schemaEnv?: unknown }
type Serializer = (data: unknown) => string

const validators = new Map<string, ValidateFunction>()
const serializers = new Map<string, Serializer>()
/** What has not been compiled yet, by key: compileEveryRoute() compiles it (the test of every route's schemas). */
const pending = new Map<string, () => void>()

function once<T> (cache: Map<string, T>, key: string, build: () => T): () => T {
  let fn: T | undefined
  // After the first call, a request pays one comparison here.
  const get = (): T => {
    if (fn !== undefined) return fn
    let compiled = cache.get(key)
    if (compiled === undefined) { compiled = build(); cache.set(key, compiled) }
    pending.delete(key)
    fn = compiled
    return compiled
  }
  if (!cache.has(key)) pending.set(key, () => { get() })
  return get
}

/** Fastify's validatorCompiler: a function that compiles its schema on its first call. */
export const lazyValidator: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : queryAjv
  const get = once(validators, `v:${ajv === bodyAjv ? 'body' : 'text'}:${JSON.stringify(schema)}`, () => ajv.compile(schema as object))
  const validate: Validator = (data, ctx) => {
    const fn = get()
    const ok = fn(data, ctx as Parameters<ValidateFunction>[1]) as boolean
    validate.errors = fn.errors as FastifySchemaValidationError[] | null | undefined
    return ok
  }
  // Fastify hands an Ajv function (one with a schemaEnv) the request as the parent of the value, so that Ajv may
  // replace the value itself (a coerced or defaulted root); it reads `errors` after a false answer.
  validate.schemaEnv = true
  return validate
}

/** Fastify's serializer factory (`schemaController.compilersFactory.buildSerializer`), compiling on first use. */
export function lazySerializers (externalSchemas: unknown): (route: { schema?: unknown }) => Serializer {
  const shared = (externalSchemas ?? {}) as Record<string, unknown>
  const sharedKey = Object.keys(shared).sort().join(',')
  return ({ schema: s }) => {
    const schema = s as { $id?: string }
    // A response schema that is itself one of the shared ones is compiled without its shared copy (as fastify does).
    const external = schema.$id !== undefined && schema.$id in shared ? Object.fromEntries(Object.entries(shared).filter(([id]) => id !== schema.$id)) : shared
    const get = once(serializers, `s:${sharedKey}:${JSON.stringify(schema)}`, () => fastJsonStringify(schema as never, { schema: external as never }) as Serializer)
    return (data) => get()(data)
  }
}

/**
 * Compiles every schema registered so far and not yet used, and answers how many: a broken one throws here (once)
 * rather than on its route's first request (test/int/api-docs.test.ts compiles every route's).
 */
export function compileEveryRoute (): number {
  const todo = [...pending]
  for (const [key, compile] of todo) {
    pending.delete(key)
    compile()
  }
  return todo.length
}
