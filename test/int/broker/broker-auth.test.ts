// The HTTP endpoints EMQX and VerneMQ ask about device logins and topic rights, called over real HTTP
// as the brokers call them, with devices created through the API.
import fc from 'fast-check'
import type { FastifyRequest } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createDevice, type Device } from '../../helpers/devices.js'
import { brokerAuthTransport } from '../../../ingest/broker-auth/broker-auth.transport.js'
import { createGuard } from '../../../ingest/broker-auth/guard.js'

const SECRET = 'broker-shared-secret'
const SERVICE = { username: 'fleet-service', password: 'service-pw' }

let stack: Stack
let d: Device

beforeAll(async () => {
  stack = await startStack({
    listen: true,
    // The service's account at the broker; no dynamic security here (EMQX and VerneMQ ask these endpoints).
    env: { BROKER_AUTH_SECRET: SECRET, MQTT_URL: `mqtt://${SERVICE.username}:${SERVICE.password}@127.0.0.1:1`, MQTT_DYNSEC: 'false' },
    transports: [brokerAuthTransport]
  })
  d = await createDevice(stack)
}, 180_000)
afterAll(async () => { await stack?.close() })

async function post (path: string, body: unknown, headers: Record<string, string> = { 'x-fleet-broker-secret': SECRET }): Promise<{ status: number, body: any }> {
  const res = await fetch(`${stack.httpUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
  return { status: res.status, body: await res.json() }
}

const emqxLogin = async (username: string, password: string): Promise<unknown> =>
  (await post('/broker/emqx/authn', { username, password, clientid: 'c1', peerhost: '10.1.2.3' })).body
const emqxAcl = async (username: string, topic: string, action: string): Promise<unknown> =>
  (await post('/broker/emqx/authz', { username, clientid: 'c1', topic, action })).body.result
const vmq = async (hook: string, body: unknown, byPath = false): Promise<unknown> =>
  (await post(byPath ? `/broker/vernemq/${hook}` : '/broker/vernemq', body, { 'x-fleet-broker-secret': SECRET, ...(byPath ? {} : { 'vernemq-hook': hook }) })).body

describe('who may call the endpoints', () => {
  it('refuses a request without the shared secret or with a wrong one: 403 missing.rights', async () => {
    const body = { username: d.serial, password: d.mqttPassword }
    expect(await post('/broker/emqx/authn', body, {})).toEqual({ status: 403, body: { error: 'missing.rights', errorParameters: ['broker'] } })
    expect((await post('/broker/emqx/authn', body, { 'x-fleet-broker-secret': 'wrong' })).status).toBe(403)
    expect((await post('/broker/vernemq/auth_on_register', body, { 'x-fleet-broker-secret': `${SECRET}x` })).status).toBe(403)
  })

  it('takes the secret in the query string too (VerneMQ sends no configured header)', async () => {
    const res = await post(`/broker/vernemq/auth_on_register?secret=${SECRET}`, { username: d.serial, password: d.mqttPassword, peer_addr: '10.0.0.1', client_id: 'x' }, {})
    expect(res).toEqual({ status: 200, body: { result: 'ok' } })
  })

  it('are not routed when neither a secret nor an allow-list is configured', async () => {
    const deps = { ...stack.service.transports[0], config: { ...stack.config, BROKER_AUTH_SECRET: undefined, BROKER_AUTH_ALLOW: undefined }, devices: stack.ctx.services.devices }
    const off = await brokerAuthTransport(deps as unknown as Parameters<typeof brokerAuthTransport>[0])
    expect(off.http).toBeUndefined()
  })

  it('checks the allow-list on the connection\'s address, IPv4 (also IPv4-mapped) and IPv6 ranges', () => {
    const guard = createGuard({ secret: undefined, allow: ['10.0.0.0/8', '192.168.1.7', 'fd00::/8'] })
    const from = (remoteAddress: string): FastifyRequest => ({ socket: { remoteAddress }, headers: {}, query: {} }) as unknown as FastifyRequest
    expect(['10.9.8.7', '::ffff:10.1.1.1', '192.168.1.7', 'fd00::1'].map((ip) => guard?.(from(ip)))).toEqual([true, true, true, true])
    expect(['11.0.0.1', '192.168.1.8', '::1', 'fe80::1', ''].map((ip) => guard?.(from(ip)))).toEqual([false, false, false, false, false])
    const both = createGuard({ secret: 's', allow: ['127.0.0.1'] })
    expect(both?.({ socket: { remoteAddress: '127.0.0.1' }, headers: {}, query: {} } as unknown as FastifyRequest)).toBe(false)
    expect(both?.({ socket: { remoteAddress: '127.0.0.1' }, headers: { 'x-fleet-broker-secret': 's' }, query: {} } as unknown as FastifyRequest)).toBe(true)
  })
})

describe('EMQX HTTP authenticator and authorizer', () => {
  it('allows a device by serial number or IMEI with its MQTT password; denies a wrong one; ignores an unknown login', async () => {
    expect(await emqxLogin(d.serial, d.mqttPassword ?? '')).toEqual({ result: 'allow', is_superuser: false })
    expect(await emqxLogin(d.imei, d.mqttPassword ?? '')).toEqual({ result: 'allow', is_superuser: false })
    expect(await emqxLogin(d.serial, 'wrong')).toEqual({ result: 'deny', is_superuser: false })
    expect(await emqxLogin(d.serial, d.restPassword ?? '')).toEqual({ result: 'deny', is_superuser: false })
    expect(await emqxLogin('NO-SUCH-DEVICE', 'x')).toEqual({ result: 'ignore', is_superuser: false })
    expect(await emqxLogin('+', 'x')).toEqual({ result: 'ignore', is_superuser: false })
  })

  it('the service\'s own account is a superuser with its password only', async () => {
    expect(await emqxLogin(SERVICE.username, SERVICE.password)).toEqual({ result: 'allow', is_superuser: true })
    expect(await emqxLogin(SERVICE.username, 'wrong')).toEqual({ result: 'deny', is_superuser: false })
    expect(await emqxAcl(SERVICE.username, '$share/ingest/+/messages/json', 'subscribe')).toBe('allow')
  })

  it('a system deleted cannot log in', async () => {
    const gone = await createDevice(stack)
    expect((await stack.call(stack.adminToken, { method: 'DELETE', url: `/api/v1/systems/${gone.uid}` })).statusCode).toBe(200)
    expect(await emqxLogin(gone.serial, gone.mqttPassword ?? '')).toEqual({ result: 'ignore', is_superuser: false })
  })

  it('authorizes a device under its own <login>/ only', async () => {
    expect(await emqxAcl(d.serial, `${d.serial}/messages/json`, 'publish')).toBe('allow')
    expect(await emqxAcl(d.imei, `${d.imei}/acks/json`, 'publish')).toBe('allow')
    expect(await emqxAcl(d.serial, `${d.serial}/#`, 'subscribe')).toBe('allow')
    expect(await emqxAcl(d.serial, `${d.serial}/+/json`, 'publish')).toBe('deny')
    expect(await emqxAcl(d.serial, 'OTHER/messages/json', 'publish')).toBe('deny')
    expect(await emqxAcl(d.serial, '+/tasks/json', 'subscribe')).toBe('deny')
    expect(await emqxAcl(d.serial, '#', 'subscribe')).toBe('deny')
    expect(await emqxAcl(d.serial, d.serial, 'publish')).toBe('deny')
    expect(await emqxAcl(d.serial, `${d.serial}/tasks/json`, 'all')).toBe('allow')
  })
})

describe('VerneMQ webhooks', () => {
  const register = (username: string, password: string): Record<string, unknown> =>
    ({ peer_addr: '10.0.0.1', peer_port: 5555, username, password, mountpoint: '', client_id: 'c', clean_session: true })

  it('auth_on_register: ok, next for an unknown login, not_allowed for a wrong password; by header or path; MQTT 5 too', async () => {
    expect(await vmq('auth_on_register', register(d.serial, d.mqttPassword ?? ''))).toEqual({ result: 'ok' })
    expect(await vmq('auth_on_register', register(d.imei, d.mqttPassword ?? ''), true)).toEqual({ result: 'ok' })
    expect(await vmq('auth_on_register_m5', register(d.serial, d.mqttPassword ?? ''))).toEqual({ result: 'ok' })
    expect(await vmq('auth_on_register', register(d.serial, 'wrong'))).toEqual({ result: { error: 'not_allowed' } })
    expect(await vmq('auth_on_register', register('NO-SUCH-DEVICE', 'x'))).toEqual({ result: 'next' })
    expect(await vmq('auth_on_register', { ...register(d.serial, ''), password: null })).toEqual({ result: { error: 'not_allowed' } })
  })

  it('auth_on_publish: only under the device\'s own <login>/', async () => {
    const pub = (topic: string): Record<string, unknown> => ({ username: d.serial, client_id: 'c', mountpoint: '', qos: 1, topic, payload: 'e30=', retain: false })
    expect(await vmq('auth_on_publish', pub(`${d.serial}/messages/json`))).toEqual({ result: 'ok' })
    expect(await vmq('auth_on_publish_m5', pub(`${d.serial}/acks/json`), true)).toEqual({ result: 'ok' })
    expect(await vmq('auth_on_publish', pub('OTHER/messages/json'))).toEqual({ result: { error: 'not_allowed' } })
  })

  it('auth_on_subscribe: all own filters ok; foreign ones refused with qos 128; none own: not_allowed', async () => {
    const sub = (...topics: string[]): Record<string, unknown> => ({ username: d.serial, client_id: 'c', mountpoint: '', topics: topics.map((topic) => ({ topic, qos: 1 })) })
    expect(await vmq('auth_on_subscribe', sub(`${d.serial}/tasks/json`, `${d.serial}/#`))).toEqual({ result: 'ok' })
    expect(await vmq('auth_on_subscribe', sub(`${d.serial}/tasks/json`, '#'))).toEqual({ result: 'ok', topics: [{ topic: `${d.serial}/tasks/json`, qos: 1 }, { topic: '#', qos: 128 }] })
    expect(await vmq('auth_on_subscribe_m5', sub('+/tasks/json'))).toEqual({ result: { error: 'not_allowed' } })
  })
})

describe('bad requests', () => {
  it('answer 400 request.invalid naming the field, never 500', async () => {
    expect(await post('/broker/emqx/authn', { password: 'x' })).toEqual({ status: 400, body: { error: 'request.invalid', errorParameters: ['username', 'a string'] } })
    expect((await post('/broker/emqx/authz', { username: 'a', topic: 'a/b', action: 'delete' })).body.errorParameters[0]).toBe('action')
    expect((await post('/broker/emqx/authn', [1, 2])).body.errorParameters[0]).toBe('body')
    expect((await post('/broker/vernemq', { username: 'a' })).body.errorParameters[0]).toBe('vernemq-hook')
    expect((await post('/broker/vernemq/not_a_hook', { username: 'a' })).status).toBe(400)
    expect((await post('/broker/vernemq/auth_on_subscribe', { username: 'a', topics: [{ qos: 1 }] })).body.errorParameters[0]).toBe('topics[0].topic')
    const raw = await fetch(`${stack.httpUrl}/broker/emqx/authn`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-fleet-broker-secret': SECRET }, body: '{"username":' })
    expect(raw.status).toBe(400)
  })

  it('any JSON body on any endpoint answers 200 or 400 (fuzz)', async () => {
    const paths = ['/broker/emqx/authn', '/broker/emqx/authz', '/broker/vernemq/auth_on_register', '/broker/vernemq/auth_on_publish', '/broker/vernemq/auth_on_subscribe_m5']
    const field = fc.oneof(fc.string(), fc.constant(d.serial), fc.constant(`${d.serial}/x`), fc.integer(), fc.constant(null), fc.array(fc.record({ topic: fc.oneof(fc.string(), fc.integer()), qos: fc.integer() })))
    const body = fc.oneof(fc.jsonValue(), fc.record({ username: field, password: field, topic: field, topics: field, action: fc.oneof(fc.constantFrom('publish', 'subscribe', 'all'), fc.string()), peerhost: field, peer_addr: field }, { requiredKeys: [] }))
    await fc.assert(fc.asyncProperty(fc.constantFrom(...paths), body, async (path, b) => {
      const headers = { 'content-type': 'application/json', 'x-fleet-broker-secret': SECRET }
      const res = await stack.api.inject({ method: 'POST', url: path, headers, payload: JSON.stringify(b) ?? 'null' })
      expect([200, 400]).toContain(res.statusCode)
    }), { numRuns: 300 })
  })
})

describe('the company\'s deviceIpFiltering', () => {
  it('applies to the address the broker sends (EMQX peerhost, VerneMQ peer_addr)', async () => {
    const filter = async (on: boolean): Promise<void> => {
      const res = await stack.call(stack.adminToken, {
        method: 'PUT',
        url: `/api/v1/company/${stack.companyUid}`,
        payload: { deviceIpFiltering: on, deviceIpFilters: { ipAddresses: ['10.7.7.7'], startIPAddress: null, endIPAddress: null } }
      })
      expect(res.statusCode).toBe(200)
    }
    const f = await createDevice(stack)
    await filter(true)
    try {
      const authn = async (peerhost: string): Promise<unknown> => (await post('/broker/emqx/authn', { username: f.serial, password: f.mqttPassword, peerhost })).body
      expect(await authn('10.7.7.7')).toEqual({ result: 'allow', is_superuser: false })
      expect(await authn('10.8.8.8')).toEqual({ result: 'deny', is_superuser: false })
      expect(await vmq('auth_on_register', { username: f.imei, password: f.mqttPassword, peer_addr: '10.8.8.8', client_id: 'c' })).toEqual({ result: { error: 'not_allowed' } })
      expect(await vmq('auth_on_register', { username: f.imei, password: f.mqttPassword, peer_addr: '::ffff:10.7.7.7', client_id: 'c' })).toEqual({ result: 'ok' })
    } finally { await filter(false) }
  })
})
