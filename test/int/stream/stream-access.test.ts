// GET /api/v1/stream: rights and tenancy exactly as the REST endpoints (docs/api.md,
// docs/api.md#using-the-api; docs/api.md#get-a-token, docs/api.md#using-the-api). The upgrade is an API call (token,
// context company); subscriptions need entities.systems.view; another company's systems never show, through uids, a
// label, criteria or after a transfer; a revoked token or a lost membership closes the stream with a code and a reason.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { COMPANY_NAME, startStack, type Stack } from '../../helpers/stack.js'
import { companyUid, seed } from '../../helpers/factories.js'
import { createDevice, deviceFetch, type Device } from '../../helpers/devices.js'
import { putSystem } from '../../helpers/systems.js'
import { started, waitFinished } from '../../helpers/operations.js'
import { sha256 } from '../../../core/security/secrets.js'
import { openStream, refusedUpgrade, streamUrl, type Json, type StreamClient } from '../../helpers/stream.js'
import { eventually } from '../../helpers/eventually.js'

const VIEW = 'entities.systems.view'
const OTHER = 'Stream Partner Co'
const STRANGER = 'Stream Stranger Co'
const PW = 'stream-password'

let stack: Stack
let other: string
let stranger: string
const tokens: Record<'viewer' | 'blind' | 'dual' | 'leaver', string> = { viewer: '', blind: '', dual: '', leaver: '' }
let leaverUid: string

beforeAll(async () => {
  stack = await startStack({ listen: true, env: { STREAM_RECHECK_MS: '200' } })
  await seed(stack, {
    companies: [{ name: COMPANY_NAME, partners: [OTHER] }, { name: OTHER }, { name: STRANGER }],
    profiles: [
      { company: COMPANY_NAME, name: 'viewers', rights: [VIEW] },
      { company: COMPANY_NAME, name: 'blind', rights: ['accountNetwork.users.view'] },
      { company: COMPANY_NAME, name: 'movers', rights: [VIEW, 'entities.systems.create', 'entities.systems.edit', 'entities.systems.transfers.create'] },
      { company: OTHER, name: 'makers', rights: [VIEW, 'entities.systems.create', 'entities.systems.edit'] }
    ],
    users: [
      { email: 'viewer@stream.test', name: 'Viewer', password: PW, companies: [{ company: COMPANY_NAME, profile: 'viewers' }] },
      { email: 'blind@stream.test', name: 'Blind', password: PW, companies: [{ company: COMPANY_NAME, profile: 'blind' }] },
      { email: 'dual@stream.test', name: 'Dual', password: PW, companies: [{ company: COMPANY_NAME, profile: 'movers' }, { company: OTHER, profile: 'makers' }] },
      { email: 'leaver@stream.test', name: 'Leaver', password: PW, companies: [{ company: STRANGER, profile: null }, { company: COMPANY_NAME, profile: 'viewers' }] }
    ]
  })
  other = await companyUid(stack, OTHER)
  stranger = await companyUid(stack, STRANGER)
  for (const who of ['viewer', 'blind', 'dual', 'leaver'] as const) tokens[who] = await stack.login(`${who}@stream.test`, PW)
  leaverUid = (await stack.call(tokens.leaver, { method: 'GET', url: '/api/v1/users/current' })).json().uid
}, 180_000) // a stack and five sign-ins (scrypt) take long on a loaded machine
afterAll(async () => { await stack.close() })

async function subscribe (c: StreamClient, command: Json): Promise<Json> {
  return await c.ask({ action: 'subscribe', ...command })
}

async function restData (d: Device, body: Json): Promise<void> {
  const res = await deviceFetch(stack, 'POST', '/device/messages', { user: d.serial, password: d.restPassword ?? '', body: JSON.stringify(body) })
  expect(res.status).toBe(200)
}

/** A stream of the stack's administrator following every system: it tells when an event has been delivered. */
async function witness (company?: string): Promise<StreamClient> {
  const w = await openStream(stack, company === undefined ? stack.adminToken : tokens.dual, company === undefined ? {} : { company })
  expect(await subscribe(w, { systems: { criteria: {} } })).toMatchObject({ event: 'subscribed' })
  return w
}

const pointOf = (uid: string, v?: number) => (m: Json): boolean => m.event === 'points' && m.system === uid && (v === undefined || m.v === v)

describe('the upgrade is an API call', () => {
  it('without a token, with an unknown one, or in a company the caller cannot enter: the API\'s HTTP error, no stream', async () => {
    expect(await refusedUpgrade(streamUrl(stack))).toMatchObject({ status: 401, body: { error: 'invalid_token' } })
    expect(await refusedUpgrade(streamUrl(stack), { authorization: 'Bearer not-a-token' })).toMatchObject({ status: 401, body: { error: 'invalid_token' } })
    expect(await refusedUpgrade(streamUrl(stack, `company=${stranger}`), { authorization: `Bearer ${tokens.viewer}` }))
      .toEqual({ status: 400, body: { error: 'partner.unknown', errorParameters: [stranger] } })
  })

  it('takes the token as the access_token query parameter (browsers cannot set headers on a WebSocket)', async () => {
    const c = await openStream(stack, tokens.viewer, { via: 'query' })
    expect(await subscribe(c, { systems: { criteria: {} } })).toMatchObject({ event: 'subscribed' })
    await c.close()
  })
})

describe('rights', () => {
  it('without entities.systems.view nothing about systems or operations: missing.rights', async () => {
    const c = await openStream(stack, tokens.blind)
    for (const command of [{ systems: { criteria: {} } }, { systems: { label: 'x' } }, { operations: { all: true } }]) {
      expect(await subscribe(c, command)).toMatchObject({ event: 'error', error: 'missing.rights', errorParameters: [VIEW] })
    }
    await c.close()
  })

  it('a right taken away while the stream is open stops its events', async () => {
    await seed(stack, { profiles: [{ company: COMPANY_NAME, name: 'fading', rights: [VIEW] }], users: [{ email: 'fading@stream.test', name: 'Fading', password: PW, companies: [{ company: COMPANY_NAME, profile: 'fading' }] }] })
    const c = await openStream(stack, await stack.login('fading@stream.test', PW))
    const d = await createDevice(stack)
    expect(await subscribe(c, { systems: { uids: [d.uid] } })).toMatchObject({ event: 'subscribed' })
    await restData(d, { v: 1 })
    await c.take(pointOf(d.uid, 1))
    await seed(stack, { profiles: [{ company: COMPANY_NAME, name: 'fading', rights: [] }] })
    // The stream checks again every STREAM_RECHECK_MS: once a new subscription is refused, the old one is silent.
    const refusal = await eventually(async () => {
      const answer = await subscribe(c, { systems: { uids: [d.uid] } })
      return answer.event === 'error' ? answer : undefined
    }, { timeoutMs: 10_000, intervalMs: 100, what: 'the right taken away to be seen by the stream' })
    expect(refusal.error).toBe('missing.rights')
    const w = await witness()
    await restData(d, { v: 2 })
    await w.take(pointOf(d.uid, 2))
    expect(c.received.filter(pointOf(d.uid, 2))).toEqual([])
    await c.close()
    await w.close()
  })
})

describe('tenancy', () => {
  it('another company\'s systems never show: by uid (system.unknown), by criteria, by a label both use', async () => {
    const mine = await createDevice(stack)
    const theirs = await createDevice(stack, { token: tokens.dual, company: other })
    expect((await putSystem(stack, mine.uid, { labels: ['shared'] })).statusCode).toBe(200)
    expect((await stack.call(tokens.dual, { method: 'PUT', url: `/api/v1/systems/${theirs.uid}?company=${other}`, payload: { labels: ['shared'] } })).statusCode).toBe(200)

    const c = await openStream(stack, tokens.viewer)
    expect(await subscribe(c, { systems: { uids: [theirs.uid] } })).toMatchObject({ event: 'error', error: 'system.unknown', errorParameters: [theirs.uid] })
    expect(await subscribe(c, { systems: { uids: [mine.uid, theirs.uid] } })).toMatchObject({ event: 'error', error: 'system.unknown', errorParameters: [theirs.uid] })
    expect(await subscribe(c, { systems: { criteria: { uid: theirs.uid } } })).toMatchObject({ event: 'subscribed', systems: 0 })
    expect(await subscribe(c, { systems: { criteria: { gateway: `serialNumber:${theirs.serial}` } } })).toMatchObject({ event: 'subscribed', systems: 0 })
    expect(await subscribe(c, { systems: { label: 'shared' } })).toMatchObject({ event: 'subscribed', systems: 1 })
    expect(await subscribe(c, { systems: { criteria: {} } })).toMatchObject({ event: 'subscribed', systems: null })
    expect(await subscribe(c, { operations: { all: true } })).toMatchObject({ event: 'subscribed' })
    // The partner's own stream (context company OTHER) sees its system, and nothing of ours.
    const partner = await witness(other)

    await restData(theirs, { v: 1 })
    await partner.take(pointOf(theirs.uid, 1))
    await restData(mine, { v: 2 })
    await c.take(pointOf(mine.uid, 2))
    await partner.take((m) => m.event === 'commStatus' && m.system === theirs.uid)
    expect(c.received.filter((m) => m.system === theirs.uid)).toEqual([])
    expect(partner.received.filter((m) => m.system === mine.uid)).toEqual([])
    await c.close()
    await partner.close()
  })

  it('a system transferred to a partner stops reaching the source company\'s streams and reaches the partner\'s', async () => {
    const d = await createDevice(stack)
    const source = await witness()
    const partner = await witness(other)
    const op = await started(stack.call(tokens.dual, { method: 'POST', url: '/api/v1/operations/systems/transfer', payload: { destination: other, systems: { uids: [d.uid] } } }))
    const done = await waitFinished(stack, op)
    expect(done.counters).toContainEqual({ state: 'SUCCESS', count: 1 })
    await restData(d, { v: 7 })
    expect(await partner.take(pointOf(d.uid))).toMatchObject({ system: d.uid, v: 7 })
    expect(source.received.filter((m) => m.system === d.uid)).toEqual([])
    await source.close()
    await partner.close()
  })
})

describe('the token and the membership are checked while the stream is open', () => {
  it('a revoked token closes the stream: 4401 invalid_token', async () => {
    const token = await stack.login('viewer@stream.test', PW)
    const c = await openStream(stack, token)
    expect((await stack.api.inject({ method: 'POST', url: `/api/oauth/expire?access_token=${token}` })).statusCode).toBe(200)
    const { code, reason } = await c.closed
    expect(code).toBe(4401)
    expect(reason).toMatch(/^invalid_token/)
    expect(reason).not.toContain(token)
  })

  it('a token that expires closes the stream: 4401 invalid_token', async () => {
    const token = await stack.login('viewer@stream.test', PW)
    const c = await openStream(stack, token)
    await stack.db.query('UPDATE tokens SET expires_at = $2 WHERE hash = $1', [sha256(token), Date.now()])
    const { code, reason } = await c.closed
    expect(code).toBe(4401)
    expect(reason).toMatch(/^invalid_token/)
  })

  it('a membership taken away closes the stream of that company: 4403 partner.unknown', async () => {
    const c = await openStream(stack, tokens.leaver, { company: stack.companyUid })
    expect(await subscribe(c, { systems: { criteria: {} } })).toMatchObject({ event: 'subscribed' })
    expect((await stack.call(stack.adminToken, { method: 'DELETE', url: `/api/v1/users/${leaverUid}` })).statusCode).toBe(200)
    const { code, reason } = await c.closed
    expect(code).toBe(4403)
    expect(reason).toMatch(/^partner\.unknown/)
  })
})
