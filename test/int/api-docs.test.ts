// OpenAPI 3 generated from the route schemas at /api/docs/json and Swagger UI at /api/docs (Foundation).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { Validator } from '@seriousme/openapi-schema-validator'
import { readSpec } from '../helpers/spec.js'
import { CLIENT_ID, CLIENT_SECRET, ADMIN_EMAIL, ADMIN_PASSWORD, startStack, type Stack } from '../helpers/stack.js'
import { createSystem, type Json } from '../helpers/systems.js'
import { postLabel, waitFinished } from '../helpers/operations.js'
import { insertUsage } from '../helpers/telemetry.js'
import { systemView, type System } from '../../core/domain/system.js'
import { operationView, taskView, type Operation, type Task } from '../../core/domain/operation.js'
import { compileEveryRoute } from '../../api/schema-compilers.js'

/** The endpoint rows of docs/api.md (`| GET | /api/v1/... | right |`), path parameters reduced to `{}`. */
function specEndpoints (): string[] {
  const rows = readSpec('fleet-api.md').matchAll(/^\| (GET|POST|PUT|DELETE) \| (\/api\/v1\/\S+) \|/gm)
  return [...rows].map((m) => `${m[1] ?? ''} ${(m[2] ?? '').replace(/\{[^}]+\}/g, '{}')}`)
}

let stack: Stack
let doc: Json
beforeAll(async () => {
  stack = await startStack()
  doc = (await stack.api.inject({ method: 'GET', url: '/api/docs/json' })).json()
})
afterAll(async () => { await stack.close() })

const METHODS = ['get', 'put', 'post', 'delete', 'patch']

/** Every operation of the document as [`METHOD /path`, operation]. */
function operations (): Array<[string, Json]> {
  return Object.entries(doc.paths as Record<string, Json>).flatMap(([path, ops]) =>
    Object.entries(ops).filter(([m]) => METHODS.includes(m)).map(([m, op]): [string, Json] => [`${m.toUpperCase()} ${path}`, op]))
}

// docs/api.md: these answer "an empty 200 response" (no body, so no media type); the sign-in form's POST answers a
// redirect (RFC 6749 §4.1.2), never 200.
const EMPTY_200 = ['DELETE /api/v1/systems/{uid}', 'DELETE /api/v1/users/{uid}', 'POST /api/v1/company/{uid}/picture',
  'POST /device/messages', 'POST /device/acks', 'PUT /api/v1/applications/{uid}/data', 'PUT /api/v1/applications/{uid}/communication',
  'DELETE /api/v1/applications/{uid}', 'DELETE /api/v2/alertrules/{id}', 'DELETE /api/v1/alerts/rules/{id}/hooks/{uid}']
const REDIRECTS = ['POST /api/oauth/authorize']
// docs/alerts.md#v1-rules: a 204, the answer the airvantage package can read for this DELETE.
const NO_CONTENT = ['DELETE /api/v1/alerts/rules/{id}']

/** The 200 body schema of an operation, for a media type. */
function responseSchema (route: string, status = '200', media = 'application/json'): Json {
  const [method = '', path = ''] = route.split(' ')
  const op = doc.paths[path]?.[method.toLowerCase()] as Json | undefined
  const schema = op?.responses?.[status]?.content?.[media]?.schema as Json | undefined
  if (schema === undefined) throw new Error(`no ${status} ${media} schema for ${route}`)
  return schema
}

/** Validates a real body with Ajv against the document's schema (its $refs resolve into the document's components). */
function expectValid (route: string, body: unknown, status = '200'): void {
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  const validate = ajv.compile({ ...responseSchema(route, status), components: doc.components })
  const ok = validate(body)
  expect(ok ? [] : validate.errors, `${route} ${status}: ${JSON.stringify(body).slice(0, 300)}`).toEqual([])
}

describe('API documentation', () => {
  it('serves an OpenAPI 3 document, open to all, naming every endpoint of the spec tables built so far', async () => {
    const res = await stack.api.inject({ method: 'GET', url: '/api/docs/json' })
    expect(res.statusCode, res.body).toBe(200)
    const doc: Json = res.json()
    expect(doc.openapi).toMatch(/^3\./)
    const documented = new Set(Object.entries(doc.paths as Record<string, Json>).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`)))
    const expected = specEndpoints()
    expect(expected.length).toBeGreaterThan(20)
    expect(expected.filter((e) => !documented.has(e))).toEqual([])
    for (const e of ['POST /api/oauth/token', 'POST /device/messages', 'GET /device/tasks', 'POST /api/v1/operations/systems/label', 'GET /api/v1/operations/{}']) {
      expect(documented).toContain(e)
    }
    expect(doc.components.securitySchemes).toMatchObject({ bearer: { scheme: 'bearer' }, basic: { scheme: 'basic' } })
  })

  it('compiles the validators and serializers of every route without error, though a route compiles its own on first use', () => {
    // api/schema-compilers.ts: a broken schema throws here instead of answering 500 to a route's first caller.
    expect(() => compileEveryRoute()).not.toThrow()
    expect(compileEveryRoute()).toBe(0)
  })

  it('is a valid OpenAPI 3.1 document (checked against the specification\'s schema)', async () => {
    const result = await new Validator().validate(structuredClone(doc))
    expect(result.errors ?? [], JSON.stringify(result.errors)?.slice(0, 2000)).toEqual([])
    expect(result.valid).toBe(true)
  })

  it('describes every operation: summary, description, tags, a 200 with a schema, the shared error bodies', async () => {
    const ops = operations()
    expect(ops.length).toBeGreaterThan(40)
    const problems: string[] = []
    for (const [route, op] of ops) {
      if (typeof op.summary !== 'string' || op.summary === '') problems.push(`${route}: no summary`)
      if (typeof op.description !== 'string' || op.description === '') problems.push(`${route}: no description`)
      if (!Array.isArray(op.tags) || op.tags.length === 0) problems.push(`${route}: no tag`)
      const responses = op.responses as Record<string, Json>
      if (REDIRECTS.includes(route)) {
        if (responses['302']?.headers?.location === undefined) problems.push(`${route}: no 302 with Location`)
        continue
      }
      if (NO_CONTENT.includes(route)) {
        if (responses['204'] === undefined || responses['204'].content !== undefined) problems.push(`${route}: no 204 without content`)
        continue
      }
      const ok = responses['200']
      if (ok === undefined) { problems.push(`${route}: no 200`); continue }
      if (EMPTY_200.includes(route)) {
        if (ok.content !== undefined || !/empty/i.test(String(ok.description))) problems.push(`${route}: 200 is not documented as empty`)
        continue
      }
      const schemas = Object.values((ok.content ?? {}) as Record<string, Json>).map((m) => m.schema as Json | undefined)
      if (schemas.length === 0 || schemas.some((s) => s === undefined || Object.keys(s).length === 0)) {
        problems.push(`${route}: 200 has no schema`)
      } else if (schemas.some((s) => s?.type === 'object' && s.properties === undefined && s.additionalProperties === true && s.patternProperties === undefined)) {
        problems.push(`${route}: 200 is an open object with no fields`)
      }
      // docs/api.md#using-the-api: the API's error answers reference one shared component.
      if (route.includes(' /api/v1/')) {
        for (const status of ['400', '401', '403', '404', '429', '500', '503']) {
          const ref = responses[status]?.content?.['application/json']?.schema?.$ref as string | undefined
          const want = status === '401' ? '#/components/schemas/TokenError' : '#/components/schemas/ErrorBody'
          if (ref !== want) problems.push(`${route}: ${status} is not ${want}`)
        }
      }
    }
    expect(problems).toEqual([])
    // The document is the user's reference: it never sends them to documents a clone of the service does not have.
    expect(JSON.stringify(doc)).not.toMatch(/fleet-api\.md|conventions\.md|shared\/spec/)
    // Client generators name their methods after operationId: present and unique.
    const ids = ops.map(([, op]) => op.operationId as unknown)
    expect(ids.filter((id) => typeof id !== 'string')).toEqual([])
    expect(new Set(ids).size).toBe(ids.length)
    expect(doc.paths['/api/v1/systems/{uid}'].get.operationId).toBe('getSystemsByUid')
    expect(doc.components.schemas.ErrorBody).toMatchObject({ properties: { error: { type: 'string' }, errorParameters: { type: 'array' } } })
    expect(doc.components.schemas.TokenError).toMatchObject({ properties: { error: { type: 'string' }, error_description: { type: 'string' } } })
  })

  it('describes every parameter and shows the allowed values', async () => {
    const params = operations().flatMap(([route, op]) => ((op.parameters ?? []) as Json[]).map((p): [string, Json] => [route, p]))
    expect(params.length).toBeGreaterThan(150)
    expect(params.filter(([, p]) => typeof p.description !== 'string' || p.description === '').map(([r, p]) => `${r} ${String(p.in)} ${String(p.name)}`)).toEqual([])
    const param = (route: string, name: string): Json => {
      const found = params.find(([r, p]) => r === route && p.name === name)
      if (found === undefined) throw new Error(`no parameter ${name} on ${route}`)
      return found[1]
    }
    // Allowed values the service checks itself are shown in the document only (api/openapi.ts: x-allowed).
    expect(param('GET /api/v1/systems/data/aggregated', 'fn').schema).toMatchObject({ enum: expect.arrayContaining(['mean', 'min', 'max', 'sum', 'stddev', 'ss', 'cnt']), default: 'mean' })
    expect(param('GET /api/v1/systems/data/aggregated', 'interval').schema).toMatchObject({ pattern: expect.any(String), default: '1hour' })
    expect(param('GET /api/v1/systems', 'lifeCycleStates').schema.anyOf[1]).toMatchObject({ items: { enum: ['INVENTORY', 'ACTIVE', 'TEST_READY', 'SUSPENDED', 'RETIRED'] } })
    expect(param('GET /api/v1/systems', 'size').schema).toMatchObject({ minimum: 0, maximum: 500, default: 100 })
    expect(param('GET /api/v1/systems', 'offset').schema).toMatchObject({ minimum: 0, default: 0 })
    expect(param('GET /api/oauth/token', 'grant_type').schema).toMatchObject({ enum: expect.arrayContaining(['password', 'client_credentials']) })
    expect(JSON.stringify(doc)).not.toContain('x-allowed')
    // ...and validation still leaves them to the service: its own code, not a schema error.
    const bad = await stack.call(stack.adminToken, { method: 'GET', url: '/api/v1/systems/data/aggregated?targetIds=x&dataIds=y&interval=99hour' })
    expect(bad.json()).toMatchObject({ error: 'aggregation.invalid.multiplier' })
    const big = await stack.call(stack.adminToken, { method: 'GET', url: '/api/v1/systems?size=501' })
    expect(big.statusCode).toBe(200)
    expect(big.json()).toMatchObject({ offset: 0 })
  })

  it('documents the usage record endpoints (issue 11), whose answers match their schemas', async () => {
    const s = await createSystem(stack, { name: 'usage-doc' })
    await insertUsage(stack.db, s.uid, { uid: 'u1', type: 'DATA', start: 1767225600000, end: 1767229200000, bytesTotal: 5, roundedBytesTotal: 1024 })
    await insertUsage(stack.db, s.uid, { uid: 'u2', type: 'VOICE_OUT', start: 1767225600001, end: 1767225660001, roundedDuration: 60 })
    const body = async (url: string): Promise<unknown> => (await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${url}` })).json()
    const q = 'from=1767225600000&to=1767312000000'
    expectValid('GET /api/v1/systems/{uid}/usages/records', await body(`${s.uid}/usages/records?${q}`))
    expectValid('GET /api/v1/systems/usages/records', await body(`usages/records?targetIds=${s.uid}&${q}`))
    expectValid('GET /api/v1/systems/{uid}/usages/records/{recordUid}', await body(`${s.uid}/usages/records/u1`))
    expect(doc.paths['/api/v1/operations/systems/usages/import']?.post).toBeDefined()
  })

  it('gives request bodies examples', async () => {
    for (const route of ['POST /api/v1/systems', 'PUT /api/v1/systems/{uid}', 'POST /api/v1/operations/systems/label', 'POST /api/v1/operations/systems/delete',
      'POST /api/v1/applications', 'PUT /api/v1/company/{uid}', 'POST /device/messages', 'POST /device/acks']) {
      const [method = '', path = ''] = route.split(' ')
      const media = Object.values(doc.paths[path][method.toLowerCase()].requestBody.content as Record<string, Json>)[0] ?? {}
      expect(media.example ?? media.examples ?? media.schema?.examples, route).toBeDefined()
    }
    for (const path of ['/api/v1/systems/{uid}', '/api/v1/operations/{uid}', '/api/v1/operations', '/api/v1/users/current']) {
      expect(doc.paths[path].get.responses['200'].content['application/json'].example, path).toBeDefined()
    }
    // An example is only worth its accuracy: each validates against the schema it illustrates.
    const illustrated = operations().filter(([, op]) => op.responses?.['200']?.content?.['application/json']?.example !== undefined)
    expect(illustrated.length).toBeGreaterThan(15)
    for (const [route, op] of illustrated) expectValid(route, op.responses['200'].content['application/json'].example)
    for (const [route, op] of operations()) {
      for (const [type, media] of Object.entries((op.requestBody?.content ?? {}) as Record<string, Json>)) {
        if (media.example === undefined) continue
        const validate = new Ajv2020({ strict: false, allErrors: true }).compile({ ...media.schema, components: doc.components })
        expect(validate(media.example) ? [] : validate.errors, `${route} ${type} example`).toEqual([])
      }
    }
  })

  it('declares OAuth 2 with the password and client credentials flows, beside pasted bearer tokens and device Basic', async () => {
    expect(doc.components.securitySchemes.oauth2).toMatchObject({
      type: 'oauth2',
      flows: { password: { tokenUrl: '/api/oauth/token' }, clientCredentials: { tokenUrl: '/api/oauth/token' } }
    })
    expect(doc.security).toEqual(expect.arrayContaining([{ oauth2: [] }, { bearer: [] }]))
    expect(doc.paths['/device/tasks'].get.security).toEqual([{ basic: [] }])
    expect(doc.paths['/api/oauth/token'].post.security).toEqual([])
  })

  it('the Authorize button of Swagger UI gets a token through both flows (form body, client in HTTP Basic)', async () => {
    const basic = `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`
    const form = { 'content-type': 'application/x-www-form-urlencoded', authorization: basic }
    for (const payload of [
      new URLSearchParams({ grant_type: 'password', username: ADMIN_EMAIL, password: ADMIN_PASSWORD, scope: '' }).toString(),
      new URLSearchParams({ grant_type: 'client_credentials', scope: '' }).toString()
    ]) {
      const res = await stack.api.inject({ method: 'POST', url: doc.components.securitySchemes.oauth2.flows.password.tokenUrl, headers: form, payload })
      expect(res.statusCode, res.body).toBe(200)
      expectValid('POST /api/oauth/token', res.json())
      const me = await stack.call(res.json().access_token as string, { method: 'GET', url: '/api/v1/users/current' })
      expect(me.statusCode).toBe(200)
    }
    const refused = await stack.api.inject({ method: 'POST', url: '/api/oauth/token', headers: form, payload: 'grant_type=password&username=nobody%40x.y&password=wrong' })
    expect(refused.statusCode).toBeGreaterThanOrEqual(400)
    expectValid('POST /api/oauth/token', refused.json(), String(refused.statusCode))
  })

  it('real answers validate against the documented schemas', async () => {
    const get = async (url: string): Promise<Json> => {
      const res = await stack.call(stack.adminToken, { method: 'GET', url })
      expect(res.statusCode, res.body).toBe(200)
      return res.json()
    }
    expectValid('GET /api/v1/users/current', await get('/api/v1/users/current'))
    const system = await createSystem(stack, {
      name: 'documented',
      labels: ['docs'],
      metadata: { k: 'v' },
      gateway: { imei: '356938035643809', serialNumber: 'DOC-1' },
      subscription: { identifier: '89330123456789012399', operator: 'UNKNOWN', formFactor: '4FF' },
      communication: { mqtt: { password: 'device-secret' }, msci: { host: 'h', user: 'u', password: 'p' } }
    })
    const listed = await get('/api/v1/systems')
    expect(listed.items.length).toBeGreaterThan(0)
    // Nothing the service answers is dropped by the response schema: the list item is the whole System.
    expect(listed.items.find((s: Json) => s.uid === system.uid)).toMatchObject({ gateway: { serialNumber: 'DOC-1' }, metadata: { k: 'v' }, data: { rssiLevel: 'NO_REPORT' } })
    expectValid('GET /api/v1/systems', listed)
    expectValid('GET /api/v1/systems', await get('/api/v1/systems?fields=uid,name,gateway'))
    const details = await get(`/api/v1/systems/${system.uid as string}`)
    expect(Object.keys(details).sort()).toEqual(Object.keys(responseSchema('GET /api/v1/systems/{uid}').properties as Json).sort())
    expectValid('GET /api/v1/systems/{uid}', details)

    const label = await postLabel(stack, { labels: { add: ['documented'] }, criteria: { uids: [system.uid] } })
    expect(label.statusCode, label.body).toBe(200)
    expectValid('POST /api/v1/operations/systems/label', label.json())
    const uid = label.json().operation as string
    await waitFinished(stack, uid)
    const operation = await get(`/api/v1/operations/${uid}`)
    expect(Object.keys(operation).sort()).toEqual(Object.keys(responseSchema('GET /api/v1/operations/{uid}').properties as Json).sort())
    expectValid('GET /api/v1/operations/{uid}', operation)
    expectValid('GET /api/v1/operations', await get('/api/v1/operations'))
    expectValid('GET /api/v1/operations/{uid}/tasks', await get(`/api/v1/operations/${uid}/tasks`))

    const unknown = await stack.call(stack.adminToken, { method: 'GET', url: '/api/v1/systems/nope' })
    expect(unknown.statusCode).toBe(400)
    expectValid('GET /api/v1/systems/{uid}', unknown.json(), '400')
    const anonymous = await stack.api.inject({ method: 'GET', url: '/api/v1/systems' })
    expect(anonymous.statusCode).toBe(401)
    expectValid('GET /api/v1/systems', anonymous.json(), '401')
  })

  // Fastify serializes through the response schema and drops what it does not list: a field added to a view of the
  // domain must be added to the document too, or callers never see it.
  it('documents every field the domain views answer (nothing is dropped by the serializer)', async () => {
    const gateway = { uid: 'g', imei: '1', macAddress: null, serialNumber: 's', type: null, creationDate: 1, companyUid: 'c', esn: null, meid: null, state: 'INVENTORY', transferTo: null }
    const subscription = {
      uid: 'u', identifier: 'i', mobileNumber: null, networkIdentifier: null, ipAddress: null, requestedIp: null, eid: null, operator: 'UNKNOWN', state: 'ACTIVE', appletGeneration: null, formFactor: null, confType: null, technology: null, orderId: null, productRefName: null, activationImei: null, imeiLock: { imeiLock: true, imeiLockDate: 1, imeiUnlockedDate: null }, companyUid: 'c', operatorAccountUid: null, creationDate: 1
    }
    const system = {
      uid: 's', companyUid: 'c', name: 'n', type: null, lifeCycleState: 'ACTIVE', state: 'DEPLOYED', activityState: 'ACTIVATED', creationDate: 1, activationDate: 2, lastStateChangeDate: 2, lastCommDate: 3, commStatus: 'OK', lastSyncDate: null, syncStatus: 'NOT_SYNC', labels: ['l'], gateway, subscription, applications: [{ uid: 'a', name: 'n', revision: '1', type: 't', category: 'SOFTWARE' }], metadata: { k: 'v' }, communication: { msci: { host: 'h', user: 'u', password: 'p' }, m3da: { registrationPassword: 'r', password: 'p' }, rest: { password: 'p' }, mqtt: { password: 'p' } }, data: { rssi: -70, rssiLevel: 'VERY_GOOD' }, heartbeat: null, statusReport: null, reports: [], offer: { uid: 'o', companyUid: 'c', name: 'n', limit: 10, types: [] }, lastAppliedTemplate: null, lastConfigName: null, monthBytesTotal: 0, monthBytesTime: null, usageStatus: 'WITHIN_PLAN'
    } as unknown as System
    const operation = {
      uid: 'o', companyUid: 'c', type: 'SYSTEM_LABEL', state: 'FINISHED', createdAt: 1, startDate: 1, scheduledTime: null, timeoutDate: 2, endDate: 2, cancelDate: null, total: 1, target: null, userUid: 'u', userEmail: 'e', notify: false, callback: 'http://h/x', parameters: {}, dependsOn: { operation: 'p', states: ['SUCCESS'] }, resolved: true
    } as Operation
    const task = { uid: 't', operationUid: 'o', seq: 0, systemUid: 's', systemName: 'n', state: 'FAILURE', createdAt: 1, startDate: 1, endDate: 2, errorCode: 'x', errorMessage: 'y', line: 3, params: null } as Task
    expectValid('GET /api/v1/systems/{uid}', systemView(system, Date.now()))
    expectValid('GET /api/v1/operations/{uid}', operationView(operation, { SUCCESS: 1 }))
    expectValid('GET /api/v1/operations/{uid}/tasks', { items: [taskView(task)], count: 1, size: 1, offset: 0 })
    const undocumented = (value: unknown, schema: Json | undefined, path: string): string[] => {
      if (schema === undefined) return [path]
      if (Array.isArray(schema.anyOf)) return (schema.anyOf as Json[]).map((s) => undocumented(value, s, path)).reduce((a, b) => a.length <= b.length ? a : b)
      if (Array.isArray(value)) return value.flatMap((v, i) => undocumented(v, schema.items as Json | undefined, `${path}[${i}]`))
      if (value === null || typeof value !== 'object' || schema.additionalProperties === true || schema.patternProperties !== undefined) return []
      const other = typeof schema.additionalProperties === 'object' ? schema.additionalProperties as Json : undefined
      return Object.entries(value).flatMap(([k, v]) => undocumented(v, (schema.properties as Json | undefined)?.[k] ?? other, `${path}.${k}`))
    }
    expect(undocumented(systemView(system, Date.now()), responseSchema('GET /api/v1/systems/{uid}'), 'system')).toEqual([])
    expect(undocumented(operationView(operation, {}), responseSchema('GET /api/v1/operations/{uid}'), 'operation')).toEqual([])
    expect(undocumented(taskView(task), responseSchema('GET /api/v1/operations/{uid}/tasks').properties.items.items, 'task')).toEqual([])
  })

  it('serves Swagger UI at /api/docs, and the document in YAML too', async () => {
    const res = await stack.api.inject({ method: 'GET', url: '/api/docs/' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/text\/html/)
    const yaml = await stack.api.inject({ method: 'GET', url: '/api/docs/yaml' })
    expect(yaml.statusCode).toBe(200)
    expect(yaml.body).toMatch(/^openapi: 3\.1\.0$/m)
  })
})
