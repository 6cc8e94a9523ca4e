// DELETE /api/v1/systems/{uid}, GET /api/v1/systems/{uid} and GET /api/v1/systems/{uid}/network/options
// (docs/api.md#systems, docs/api.md#using-the-api row "delete, details, options").
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { COMPANY_NAME, startStack, type Stack } from '../../helpers/stack.js'
import { createUser, seed, uniq, type TestUser } from '../../helpers/factories.js'
import { countRows, createSystem, expectError, OTHER_COMPANY, seedCatalogue, validImei, type Json } from '../../helpers/systems.js'

let stack: Stack
let other: TestUser
let n = 2000
const imei = (): string => validImei(++n)

beforeAll(async () => {
  stack = await startStack()
  await seedCatalogue(stack)
  other = await createUser(stack, { company: OTHER_COMPANY, rights: ['entities.systems.create', 'entities.systems.view', 'entities.systems.delete'] })
})
afterAll(async () => { await stack.close() })

const del = async (uid: string, query = '', token = stack.adminToken) =>
  await stack.call(token, { method: 'DELETE', url: `/api/v1/systems/${uid}${query}` })

const exists = async (table: string, uid: string): Promise<boolean> =>
  (await stack.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE uid = $1`, [uid])).rows[0]?.n === 1

async function system (): Promise<Json> {
  return await createSystem(stack, { gateway: { imei: imei(), serialNumber: uniq('SN') }, subscription: { identifier: uniq('8933'), operator: 'ORANGE' } })
}

describe('delete', () => {
  it('answers an empty 200 and keeps gateway and subscription by default; they can join a new system', async () => {
    const s = await system()
    const res = await del(s.uid)
    expect(res.statusCode).toBe(200)
    expect(res.body).toBe('')
    expect(await exists('systems', s.uid)).toBe(false)
    expect(await exists('gateways', s.gateway.uid)).toBe(true)
    expect(await exists('subscriptions', s.subscription.uid)).toBe(true)
    expectError(await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${s.uid as string}` }), 'system.unknown')
    const again = await createSystem(stack, { name: 'again', gateway: { uid: s.gateway.uid }, subscription: { uid: s.subscription.uid } })
    expect(again.gateway).toEqual(s.gateway)
    expect(again.subscription).toEqual(s.subscription)
  })

  it('keeps them with deleteGateway=false&deleteSubscription=false', async () => {
    const s = await system()
    expect((await del(s.uid, '?deleteGateway=false&deleteSubscription=false')).statusCode).toBe(200)
    expect(await exists('gateways', s.gateway.uid)).toBe(true)
    expect(await exists('subscriptions', s.subscription.uid)).toBe(true)
  })

  it('removes the gateway and the subscription when asked', async () => {
    const s = await system()
    const before = await countRows(stack)
    expect((await del(s.uid, '?deleteGateway=true&deleteSubscription=true')).statusCode).toBe(200)
    expect(await exists('gateways', s.gateway.uid)).toBe(false)
    expect(await exists('subscriptions', s.subscription.uid)).toBe(false)
    expect(await countRows(stack)).toMatchObject({ systems: before.systems - 1, gateways: before.gateways - 1, subscriptions: before.subscriptions - 1 })
    const t = await system()
    expect((await del(t.uid, '?deleteGateway=true')).statusCode).toBe(200)
    expect(await exists('gateways', t.gateway.uid)).toBe(false)
    expect(await exists('subscriptions', t.subscription.uid)).toBe(true)
  })

  it('frees the device logins of the deleted system for any company', async () => {
    const s = await system()
    await del(s.uid, '?deleteGateway=true')
    const theirs = await createSystem(stack, { gateway: { serialNumber: s.gateway.serialNumber } }, { token: other.token })
    expect(theirs.gateway.serialNumber).toBe(s.gateway.serialNumber)
  })

  it('refuses an unknown system, and one of another company: system.unknown', async () => {
    expectError(await del('no-such-system'), 'system.unknown')
    const theirs = await createSystem(stack, { name: 'theirs' }, { token: other.token })
    const before = await countRows(stack)
    expectError(await del(theirs.uid), 'system.unknown')
    expect(await countRows(stack)).toEqual(before)
  })

  it('refuses a caller without entities.systems.delete: 403', async () => {
    const s = await system()
    const user = await createUser(stack, { rights: ['entities.systems.view'] })
    const res = await del(s.uid, '', user.token)
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({ error: 'missing.rights', errorParameters: ['entities.systems.delete'] })
    expect(await exists('systems', s.uid)).toBe(true)
  })
})

describe('details', () => {
  it('answers the System of the company and system.unknown for another company\'s', async () => {
    const s = await system()
    const res = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${s.uid as string}` })
    expect(res.json()).toEqual(s)
    expectError(await stack.call(other.token, { method: 'GET', url: `/api/v1/systems/${s.uid as string}` }), 'system.unknown')
    expectError(await stack.call(stack.adminToken, { method: 'GET', url: '/api/v1/systems/no-such-system' }), 'system.unknown')
  })
})

describe('options', () => {
  it('lists the active options of a seeded system as {type, uid, name, config?}', async () => {
    const name = uniq('with-options')
    await seed(stack, {
      options: [{ company: COMPANY_NAME, type: 'SERVICE', name: 'SMS' }],
      systems: [{
        company: COMPANY_NAME,
        name,
        options: [{ type: 'ROAMING', name: 'Europe' }, { type: 'GENERAL', name: 'LTE' }, { type: 'SERVICE', name: 'APN' }, { type: 'SERVICE', name: 'SMS' }]
      }]
    })
    const { rows } = await stack.db.query<{ uid: string }>('SELECT uid FROM systems WHERE name = $1', [name])
    const uid = rows[0]?.uid ?? ''
    const opts = await stack.db.query<{ uid: string, name: string }>('SELECT uid, name FROM options')
    const optUid = (o: string): string => opts.rows.find((r) => r.name === o)?.uid ?? ''
    await stack.db.query('UPDATE system_options SET active = false WHERE system_uid = $1 AND option_uid = $2', [uid, optUid('SMS')])
    const res = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${uid}/network/options` })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual([
      { type: 'GENERAL', uid: optUid('LTE'), name: 'LTE', config: 'DATA_ONLY' },
      { type: 'ROAMING', uid: optUid('Europe'), name: 'Europe' },
      { type: 'SERVICE', uid: optUid('APN'), name: 'APN', config: 'STATIC_IP' }
    ])
  })

  it('answers an empty array for a system without options', async () => {
    const s = await system()
    const res = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${s.uid as string}/network/options` })
    expect(res.json()).toEqual([])
  })

  it('refuses an unknown system, and one of another company: system.unknown', async () => {
    const s = await system()
    expectError(await stack.call(stack.adminToken, { method: 'GET', url: '/api/v1/systems/no-such-system/network/options' }), 'system.unknown')
    expectError(await stack.call(other.token, { method: 'GET', url: `/api/v1/systems/${s.uid as string}/network/options` }), 'system.unknown')
  })
})
