// The route schemas' compilers (api/schema-compilers.ts): compiled on first use, once per process for one content,
// with the options of the validators they replace, and every pending one compiled on demand.
import { describe, expect, it } from 'vitest'
import { compileEveryRoute, lazySerializers, lazyValidator } from '../../api/schema-compilers.js'

const route = { method: 'GET', url: '/x' }
// A schema of its own per test (a random enum value): another test's compiled copy would answer from the cache.
const fresh = (): string => `v${Math.random().toString(36).slice(2)}`

describe('lazyValidator', () => {
  it('coerces query values to their types and answers Ajv errors after a refusal', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer' }, tag: { type: 'string', enum: [fresh(), 'a'] } } }
    const validate = lazyValidator({ ...route, schema, httpPart: 'querystring' })
    const query: Record<string, unknown> = { n: '12', tag: 'a' }
    expect(validate(query)).toBe(true)
    expect(query.n).toBe(12)
    expect(validate({ n: 'twelve' })).toBe(false)
    expect(validate.errors?.[0]).toMatchObject({ instancePath: '/n', keyword: 'type' })
  })

  it('never coerces a JSON body', () => {
    const schema = { type: 'object', properties: { s: { type: ['string', 'null'] }, k: { const: fresh() } } }
    const validate = lazyValidator({ ...route, schema, httpPart: 'body' })
    const body = { s: null }
    expect(validate(body)).toBe(true)
    expect(body.s).toBeNull()
    expect(validate({ s: 5 })).toBe(false)
  })

  it('marks itself as an Ajv function, so that fastify hands it the parent of the value', () => {
    const validate = lazyValidator({ ...route, schema: { type: 'integer', minimum: 0, maximum: 1, description: fresh() }, httpPart: 'params' })
    expect((validate as unknown as { schemaEnv: unknown }).schemaEnv).toBeTruthy()
  })

  it('compiles one content once, though given as another object', () => {
    const tag = fresh()
    const a = lazyValidator({ ...route, schema: { type: 'object', properties: { t: { const: tag } } }, httpPart: 'body' })
    expect(compileEveryRoute()).toBeGreaterThanOrEqual(1)
    const b = lazyValidator({ ...route, schema: { type: 'object', properties: { t: { const: tag } } }, httpPart: 'body' })
    expect(compileEveryRoute()).toBe(0)
    expect(a({ t: tag })).toBe(true)
    expect(b({ t: 'other' })).toBe(false)
  })
})

describe('lazySerializers', () => {
  it('serializes with the response schema, its shared schemas resolved', () => {
    const build = lazySerializers({ Shared: { $id: 'Shared', type: 'object', properties: { code: { type: 'string' } } } })
    const serialize = build({ schema: { type: 'object', description: fresh(), properties: { error: { $ref: 'Shared#' }, n: { type: 'integer' } } } })
    expect(JSON.parse(serialize({ error: { code: 'x', secret: 's' }, n: 3, extra: true }))).toEqual({ error: { code: 'x' }, n: 3 })
  })
})

describe('compileEveryRoute', () => {
  it('compiles what was registered and never used, once', () => {
    const serialize = lazySerializers(undefined)({ schema: { type: 'string', description: fresh() } })
    expect(compileEveryRoute()).toBe(1)
    expect(compileEveryRoute()).toBe(0)
    expect(serialize('a')).toBe('"a"')
  })

  it('throws for a broken schema before its route is ever called', () => {
    const validate = lazyValidator({ ...route, schema: { type: 'no-such-type', description: fresh() }, httpPart: 'body' })
    expect(() => compileEveryRoute()).toThrow(/type/)
    expect(() => validate({})).toThrow()
  })
})
