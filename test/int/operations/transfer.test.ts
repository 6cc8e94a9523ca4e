// POST /api/v1/operations/systems/transfer (docs/operations.md#bulk-operations, docs/api.md#using-the-api row
// "transfer", docs/api.md#get-a-token: the create right in the destination partner company;
// docs/operations.md#bulk-operations).
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, COMPANY_NAME, type Stack } from '../../helpers/stack.js'
import { companyUid, seed, uniq } from '../../helpers/factories.js'
import {
  appUid, createSystem, expectError, getSystem, OTHER_COMPANY, putSystem, seedCatalogue, validImei, type Body, type Catalogue, type Json
} from '../../helpers/systems.js'
import { countOperations, holdWorker, started, tasks, waitFinished } from '../../helpers/operations.js'

// The partner is OTHER_COMPANY of the systems catalogue: it has an ORANGE operator account, and gets two offers.
const STRANGER = 'Transfer Stranger'
const PW = 'transfer-pw'

let stack: Stack
let cat: Catalogue
let partner: string
let stranger: string
let tokens: { mover: string, noCreate: string, noAccess: string, noRight: string }
let offers: { router: string, any: string, source: string }
let accounts: { partnerOrange: string, sourceSfr: string }
let n = 5000

const imei = (): string => validImei(++n)

beforeAll(async () => {
  stack = await startStack({ env: { WORKER_CONCURRENCY: '1', CALLBACK_ALLOW_PRIVATE: 'true' } })
  cat = await seedCatalogue(stack)
  const moverRights = ['entities.systems.view', 'entities.systems.create', 'entities.systems.edit', 'entities.systems.transfers.create']
  await seed(stack, {
    companies: [{ name: COMPANY_NAME, partners: [OTHER_COMPANY] }, { name: STRANGER }],
    profiles: [
      { company: COMPANY_NAME, name: 'movers', rights: moverRights },
      { company: COMPANY_NAME, name: 'viewers', rights: ['entities.systems.view'] },
      { company: OTHER_COMPANY, name: 'receivers', rights: ['entities.systems.view', 'entities.systems.create'] },
      { company: OTHER_COMPANY, name: 'lookers', rights: ['entities.systems.view'] },
      { company: STRANGER, name: 'receivers', rights: ['entities.systems.view', 'entities.systems.create'] }
    ],
    users: [
      { email: 'mover@transfer.test', name: 'Mover', password: PW, companies: [{ company: COMPANY_NAME, profile: 'movers' }, { company: OTHER_COMPANY, profile: 'receivers' }, { company: STRANGER, profile: 'receivers' }] },
      { email: 'nocreate@transfer.test', name: 'No create', password: PW, companies: [{ company: COMPANY_NAME, profile: 'movers' }, { company: OTHER_COMPANY, profile: 'lookers' }] },
      { email: 'noaccess@transfer.test', name: 'No access', password: PW, companies: [{ company: COMPANY_NAME, profile: 'movers' }] },
      { email: 'noright@transfer.test', name: 'No right', password: PW, companies: [{ company: COMPANY_NAME, profile: 'viewers' }, { company: OTHER_COMPANY, profile: 'receivers' }] }
    ],
    operatorAccounts: [{ company: COMPANY_NAME, name: 'SFR account', operator: 'SFR' }],
    offers: [
      { company: OTHER_COMPANY, name: 'Router offer', limit: 5_000_000, types: ['router'] },
      { company: OTHER_COMPANY, name: 'Any offer' }
    ]
  })
  partner = cat.otherCompanyUid
  stranger = await companyUid(stack, STRANGER)
  tokens = {
    mover: await stack.login('mover@transfer.test', PW),
    noCreate: await stack.login('nocreate@transfer.test', PW),
    noAccess: await stack.login('noaccess@transfer.test', PW),
    noRight: await stack.login('noright@transfer.test', PW)
  }
  const offer = async (company: string, name: string): Promise<string> =>
    (await stack.db.query<{ uid: string }>('SELECT uid FROM offers WHERE company_uid = $1 AND name = $2', [company, name])).rows[0]?.uid ?? ''
  offers = { router: await offer(partner, 'Router offer'), any: await offer(partner, 'Any offer'), source: await offer(stack.companyUid, 'Basic offer') }
  const sfr = await stack.db.query<{ uid: string }>("SELECT uid FROM operator_accounts WHERE name = 'SFR account'")
  accounts = { partnerOrange: cat.accounts['Other account'] ?? '', sourceSfr: sfr.rows[0]?.uid ?? '' }
})
afterAll(async () => { await stack.close() })

async function transfer (body: Body, token = tokens.mover): Promise<LightMyRequestResponse> {
  return await stack.call(token, { method: 'POST', url: '/api/v1/operations/systems/transfer', payload: body })
}

/** A system of the source company with a gateway and an ORANGE subscription on the source's ORANGE account. */
async function sourceSystem (extra: Body = {}): Promise<Json> {
  return await createSystem(stack, {
    name: uniq('move'),
    type: 'router',
    labels: ['fleet-a'],
    metadata: { site: 'Lyon' },
    gateway: { imei: imei(), serialNumber: uniq('SN') },
    subscription: { identifier: uniq('8933'), operator: 'ORANGE', operatorAccount: { uid: cat.accounts['Orange account'] } },
    applications: [{ uid: appUid(cat, 'fw.public@1.0') }],
    ...extra
  })
}

/** The system as the partner sees it (GET with the destination as context company). */
async function inPartner (uid: string): Promise<LightMyRequestResponse> {
  return await stack.call(tokens.mover, { method: 'GET', url: `/api/v1/systems/${uid}?company=${partner}` })
}

async function gatewayRow (uid: string): Promise<{ company_uid: string, transfer_to: string | null }> {
  const { rows } = await stack.db.query<{ company_uid: string, transfer_to: string | null }>('SELECT company_uid, transfer_to FROM gateways WHERE uid = $1', [uid])
  if (rows[0] === undefined) throw new Error(`no gateway ${uid}`)
  return rows[0]
}

/** Refused synchronously with `code` (and `status`), creating no operation and marking no gateway. */
async function refused (res: Promise<LightMyRequestResponse>, code: string, status = 400): Promise<void> {
  const before = await countOperations(stack)
  expectError(await res, code, status)
  expect(await countOperations(stack)).toBe(before)
  const { rows } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM gateways WHERE transfer_to IS NOT NULL')
  expect(rows[0]?.n).toBe(0)
}

/** Starts a transfer, waits for it to finish and answers the error code of each system's task (null: SUCCESS). */
async function outcomes (body: Body): Promise<Record<string, string | null>> {
  const uid = await started(transfer(body))
  const op = await waitFinished(stack, uid)
  expect(op.operationType).toBe('SYSTEM_TRANSFER')
  const out: Record<string, string | null> = {}
  for (const t of await tasks(stack, uid)) {
    expect(t.state).toBe(t.error === null ? 'SUCCESS' : 'FAILURE')
    out[t.system.uid] = t.error?.code ?? null
  }
  return out
}

async function setPartnerLimit (limit: number | null): Promise<void> {
  await seed(stack, { companies: [{ name: OTHER_COMPANY, systemLimit: limit }] })
}

async function partnerCount (): Promise<number> {
  const { rows } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM systems WHERE company_uid = $1', [partner])
  return rows[0]?.n ?? 0
}

describe('transfer: the request', () => {
  it('needs a destination: company.missing', async () => {
    const s = await sourceSystem()
    await refused(transfer({ systems: { uids: [s.uid] } }), 'company.missing')
    await refused(transfer({ destination: null, systems: { uids: [s.uid] } }), 'company.missing')
    await refused(transfer({ destination: '', systems: { uids: [s.uid] } }), 'company.missing')
  })

  it('needs a partner of the context company the caller may enter: partner.unknown', async () => {
    const s = await sourceSystem()
    // A company the caller may create systems in, but no partner of the source.
    await refused(transfer({ destination: stranger, systems: { uids: [s.uid] } }), 'partner.unknown')
    await refused(transfer({ destination: 'no-such-company', systems: { uids: [s.uid] } }), 'partner.unknown')
    await refused(transfer({ destination: stack.companyUid, systems: { uids: [s.uid] } }), 'partner.unknown')
    // The partner, but the caller has no access to it.
    await refused(transfer({ destination: partner, systems: { uids: [s.uid] } }, tokens.noAccess), 'partner.unknown')
  })

  it('needs entities.systems.create in the destination and transfers.create in the source: 403 missing.rights', async () => {
    const s = await sourceSystem()
    await refused(transfer({ destination: partner, systems: { uids: [s.uid] } }, tokens.noCreate), 'missing.rights', 403)
    await refused(transfer({ destination: partner, systems: { uids: [s.uid] } }, tokens.noRight), 'missing.rights', 403)
  })

  it('answers the selection codes (set S) and system.unknown', async () => {
    const s = await sourceSystem()
    const to = { destination: partner }
    await refused(transfer({ ...to }), 'selection.invalid')
    await refused(transfer({ ...to, systems: {} }), 'selection.invalid')
    await refused(transfer({ ...to, systems: { uids: [s.uid], label: 'fleet-a' } }), 'selection.invalid')
    await refused(transfer({ ...to, systems: { uids: [] } }), 'selection.empty')
    await refused(transfer({ ...to, systems: { criteria: { name: uniq('nothing') } } }), 'selection.empty')
    await refused(transfer({ ...to, systems: { uids: Array.from({ length: 101 }, (_, i) => `uid-${i}`) } }), 'selection.max.uid.reached')
    await refused(transfer({ ...to, systems: { label: uniq('no-label') } }), 'selection.empty')
    await refused(transfer({ ...to, systems: { dependsOn: { operation: 'no-such-operation' } } }), 'operation.unknown')
    await refused(transfer({ ...to, systems: { uids: [s.uid, 'not-a-system'] } }), 'system.unknown')
    // A system of the partner is not one of the context company's.
    const theirs = await createSystem(stack, { name: uniq('theirs') }, { token: tokens.mover, company: partner })
    await refused(transfer({ ...to, systems: { uids: [theirs.uid] } }), 'system.unknown')
  })

  it('refuses a selection the destination cannot take: system.limit.exceeded', async () => {
    const a = await sourceSystem()
    const b = await sourceSystem()
    await setPartnerLimit(await partnerCount() + 1)
    try {
      await refused(transfer({ destination: partner, systems: { uids: [a.uid, b.uid] } }), 'system.limit.exceeded')
    } finally {
      await setPartnerLimit(null)
    }
  })
})

describe('transfer: running', () => {
  it('moves the system, its gateway and subscription to the partner, with the offer; labels, metadata and applications stay', async () => {
    const s = await sourceSystem()
    const before = await getSystem(stack, s.uid)
    const results = await outcomes({ destination: partner, systems: { uids: [s.uid] }, offerId: offers.router, notify: false })
    expect(results).toEqual({ [s.uid]: null })
    // The source no longer sees it.
    expectError(await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${s.uid as string}` }), 'system.unknown')
    const found = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems?name=${s.name as string}` })
    expect(found.json().count).toBe(0)
    // The destination does.
    const res = await inPartner(s.uid)
    expect(res.statusCode).toBe(200)
    const after = res.json()
    expect(after.labels).toEqual(before.labels)
    expect(after.metadata).toEqual(before.metadata)
    expect(after.applications).toEqual(before.applications)
    expect(after.gateway).toEqual(before.gateway)
    expect(after.subscription.identifier).toBe(before.subscription.identifier)
    expect(after.offer).toMatchObject({ uid: offers.router, name: 'Router offer', types: ['router'] })
    expect(await gatewayRow(s.gateway.uid)).toEqual({ company_uid: partner, transfer_to: null })
    // The subscription moved to the destination's account of the same operator (ORANGE).
    const sub = await stack.db.query<{ company_uid: string, operator_account_uid: string | null }>(
      'SELECT company_uid, operator_account_uid FROM subscriptions WHERE uid = $1', [s.subscription.uid])
    expect(sub.rows[0]).toEqual({ company_uid: partner, operator_account_uid: accounts.partnerOrange })
  })

  it('transfers a system without offer, gateway or subscription with no offerId', async () => {
    const bare = await createSystem(stack, { name: uniq('bare'), type: 'sensor' })
    expect(await outcomes({ destination: partner, systems: { uids: [bare.uid] } })).toEqual({ [bare.uid]: null })
    expect((await inPartner(bare.uid)).json().offer).toBeNull()
  })

  it('fails the systems that cannot move, each with its code, and moves the others', async () => {
    const sfr = await sourceSystem({ subscription: { identifier: uniq('8933'), operator: 'SFR', operatorAccount: { uid: accounts.sourceSfr } } })
    const deployed = await sourceSystem()
    await stack.db.query("UPDATE gateways SET state = 'DEPLOYED' WHERE uid = $1", [deployed.gateway.uid])
    const withPrivate = await sourceSystem({ applications: [{ uid: appUid(cat, 'app.own@1') }] })
    const sensor = await sourceSystem({ type: 'sensor' })
    const ok = await sourceSystem()
    const all = [sfr, deployed, withPrivate, sensor, ok]
    const results = await outcomes({ destination: partner, systems: { uids: all.map((s) => s.uid) }, offerId: offers.router })
    expect(results).toEqual({
      [sfr.uid]: 'operation.transfer.system.incompatible.operator.account',
      [deployed.uid]: 'operation.transfer.system.gateway.invalid.state',
      [withPrivate.uid]: 'operation.transfer.system.linked.to.private.application',
      [sensor.uid]: 'operation.transfer.system.incompatible.offer',
      [ok.uid]: null
    })
    // What failed stayed in the source, unchanged and no longer marked as moving.
    for (const s of [sfr, deployed, withPrivate, sensor]) {
      expect(await getSystem(stack, s.uid)).toMatchObject({ uid: s.uid, labels: s.labels, offer: null })
      expect(await gatewayRow(s.gateway.uid)).toEqual({ company_uid: stack.companyUid, transfer_to: null })
      expectError(await inPartner(s.uid), 'system.unknown')
    }
    expect((await inPartner(ok.uid)).statusCode).toBe(200)
  })

  it('needs an offerId for a system with an offer: operation.transfer.system.missing.offer', async () => {
    const offered = await sourceSystem()
    await stack.db.query('UPDATE systems SET offer_uid = $2 WHERE uid = $1', [offered.uid, offers.source])
    const plain = await sourceSystem()
    expect(await outcomes({ destination: partner, systems: { uids: [offered.uid, plain.uid] } })).toEqual({
      [offered.uid]: 'operation.transfer.system.missing.offer',
      [plain.uid]: null
    })
    expect((await getSystem(stack, offered.uid)).offer.uid).toBe(offers.source)
    // With an offer of the destination that takes every type, it moves and gets that offer.
    expect(await outcomes({ destination: partner, systems: { uids: [offered.uid] }, offerId: offers.any })).toEqual({ [offered.uid]: null })
    expect((await inPartner(offered.uid)).json().offer.uid).toBe(offers.any)
  })

  it('needs an offer of the destination: operation.transfer.system.unknown.offer', async () => {
    const s = await sourceSystem()
    // An offer of the source company is not one of the destination's.
    for (const offerId of [offers.source, 'no-such-offer']) {
      expect(await outcomes({ destination: partner, systems: { uids: [s.uid] }, offerId })).toEqual({ [s.uid]: 'operation.transfer.system.unknown.offer' })
    }
    expect((await getSystem(stack, s.uid)).uid).toBe(s.uid)
  })

  it('fails a system the destination cannot take when its task runs: system.limit.exceeded', async () => {
    const a = await sourceSystem()
    const b = await sourceSystem()
    const hold = await holdWorker(stack, (await sourceSystem()).uid)
    try {
      const limit = await partnerCount() + 1
      await setPartnerLimit(limit)
      // Each fits on its own when asked; together they overrun the limit.
      const first = await started(transfer({ destination: partner, systems: { uids: [a.uid] } }))
      const second = await started(transfer({ destination: partner, systems: { uids: [b.uid] } }))
      hold.release()
      await waitFinished(stack, first)
      await waitFinished(stack, second)
      // Whichever runs first takes the last place; the other fails.
      const codes = [...await tasks(stack, first), ...await tasks(stack, second)].map((t) => t.error?.code ?? null)
      expect(codes.sort()).toEqual([null, 'system.limit.exceeded'].sort())
      const stayed = codes[0] === null ? b : a
      expect(await gatewayRow(stayed.gateway.uid)).toEqual({ company_uid: stack.companyUid, transfer_to: null })
      expect(await partnerCount()).toBe(limit)
    } finally {
      await hold.close()
      await setPartnerLimit(null)
    }
  })

  it('marks the gateways while the transfer is pending: edits answer gateway.being.transferred until it ends', async () => {
    const moving = await sourceSystem()
    const cancelled = await sourceSystem()
    const hold = await holdWorker(stack, (await sourceSystem()).uid)
    try {
      const op = await started(transfer({ destination: partner, systems: { uids: [moving.uid] }, offerId: offers.any }))
      const dropped = await started(transfer({ destination: partner, systems: { uids: [cancelled.uid] }, offerId: offers.any }))
      expect(await gatewayRow(moving.gateway.uid)).toEqual({ company_uid: stack.companyUid, transfer_to: partner })
      expectError(await putSystem(stack, moving.uid, { gateway: { imei: moving.gateway.imei } }), 'gateway.being.transferred')
      expectError(await putSystem(stack, cancelled.uid, { gateway: { uid: cancelled.gateway.uid } }), 'gateway.being.transferred')
      // Cancelling the pending transfer releases its gateway at once.
      const res = await stack.call(stack.adminToken, { method: 'POST', url: `/api/v1/operations/${dropped}/cancel` })
      expect(res.json()).toMatchObject({ state: 'FINISHED' })
      expect(await gatewayRow(cancelled.gateway.uid)).toEqual({ company_uid: stack.companyUid, transfer_to: null })
      expect((await putSystem(stack, cancelled.uid, { gateway: { uid: cancelled.gateway.uid } })).statusCode).toBe(200)
      expect((await tasks(stack, dropped)).map((t) => t.state)).toEqual(['CANCELLED'])
      hold.release()
      await waitFinished(stack, op)
      expect((await tasks(stack, op)).map((t) => t.state)).toEqual(['SUCCESS'])
      expect(await gatewayRow(moving.gateway.uid)).toEqual({ company_uid: partner, transfer_to: null })
    } finally {
      await hold.close()
    }
  })
})
