// OpenAPI 3 generated from the route schemas at /api/docs/json and Swagger UI at /api/docs (issue: Foundation).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readSpec } from '../helpers/spec.js'
import { startStack, type Stack } from '../helpers/stack.js'
import type { Json } from '../helpers/systems.js'

/** The endpoint rows of fleet-api.md (`| GET | /api/v1/... | right |`), path parameters reduced to `{}`. */
function specEndpoints (): string[] {
  const rows = readSpec('fleet-api.md').matchAll(/^\| (GET|POST|PUT|DELETE) \| (\/api\/v1\/\S+) \|/gm)
  return [...rows].map((m) => `${m[1] ?? ''} ${(m[2] ?? '').replace(/\{[^}]+\}/g, '{}')}`)
}

let stack: Stack
beforeAll(async () => { stack = await startStack() })
afterAll(async () => { await stack.close() })

describe('API documentation', () => {
  it('serves an OpenAPI 3 document, open to all, naming every endpoint of the spec tables built so far', async () => {
    const res = await stack.api.inject({ method: 'GET', url: '/api/docs/json' })
    expect(res.statusCode, res.body).toBe(200)
    const doc: Json = res.json()
    expect(doc.openapi).toMatch(/^3\./)
    const documented = new Set(Object.entries(doc.paths as Record<string, Json>).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`)))
    // Usage records come with their own issue.
    const expected = specEndpoints().filter((e) => !e.includes('/usages/'))
    expect(expected.length).toBeGreaterThan(20)
    expect(expected.filter((e) => !documented.has(e))).toEqual([])
    for (const e of ['POST /api/oauth/token', 'POST /device/messages', 'GET /device/tasks', 'POST /api/v1/operations/systems/label', 'GET /api/v1/operations/{}']) {
      expect(documented).toContain(e)
    }
    expect(doc.components.securitySchemes).toMatchObject({ bearer: { scheme: 'bearer' }, basic: { scheme: 'basic' } })
  })

  it('serves Swagger UI at /api/docs', async () => {
    const res = await stack.api.inject({ method: 'GET', url: '/api/docs/' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/text\/html/)
  })
})
