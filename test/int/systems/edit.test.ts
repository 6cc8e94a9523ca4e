// PUT /api/v1/systems/{uid} (docs/api.md#systems, docs/api.md#using-the-api row "edit system").
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createUser, uniq, type TestUser } from '../../helpers/factories.js'
import {
  appUid, countRows, createSystem, expectError, getSystem, OTHER_COMPANY, putSystem, seedCatalogue, validImei,
  type Body, type Catalogue, type Json
} from '../../helpers/systems.js'

let stack: Stack
let cat: Catalogue
let other: TestUser
let n = 1000
const imei = (): string => validImei(++n)
const serial = (): string => uniq('SN')
const iccid = (): string => uniq('8933')

beforeAll(async () => {
  stack = await startStack()
  cat = await seedCatalogue(stack)
  other = await createUser(stack, { company: OTHER_COMPANY, rights: ['entities.systems.create', 'entities.systems.edit'] })
})
afterAll(async () => { await stack.close() })

/** A system with every part, to edit. */
async function fullSystem (): Promise<Json> {
  return await createSystem(stack, {
    name: uniq('sys'),
    type: 'router',
    labels: ['one'],
    metadata: { site: 'Paris' },
    communication: { mqtt: { password: 'mqtt-secret' } },
    gateway: { imei: imei(), serialNumber: serial() },
    subscription: { identifier: iccid(), operator: 'ORANGE' },
    applications: [{ uid: appUid(cat, 'fw.public@1.0') }]
  })
}

/** A gateway and a subscription of the company that no system uses. */
async function freeParts (): Promise<{ gateway: Json, subscription: Json }> {
  const s = await createSystem(stack, { gateway: { imei: imei(), serialNumber: serial() }, subscription: { identifier: iccid(), operator: 'SFR' } })
  expect((await stack.call(stack.adminToken, { method: 'DELETE', url: `/api/v1/systems/${s.uid as string}` })).statusCode).toBe(200)
  return { gateway: s.gateway, subscription: s.subscription }
}

/** Lets the clock move past `ts`, so that a new stamp differs (a poll, not a fixed sleep). */
async function after (ts: number): Promise<void> {
  while (Date.now() <= ts) await new Promise((resolve) => setImmediate(resolve))
}

/** Asserts the edit is refused with `code` and that the system and the store are unchanged. */
async function rejectEdit (uid: string, body: Body, code: string): Promise<void> {
  const before = await getSystem(stack, uid)
  const rows = await countRows(stack)
  expectError(await putSystem(stack, uid, body), code)
  expect(await getSystem(stack, uid)).toEqual(before)
  expect(await countRows(stack)).toEqual(rows)
}

describe('edit: fields', () => {
  it('changes only what the body carries', async () => {
    const s = await fullSystem()
    const res = await putSystem(stack, s.uid, { labels: ['two', 'three'] })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ ...s, labels: ['two', 'three'] })
    expect(await getSystem(stack, s.uid)).toEqual(res.json())
  })

  it('updates name, type, labels and metadata', async () => {
    const s = await fullSystem()
    const res = await putSystem(stack, s.uid, { name: 'renamed', type: 'sensor', labels: [], metadata: { floor: '2' }, state: 'DEPLOYED' })
    expect(res.json()).toMatchObject({ name: 'renamed', type: 'sensor', labels: [], metadata: { floor: '2' }, state: 'DEPLOYED', lifeCycleState: 'INVENTORY' })
    expect(res.json().gateway).toEqual(s.gateway)
    expect(res.json().lastStateChangeDate).toBe(s.lastStateChangeDate)
  })

  it('merges communication and checks M3DA passwords', async () => {
    const s = await fullSystem()
    const res = await putSystem(stack, s.uid, { communication: { m3da: { password: 'good-pass' } } })
    expect(res.json().communication).toMatchObject({ mqtt: { password: 'mqtt-secret' }, m3da: { password: 'good-pass' } })
    await rejectEdit(s.uid, { name: 'changed', communication: { m3da: { password: 'bad pass word' } } }, 'system.invalid.m3da.password')
    await rejectEdit(s.uid, { communication: { m3da: { registrationPassword: 'short' } } }, 'system.invalid.m3da.registration.password')
  })

  it('refuses an empty name: system.missing.fields', async () => {
    const s = await fullSystem()
    await rejectEdit(s.uid, { name: '' }, 'system.missing.fields')
    await rejectEdit(s.uid, { name: null }, 'system.missing.fields')
  })

  it('refuses an unknown life-cycle state: unknown.enum.value', async () => {
    const s = await fullSystem()
    await rejectEdit(s.uid, { lifeCycleState: 'FOO' }, 'unknown.enum.value')
  })
})

describe('edit: parts', () => {
  it('links a gateway and a subscription by uid and replaces the applications', async () => {
    const s = await fullSystem()
    const free = await freeParts()
    const res = await putSystem(stack, s.uid, {
      gateway: { uid: free.gateway.uid },
      subscription: { uid: free.subscription.uid },
      applications: [{ uid: appUid(cat, 'app.own@1') }, { uid: appUid(cat, 'app.mqtt@1') }]
    })
    expect(res.statusCode).toBe(200)
    expect(res.json().gateway).toEqual(free.gateway)
    expect(res.json().subscription).toEqual(free.subscription)
    expect(res.json().applications.map((a: Json) => a.uid).sort()).toEqual([appUid(cat, 'app.own@1'), appUid(cat, 'app.mqtt@1')].sort())
    // The former gateway is free again: another system may take it.
    const again = await createSystem(stack, { name: uniq('s'), gateway: { uid: s.gateway.uid }, subscription: { uid: s.subscription.uid } })
    expect(again.gateway.uid).toBe(s.gateway.uid)
  })

  it('unlinks the gateway and the subscription with null, keeping them in the store', async () => {
    const s = await fullSystem()
    const res = await putSystem(stack, s.uid, { gateway: null, subscription: null, applications: [] })
    expect(res.json()).toMatchObject({ gateway: null, subscription: null, subscriptions: [], applications: [] })
    const { rows } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM gateways WHERE uid = $1', [s.gateway.uid])
    expect(rows[0]?.n).toBe(1)
    const ids = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM comm_identifiers WHERE system_uid = $1', [s.uid])
    expect(ids.rows[0]?.n).toBe(0)
  })

  it('refuses an unknown system, and one of another company: system.unknown', async () => {
    expectError(await putSystem(stack, 'no-such-system', { name: 'x' }), 'system.unknown')
    const theirs = await createSystem(stack, { name: 'theirs' }, { token: other.token })
    expectError(await putSystem(stack, theirs.uid, { name: 'mine now' }), 'system.unknown')
    const mine = await createSystem(stack, { name: 'mine' })
    expectError(await putSystem(stack, mine.uid, { name: 'x' }, { token: other.token }), 'system.unknown')
  })

  it('refuses a gateway being transferred to a partner: gateway.being.transferred', async () => {
    const s = await fullSystem()
    const free = await freeParts()
    await stack.db.query('UPDATE gateways SET transfer_to = $2 WHERE uid = $1', [free.gateway.uid, cat.otherCompanyUid])
    await rejectEdit(s.uid, { gateway: { uid: free.gateway.uid } }, 'gateway.being.transferred')
    await rejectEdit(s.uid, { gateway: { imei: free.gateway.imei } }, 'gateway.being.transferred')
  })

  it('refuses an unknown subscription, and one of another company: subscription.unknown', async () => {
    const s = await fullSystem()
    await rejectEdit(s.uid, { subscription: { uid: 'no-such-subscription' } }, 'subscription.unknown')
    const theirs = await createSystem(stack, { name: 'their-sub', subscription: { identifier: iccid(), operator: 'ORANGE' } }, { token: other.token })
    await rejectEdit(s.uid, { subscription: { uid: theirs.subscription.uid } }, 'subscription.unknown')
  })
})

describe('edit: concurrency', () => {
  it('lets only one of an edit and a create making a gateway with one IMEI at once have it', async () => {
    for (let round = 0; round < 5; round++) {
      const s = await createSystem(stack, { name: uniq('racer') })
      const i = imei()
      const [edited, created] = await Promise.all([
        putSystem(stack, s.uid, { gateway: { imei: i } }),
        stack.call(stack.adminToken, { method: 'POST', url: '/api/v1/systems', payload: { gateway: { imei: i } } })
      ])
      const outcomes = [edited, created].map((r) => r.statusCode === 200 ? 'ok' : r.json().error).sort()
      expect(outcomes).toEqual(['ok', 'system.invalid.assignment'])
      const { rows } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM gateways WHERE imei = $1', [i])
      expect(rows[0]?.n).toBe(1)
    }
  })
})

describe('edit: life cycle (§States and transitions)', () => {
  it('stamps lastStateChangeDate and activationDate on INVENTORY → ACTIVE; a return to ACTIVE keeps the first activation', async () => {
    const s = await fullSystem()
    await after(s.creationDate)
    const active = (await putSystem(stack, s.uid, { lifeCycleState: 'ACTIVE' })).json()
    expect(active.lifeCycleState).toBe('ACTIVE')
    expect(active.activationDate).toBeGreaterThan(s.creationDate)
    expect(active.lastStateChangeDate).toBe(active.activationDate)
    await after(active.lastStateChangeDate)
    const suspended = (await putSystem(stack, s.uid, { lifeCycleState: 'SUSPENDED' })).json()
    expect(suspended.lastStateChangeDate).toBeGreaterThan(active.lastStateChangeDate)
    expect(suspended.activationDate).toBe(active.activationDate)
    await after(suspended.lastStateChangeDate)
    const back = (await putSystem(stack, s.uid, { lifeCycleState: 'ACTIVE' })).json()
    expect(back.lastStateChangeDate).toBeGreaterThan(suspended.lastStateChangeDate)
    expect(back.activationDate).toBe(active.activationDate)
  })

  it('keeps lastStateChangeDate when the state does not change', async () => {
    const s = await fullSystem()
    await after(s.creationDate)
    expect((await putSystem(stack, s.uid, { lifeCycleState: 'INVENTORY', name: 'same state' })).json().lastStateChangeDate).toBe(s.lastStateChangeDate)
  })

  it('refuses moves that are not allowed: system.invalid.state', async () => {
    const s = await fullSystem()
    await rejectEdit(s.uid, { lifeCycleState: 'SUSPENDED' }, 'system.invalid.state')
    expect((await putSystem(stack, s.uid, { lifeCycleState: 'RETIRED' })).statusCode).toBe(200)
    await rejectEdit(s.uid, { lifeCycleState: 'ACTIVE' }, 'system.invalid.state')
  })
})

describe('edit: sets G and C', () => {
  let s: Json
  beforeAll(async () => { s = await fullSystem() })

  it('refuses an unknown gateway uid: gateway.unknown', async () => {
    await rejectEdit(s.uid, { gateway: { uid: 'no-such-gateway' } }, 'gateway.unknown')
    const theirs = await createSystem(stack, { gateway: { serialNumber: serial() } }, { token: other.token })
    await rejectEdit(s.uid, { gateway: { uid: theirs.gateway.uid } }, 'gateway.unknown')
  })

  it('refuses malformed or missing gateway identifiers', async () => {
    await rejectEdit(s.uid, { gateway: { type: 'FX30' } }, 'gateway.missing.identifiers')
    await rejectEdit(s.uid, { gateway: { imei: '12345' } }, 'gateway.invalid.imei')
    await rejectEdit(s.uid, { gateway: { serialNumber: serial(), esn: 'nope' } }, 'gateway.invalid.esn')
    await rejectEdit(s.uid, { gateway: { serialNumber: serial(), meid: 'nope' } }, 'gateway.invalid.meid')
    await rejectEdit(s.uid, { gateway: { macAddress: 'zz:zz:zz:zz:zz:zz' } }, 'gateway.invalid.mac.address')
  })

  it('refuses identifiers held by two gateways: gateway.not.unique.identifiers', async () => {
    const a = await freeParts()
    const b = await freeParts()
    await rejectEdit(s.uid, { gateway: { imei: a.gateway.imei, serialNumber: b.gateway.serialNumber } }, 'gateway.not.unique.identifiers')
  })

  it('refuses applications that do not fit', async () => {
    await rejectEdit(s.uid, { applications: [{ uid: 'nope' }] }, 'application.unknown')
    await rejectEdit(s.uid, { applications: [{ uid: appUid(cat, 'app.other@1') }] }, 'application.unknown')
    await rejectEdit(s.uid, { applications: [{ uid: '' }] }, 'application.missing')
    await rejectEdit(s.uid, { applications: [{ uid: appUid(cat, 'app.own@1') }, { uid: appUid(cat, 'app.own@1') }] }, 'application.not.unique')
    await rejectEdit(s.uid, { applications: [{ uid: appUid(cat, 'fw.public@1.0') }, { uid: appUid(cat, 'fw.public@2.0') }] }, 'system.applications.type.not.unique')
    await rejectEdit(s.uid, { applications: [{ uid: appUid(cat, 'app.mqtt@1') }, { uid: appUid(cat, 'app.mqtt2@1') }] }, 'applications.protocol.conflicts')
  })

  it('refuses a gateway or subscription of another system: system.invalid.assignment', async () => {
    const t = await fullSystem()
    await rejectEdit(s.uid, { gateway: { uid: t.gateway.uid } }, 'system.invalid.assignment')
    await rejectEdit(s.uid, { gateway: { serialNumber: t.gateway.serialNumber } }, 'system.invalid.assignment')
    await rejectEdit(s.uid, { subscription: { uid: t.subscription.uid } }, 'system.invalid.assignment')
  })

  it('refuses a SIM locked to another IMEI: system.invalid.compatibility', async () => {
    await rejectEdit(s.uid, { subscription: { identifier: iccid(), operator: 'ORANGE', activationImei: imei(), imeiLock: { imeiLock: 'true' } } }, 'system.invalid.compatibility')
    const locked = await createSystem(stack, { name: uniq('locked'), subscription: { identifier: iccid(), operator: 'ORANGE', activationImei: imei(), imeiLock: { imeiLock: true } } })
    await rejectEdit(locked.uid, { gateway: { imei: imei() } }, 'system.invalid.compatibility')
  })

  it('refuses a login another company\'s system uses: system.communication.identifier.already.used', async () => {
    const sn = serial()
    await createSystem(stack, { gateway: { serialNumber: sn } }, { token: other.token })
    await rejectEdit(s.uid, { gateway: { serialNumber: sn } }, 'system.communication.identifier.already.used')
  })
})
