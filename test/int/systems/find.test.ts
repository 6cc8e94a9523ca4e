// GET /api/v1/systems (docs/api.md#systems; docs/api.md#using-the-api). Every test scopes itself with a label
// of its own, so a filter that were ignored would answer the other systems of that label too.
import { randomInt } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { imeiCheckDigit } from '../../../core/domain/identifiers.js'
import { COMPANY_NAME, startStack, type Stack } from '../../helpers/stack.js'
import { companyUid, seed, uniq } from '../../helpers/factories.js'

let stack: Stack
beforeAll(async () => { stack = await startStack() })
afterAll(async () => { await stack?.close() })

interface Item { uid: string, [k: string]: unknown }
interface Found { items: Item[], count: number, size: number, offset: number }
type Query = Record<string, string | number | Array<string | number>>

function qs (q: Query): string {
  const p = new URLSearchParams()
  for (const [k, v] of Object.entries(q)) for (const x of Array.isArray(v) ? v : [v]) p.append(k, String(x))
  return p.toString()
}

async function get (q: Query, token = stack.adminToken): Promise<{ status: number, body: any }> {
  const res = await stack.call(token, { method: 'GET', url: `/api/v1/systems?${qs(q)}` })
  return { status: res.statusCode, body: res.json() }
}

async function find (q: Query, token = stack.adminToken): Promise<Found> {
  const { status, body } = await get(q, token)
  if (status !== 200) throw new Error(`find ${qs(q)}: ${status} ${JSON.stringify(body)}`)
  return body as Found
}

/** The uids found, in answer order. */
async function ordered (q: Query, token?: string): Promise<string[]> {
  return (await find(q, token)).items.map((i) => i.uid)
}

/** The uids found, as a set (sorted). */
async function found (q: Query, token?: string): Promise<string[]> {
  return (await ordered(q, token)).sort()
}

const set = (...uids: string[]): string[] => [...uids].sort()

async function create (body: Record<string, unknown>): Promise<Item> {
  const res = await stack.call(stack.adminToken, { method: 'POST', url: '/api/v1/systems', payload: body })
  if (res.statusCode !== 200) throw new Error(`create: ${res.statusCode} ${res.body}`)
  return res.json() as Item
}

/** n systems carrying `label`, named `<label>-<i>` unless `each` says otherwise. */
async function createMany (label: string, n: number, each: (i: number) => Record<string, unknown> = () => ({})): Promise<string[]> {
  const out: string[] = []
  for (let i = 0; i < n; i++) out.push((await create({ name: `${label}-${i}`, labels: [label], ...each(i) })).uid)
  return out
}

// The state device traffic changes (lastCommDate, commStatus, System data) is a row of system_state
// (storage/migrations/0024_system_state.sql); an assignment to one of its columns goes there.
const STATE_COLUMN = /^\s*(comm_status|last_comm_date|data)\b/
async function update (uid: string, assignments: string, params: unknown[] = []): Promise<void> {
  const table = STATE_COLUMN.test(assignments) ? 'system_state' : 'systems'
  await stack.db.query(`UPDATE ${table} SET ${assignments} WHERE ${table === 'systems' ? 'uid' : 'system_uid'} = $1`, [uid, ...params])
}

const digits = (n: number): string => Array.from({ length: n }, () => String(randomInt(10))).join('')
const hex = (n: number): string => Array.from({ length: n }, () => randomInt(16).toString(16).toUpperCase()).join('')
/** A valid IMEI (Luhn) starting with `prefix`. */
function imei (prefix = '35'): string {
  const first14 = (prefix + digits(14)).slice(0, 14)
  return first14 + imeiCheckDigit(first14)
}
const mac = (): string => Array.from({ length: 6 }, () => hex(2)).join(':')

describe('filters on the system row', () => {
  it('uid: one or several, repeated and comma separated', async () => {
    const L = uniq('uid')
    const [a = '', b = '', c = ''] = await createMany(L, 3)
    expect(await found({ labels: L, uid: a })).toEqual([a])
    expect(await found({ labels: L, uid: `${a},${b}` })).toEqual(set(a, b))
    expect(await found({ labels: L, uid: [a, c] })).toEqual(set(a, c))
  })

  it('labels: systems having any of the labels, repeated and comma separated', async () => {
    const [L1, L2, L3] = [uniq('lab'), uniq('lab'), uniq('lab')]
    const a = (await create({ name: 'a', labels: [L1] })).uid
    const b = (await create({ name: 'b', labels: [L2, 'other'] })).uid
    const c = (await create({ name: 'c', labels: [L3] })).uid
    const d = (await create({ name: 'd', labels: [L1, L2] })).uid
    expect(await found({ labels: L1 })).toEqual(set(a, d))
    expect(await found({ labels: `${L1},${L2}` })).toEqual(set(a, b, d))
    expect(await found({ labels: [L1, L3] })).toEqual(set(a, c, d))
  })

  it('name: contains, whatever the case', async () => {
    const L = uniq('name')
    const [a = '', b = '', c = ''] = await createMany(L, 3, (i) => ({ name: ['Pump North', 'old PUMP', 'Valve'][i] }))
    expect(await found({ labels: L, name: 'pump' })).toEqual(set(a, b))
    expect(await found({ labels: L, name: 'VALV' })).toEqual([c])
    expect(await found({ labels: L, name: 'mp n' })).toEqual([a])
  })

  it('type: contains, whatever the case', async () => {
    const L = uniq('type')
    const [a = '', b = ''] = await createMany(L, 3, (i) => ({ type: ['Sensor-X', 'smart sensor', 'Meter'][i] }))
    expect(await found({ labels: L, type: 'SENSOR' })).toEqual(set(a, b))
    expect(await found({ labels: L, type: 'or-x' })).toEqual([a])
  })

  it.each([
    ['states', 'state', ['READY', 'DEPLOYED', 'MAINTENANCE']],
    ['lifeCycleStates', 'life_cycle_state', ['ACTIVE', 'SUSPENDED', 'RETIRED']],
    ['activityStates', 'activity_state', ['SUSPENDED', 'ARCHIVED', 'PURGED']]
  ])('%s: in the list, repeated and comma separated', async (param, column, values) => {
    const L = uniq(param)
    const [a = '', b = '', c = ''] = await createMany(L, 4)
    for (const [i, uid] of [a, b, c].entries()) await update(uid, `${column} = $2`, [values[i]])
    const [va = '', vb = '', vc = ''] = values
    expect(await found({ labels: L, [param]: va })).toEqual([a])
    expect(await found({ labels: L, [param]: `${va},${vb}` })).toEqual(set(a, b))
    expect(await found({ labels: L, [param]: [vb, vc] })).toEqual(set(b, c))
  })

  it.each([
    ['commStatus', 'comm_status', ['OK', 'ERROR', 'WARNING']],
    ['syncStatus', 'sync_status', ['OK', 'ERROR', 'WARNING']],
    ['usageStatus', 'usage_status', ['WITHIN_PLAN', 'NEARING_PLAN', 'EXCEEDING_PLAN']]
  ])('%s: equals', async (param, column, values) => {
    const L = uniq(param)
    const uids = await createMany(L, 3)
    for (const [i, uid] of uids.entries()) await update(uid, `${column} = $2`, [values[i]])
    for (const [i, v] of values.entries()) expect(await found({ labels: L, [param]: v })).toEqual([uids[i]])
  })

  it.each([
    ['lastAppliedTemplate', 'last_applied_template'],
    ['lastConfigName', 'last_config_name']
  ])('%s: equals (not contains)', async (param, column) => {
    const L = uniq(param)
    const [a = '', b = ''] = await createMany(L, 3)
    await update(a, `${column} = $2`, ['cfg-1'])
    await update(b, `${column} = $2`, ['cfg-10'])
    expect(await found({ labels: L, [param]: 'cfg-1' })).toEqual([a])
    expect(await found({ labels: L, [param]: 'cfg-10' })).toEqual([b])
  })

  it('metadata: = on the name, contains on the value, several keys all match', async () => {
    const L = uniq('meta')
    const [a = '', b = '', , d = ''] = await createMany(L, 5, (i) => ({
      metadata: [{ zone: 'North-East', floor: '3' }, { zone: 'north' }, { floor: '3' }, { zone: 'North', floor: '4' }, { zoneX: 'north' }][i]
    }))
    expect(await found({ labels: L, metadata: 'zone:north' })).toEqual(set(a, b, d))
    expect(await found({ labels: L, metadata: 'zone:east' })).toEqual([a])
    expect(await found({ labels: L, metadata: 'zone:north,floor:3' })).toEqual([a])
    expect(await found({ labels: L, metadata: ['zone:north', 'floor:4'] })).toEqual([d])
  })
})

describe('date bounds (inclusive)', () => {
  const t0 = 1_700_000_000_000 // a whole second, so that t0 / 1000 is the same instant in seconds
  it.each([
    ['lastCommAfter', 'lastCommBefore', 'last_comm_date', true],
    ['creationAfter', 'creationBefore', 'creation_date', false],
    ['activationAfter', 'activationBefore', 'activation_date', true],
    ['lastStateChangeAfter', 'lastStateChangeBefore', 'last_state_change_date', false],
    ['lastSyncAfter', 'lastSyncBefore', 'last_sync_date', true]
  ] as const)('%s / %s', async (after, before, column, nullable) => {
    const L = uniq(after)
    const [early = '', at = '', late = '', none = ''] = await createMany(L, nullable ? 4 : 3)
    await update(early, `${column} = $2`, [t0 - 60_000])
    await update(at, `${column} = $2`, [t0])
    await update(late, `${column} = $2`, [t0 + 60_000])
    if (nullable) await update(none, `${column} = NULL`)
    expect(await found({ labels: L, [after]: t0 })).toEqual(set(at, late))
    expect(await found({ labels: L, [before]: t0 })).toEqual(set(early, at))
    expect(await found({ labels: L, [after]: t0, [before]: t0 })).toEqual([at])
    expect(await found({ labels: L, [after]: t0 + 1, [before]: t0 + 60_000 })).toEqual([late])
    // docs/api.md#using-the-api: seconds (< 1e11) and microseconds (> 1e14) are tolerated.
    expect(await found({ labels: L, [after]: t0 / 1000 })).toEqual(set(at, late))
    expect(await found({ labels: L, [before]: t0 * 1000 })).toEqual(set(early, at))
  })
})

describe('nested criteria', () => {
  it('application: uid equals, name, revision and type contain; the keys hold for one same application', async () => {
    const L = uniq('app')
    await seed(stack, {
      applications: [
        { company: COMPANY_NAME, name: `Alpha ${L}`, revision: '1.2.0', type: `${L}-firmware`, category: 'FIRMWARE' },
        { company: COMPANY_NAME, name: `Beta ${L}`, revision: '2.0.1', type: `${L}-agent`, category: 'SOFTWARE' }
      ]
    })
    const { rows } = await stack.db.query<{ uid: string, name: string }>('SELECT uid, name FROM applications WHERE name LIKE $1', [`% ${L}`])
    const alpha = rows.find((r) => r.name.startsWith('Alpha'))?.uid ?? ''
    const beta = rows.find((r) => r.name.startsWith('Beta'))?.uid ?? ''
    const [a = '', b = '', ab = ''] = await createMany(L, 4, (i) => ({
      applications: [[{ uid: alpha }], [{ uid: beta }], [{ uid: alpha }, { uid: beta }], []][i]
    }))
    expect(await found({ labels: L, application: `uid:${alpha}` })).toEqual(set(a, ab))
    expect(await found({ labels: L, application: 'name:BETA' })).toEqual(set(b, ab))
    expect(await found({ labels: L, application: 'revision:1.2' })).toEqual(set(a, ab))
    expect(await found({ labels: L, application: 'type:agent' })).toEqual(set(b, ab))
    expect(await found({ labels: L, application: 'name:alpha,revision:1.2' })).toEqual(set(a, ab))
    expect(await found({ labels: L, application: 'name:alpha,revision:2.0.1' })).toEqual([])
  })

  it('gateway: uid equals; type, imei, macAddress, serialNumber contain', async () => {
    const L = uniq('gw')
    const ga = { serialNumber: `SN-${L}-AAA`, imei: imei(), macAddress: mac(), type: 'Edge Router' }
    const gb = { serialNumber: `SN-${L}-BBB`, imei: imei(), macAddress: mac(), type: 'Modem' }
    const a = await create({ name: 'a', labels: [L], gateway: ga })
    const b = await create({ name: 'b', labels: [L], gateway: gb })
    await create({ name: 'c', labels: [L] })
    const gatewayUid = (a.gateway as { uid: string }).uid
    expect(await found({ labels: L, gateway: `uid:${gatewayUid}` })).toEqual([a.uid])
    expect(await found({ labels: L, gateway: 'type:router' })).toEqual([a.uid])
    expect(await found({ labels: L, gateway: `imei:${ga.imei.slice(3, 13)}` })).toEqual([a.uid])
    expect(await found({ labels: L, gateway: `macAddress:${ga.macAddress.slice(3, 14)}` })).toEqual([a.uid])
    expect(await found({ labels: L, gateway: 'serialNumber:BBB' })).toEqual([b.uid])
    expect(await found({ labels: L, gateway: `serialNumber:${L},type:modem` })).toEqual([b.uid])
  })

  it('subscription: uid equals; identifier, numbers and addresses contain; operator and the enumerations match', async () => {
    const L = uniq('sub')
    const sa = {
      identifier: `8933${digits(15)}`,
      operator: 'ORANGE',
      mobileNumber: `+336${digits(8)}`,
      networkIdentifier: `20801${digits(10)}`,
      ipAddress: '10.11.12.13',
      requestedIp: '172.16.5.6',
      eid: `8904${digits(28)}`,
      appletGeneration: 'V2',
      formFactor: '4FF',
      confType: 'LITE',
      technology: '4G',
      productRefName: `REF-A-${L}`
    }
    const sb = {
      identifier: `8944${digits(15)}`,
      operator: 'SFR',
      mobileNumber: `+447${digits(8)}`,
      networkIdentifier: `23415${digits(10)}`,
      ipAddress: '10.21.22.23',
      requestedIp: '172.17.8.9',
      eid: `8905${digits(28)}`,
      appletGeneration: 'V3',
      formFactor: 'MFF',
      confType: 'ADVANCED',
      technology: '2G/3G',
      productRefName: `REF-B-${L}`
    }
    const a = await create({ name: 'a', labels: [L], subscription: sa })
    const b = await create({ name: 'b', labels: [L], subscription: sb })
    await create({ name: 'c', labels: [L] })
    const cases: Array<[string, string, string]> = [
      ['uid', (a.subscription as { uid: string }).uid, a.uid],
      ['operator', 'ORANGE', a.uid],
      ['identifier', sa.identifier.slice(2, 12), a.uid],
      ['mobileNumber', sb.mobileNumber.slice(2, 9), b.uid],
      ['networkIdentifier', sa.networkIdentifier.slice(4, 12), a.uid],
      ['ipAddress', '11.12', a.uid],
      ['requestedIp', '17.8', b.uid],
      ['eid', sa.eid.slice(3, 20), a.uid],
      ['appletGeneration', 'V3', b.uid],
      ['formFactor', '4FF', a.uid],
      ['confType', 'ADVANCED', b.uid],
      ['technology', '2G/3G', b.uid],
      ['productRefName', `REF-A-${L}`, a.uid]
    ]
    for (const [key, value, expected] of cases) {
      expect(await found({ labels: L, subscription: `${key}:${value}` }), key).toEqual([expected])
    }
    expect(await found({ labels: L, subscription: 'operator:ORANGE,formFactor:MFF' })).toEqual([])
  })

  it('data: each key equals the given value; several keys all match', async () => {
    const L = uniq('data')
    const [a = '', b = ''] = await createMany(L, 3)
    const da = { rssiLevel: 'GOOD', ecioLevel: 'LOW', networkServiceType: 'LTE', roamingStatus: 'ROAMING', signalStrength: 'EXCELLENT', rsrpLevel: 'VERY_GOOD', rsrqLevel: 'VERY_LOW' }
    const db = { rssiLevel: 'LOW', ecioLevel: 'GOOD', networkServiceType: 'UMTS', roamingStatus: 'HOME', signalStrength: 'LOW', rsrpLevel: 'NO_SIGNAL', rsrqLevel: 'EXCELLENT' }
    await update(a, 'data = data || $2::jsonb', [JSON.stringify(da)])
    await update(b, 'data = data || $2::jsonb', [JSON.stringify(db)])
    for (const [key, value] of Object.entries(da)) expect(await found({ labels: L, data: `${key}:${value}` }), key).toEqual([a])
    for (const [key, value] of Object.entries(db)) expect(await found({ labels: L, data: `${key}:${value}` }), key).toEqual([b])
    expect(await found({ labels: L, data: 'rssiLevel:GOOD,networkServiceType:LTE' })).toEqual([a])
    expect(await found({ labels: L, data: 'rssiLevel:GOOD,networkServiceType:UMTS' })).toEqual([])
    expect(await found({ labels: L, data: 'networkServiceType:LT' })).toEqual([])
  })

  it.each(['application', 'gateway', 'subscription', 'data'])('%s: an unknown key answers 400 request.invalid', async (param) => {
    const res = await get({ [param]: 'bogusKey:1' })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ error: 'request.invalid', errorParameters: [param, 'bogusKey', expect.stringMatching(/^keys: \w+/)] })
  })
})

describe('offers and options', () => {
  it('offer, notOffer, options and notOptions (only active options count)', async () => {
    const L = uniq('offer')
    const company = COMPANY_NAME
    await seed(stack, {
      offers: [{ company, name: `O1-${L}`, limit: 1000 }, { company, name: `O2-${L}` }],
      options: [{ company, type: 'ROAMING', name: `R-${L}` }, { company, type: 'GENERAL', name: `G-${L}` }],
      systems: [
        { company, name: `s0-${L}`, labels: [L], offer: `O1-${L}`, options: [{ type: 'ROAMING', name: `R-${L}` }] },
        { company, name: `s1-${L}`, labels: [L], offer: `O2-${L}`, options: [{ type: 'GENERAL', name: `G-${L}` }] },
        { company, name: `s2-${L}`, labels: [L], options: [{ type: 'ROAMING', name: `R-${L}` }, { type: 'GENERAL', name: `G-${L}` }] },
        { company, name: `s3-${L}`, labels: [L] }
      ]
    })
    const items = (await find({ labels: L, fields: 'uid,name,offer' })).items
    const uid = (n: number): string => items.find((i) => i.name === `s${n}-${L}`)?.uid ?? ''
    const o1 = (items.find((i) => i.uid === uid(0))?.offer as { uid: string }).uid
    const optionsOf = async (n: number): Promise<Array<{ uid: string, name: string }>> =>
      (await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${uid(n)}/network/options` })).json()
    const r = (await optionsOf(0))[0]?.uid ?? ''
    const g = (await optionsOf(1))[0]?.uid ?? ''
    expect(await found({ labels: L, offer: o1 })).toEqual([uid(0)])
    expect(await found({ labels: L, notOffer: o1 })).toEqual(set(uid(1), uid(2), uid(3)))
    expect(await found({ labels: L, options: r })).toEqual(set(uid(0), uid(2)))
    expect(await found({ labels: L, options: `${r},${g}` })).toEqual(set(uid(0), uid(1), uid(2)))
    expect(await found({ labels: L, notOptions: r })).toEqual(set(uid(1), uid(3)))
    expect(await found({ labels: L, notOptions: [r, g] })).toEqual([uid(3)])
    await stack.db.query('UPDATE system_options SET active = false WHERE system_uid = $1 AND option_uid = $2', [uid(2), r])
    expect(await found({ labels: L, options: r })).toEqual([uid(0)])
    expect(await found({ labels: L, notOptions: r })).toEqual(set(uid(1), uid(2), uid(3)))
  })
})

describe('company', () => {
  it("never shows another company's systems; `company` shows those of a company the caller belongs to", async () => {
    const L = uniq('co')
    const VIEW = 'entities.systems.view'
    const other = uniq('Other Co')
    const email = `${uniq('both')}@test.local`
    await seed(stack, {
      companies: [{ name: other }],
      profiles: [{ company: COMPANY_NAME, name: L, rights: [VIEW] }, { company: other, name: L, rights: [VIEW] }],
      users: [{ email, name: 'both', password: 'pw-both', companies: [{ company: COMPANY_NAME, profile: L }, { company: other, profile: L }] }],
      systems: [{ company: other, name: `theirs-${L}`, labels: [L] }]
    })
    const mine = (await create({ name: `mine-${L}`, labels: [L] })).uid
    const otherUid = await companyUid(stack, other)
    const theirs = (await stack.db.query<{ uid: string }>('SELECT uid FROM systems WHERE company_uid = $1', [otherUid])).rows[0]?.uid ?? ''
    expect(await found({ labels: L })).toEqual([mine])
    expect(await found({ uid: theirs })).toEqual([])
    const both = await stack.login(email, 'pw-both')
    expect(await found({ labels: L }, both)).toEqual([mine])
    expect(await found({ labels: L, company: otherUid }, both)).toEqual([theirs])
    const refused = await get({ labels: L, company: otherUid })
    expect(refused.status).toBe(400)
    expect(refused.body.error).toBe('partner.unknown')
  })
})

describe('fields', () => {
  // docs/api.md#systems: the selectable fields.
  const SELECTABLE = ['uid', 'name', 'state', 'lifeCycleState', 'activityState', 'creationDate', 'activationDate',
    'lastStateChangeDate', 'lastCommDate', 'commStatus', 'gateway', 'subscription', 'labels', 'applications', 'metadata',
    'communication', 'data', 'heartbeat', 'statusReport', 'reports', 'lastSyncDate', 'syncStatus', 'type', 'offer']
  let L: string
  beforeAll(async () => {
    L = uniq('fields')
    await seed(stack, { applications: [{ company: COMPANY_NAME, name: `App ${L}`, revision: '1.0', type: `${L}-app`, category: 'SOFTWARE' }] })
    const { rows } = await stack.db.query<{ uid: string }>('SELECT uid FROM applications WHERE type = $1', [`${L}-app`])
    await create({
      name: 'f',
      labels: [L],
      gateway: { serialNumber: `SN-${L}`, imei: imei(), type: 'GW' },
      subscription: { identifier: `89${digits(17)}`, operator: 'ORANGE', formFactor: '4FF', imeiLock: { imeiLock: false, imeiLockDate: 1_700_000_000_000 } },
      applications: [{ uid: rows[0]?.uid ?? '' }],
      metadata: { k: 'v' }
    })
  })

  it('answers only the requested attributes', async () => {
    const [item] = (await find({ labels: L, fields: 'uid,name' })).items
    expect(Object.keys(item ?? {}).sort()).toEqual(['name', 'uid'])
    const [nested] = (await find({ labels: L, fields: ['gateway', 'metadata', 'lastCommDate'] })).items
    expect(Object.keys(nested ?? {}).sort()).toEqual(['gateway', 'lastCommDate', 'metadata'])
    expect(nested?.gateway).toMatchObject({ serialNumber: `SN-${L}` })
    expect(nested?.metadata).toEqual({ k: 'v' })
  })

  it('answers every selectable attribute when fields is absent, as the details show them', async () => {
    const [item] = (await find({ labels: L })).items
    expect(Object.keys(item ?? {}).sort()).toEqual([...SELECTABLE].sort())
    const details = (await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${item?.uid ?? ''}` })).json()
    expect(item).toEqual(Object.fromEntries(SELECTABLE.map((f) => [f, details[f]])))
  })
})

describe('sort', () => {
  // Three systems created s0, s1, s2 (creation dates in that order); every other sortable attribute ranks them
  // s1 < s0 < s2, an order that is neither the creation order nor its reverse.
  const ASC = [1, 0, 2]
  const DESC = [2, 0, 1]
  let L: string
  let s: string[]

  beforeAll(async () => {
    L = uniq('sort')
    const rank = [1, 0, 2] // rank of s0, s1, s2
    s = []
    for (let i = 0; i < 3; i++) {
      const r = rank[i] ?? 0
      s.push((await create({
        name: `${'abc'[r] ?? ''}-${L}`,
        labels: [L],
        gateway: { serialNumber: `${r}-${L}`, imei: imei(String(r + 1)) },
        subscription: { identifier: `${r}${digits(18)}`, operator: 'ORANGE', ipAddress: `10.${r}.0.1`, requestedIp: `192.168.${r}.1` }
      })).uid)
    }
    const t0 = 1_700_000_000_000
    const numbers = [9, 10, 100] // text order differs from numeric order
    for (const [i, uid] of s.entries()) {
      const r = rank[i] ?? 0
      const n = numbers[r]
      await update(uid, `creation_date = $2, activation_date = $3, last_state_change_date = $3,
        month_bytes_total = $4, month_bytes_time = $5, usage_status = $6`, [
        t0 + i * 1000, t0 + r * 1000, n, Date.now(), ['EXCEEDING_PLAN', 'NEARING_PLAN', 'WITHIN_PLAN'][r]
      ])
      await update(uid, 'last_comm_date = $2, data = data || $3::jsonb', [
        t0 + r * 1000, JSON.stringify({ rssi: n, ecio: n, rsrp: n, rsrq: n, bytesSent: n, bytesReceived: n })
      ])
    }
  })

  const order = (idx: number[]): string[] => idx.map((i) => s[i] ?? '')

  it('defaults to creation date, newest first', async () => {
    expect(await ordered({ labels: L })).toEqual(order([2, 1, 0]))
  })

  it('by creation date both ways', async () => {
    expect(await ordered({ labels: L, orderBy: 'creationDate:asc' })).toEqual(order([0, 1, 2]))
    expect(await ordered({ labels: L, asc: 'creationDate' })).toEqual(order([0, 1, 2]))
    expect(await ordered({ labels: L, orderBy: 'creationDate:desc' })).toEqual(order([2, 1, 0]))
    expect(await ordered({ labels: L, desc: 'creationDate' })).toEqual(order([2, 1, 0]))
  })

  it.each(['name', 'activationDate', 'lastStateChangeDate', 'lastCommDate', 'serialNumber', 'imei', 'identifier',
    'ipAddress', 'requestedIp', 'data.rssi', 'data.ecio', 'data.rsrp', 'data.rsrq', 'data.bytesSent', 'data.bytesReceived',
    'data.monthBytesTotal', 'dataUsage.bytesTotal', 'dataUsage.status'])('by %s, orderBy and the asc/desc aliases', async (field) => {
    expect(await ordered({ labels: L, orderBy: `${field}:asc` })).toEqual(order(ASC))
    expect(await ordered({ labels: L, orderBy: field })).toEqual(order(ASC))
    expect(await ordered({ labels: L, asc: field })).toEqual(order(ASC))
    expect(await ordered({ labels: L, orderBy: `${field}:desc` })).toEqual(order(DESC))
    expect(await ordered({ labels: L, desc: field })).toEqual(order(DESC))
  })

  it('by several attributes, the first deciding', async () => {
    await update(s[0] ?? '', "usage_status = 'WITHIN_PLAN'")
    try {
      // s0 and s2 now tie on the status; the name (b- against c-) decides.
      expect(await ordered({ labels: L, orderBy: 'dataUsage.status:desc,name:desc' })).toEqual(order([2, 0, 1]))
      expect(await ordered({ labels: L, orderBy: 'dataUsage.status:desc,name:asc' })).toEqual(order([0, 2, 1]))
    } finally {
      await update(s[0] ?? '', "usage_status = 'NEARING_PLAN'")
    }
  })

  it.each([
    [{ orderBy: 'type' }, 'type'],
    [{ orderBy: 'uid:desc' }, 'uid'],
    [{ asc: 'labels' }, 'labels'],
    [{ desc: 'data.latitude' }, 'data.latitude']
  ])('refuses a non-sortable attribute with 400 sort.invalid.field (%o)', async (q, field) => {
    const res = await get(q)
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ error: 'sort.invalid.field', errorParameters: [field, expect.stringMatching(/^sortable: .*\bname\b/)] })
  })
})

describe('paging', () => {
  it('offset and size: count is the total matching, size the page length', async () => {
    const L = uniq('page')
    const uids = await createMany(L, 7)
    for (const [i, uid] of uids.entries()) await update(uid, 'creation_date = $2', [1_700_000_000_000 + i])
    const newestFirst = [...uids].reverse()
    const p = await find({ labels: L, offset: 2, size: 3 })
    expect(p).toMatchObject({ count: 7, size: 3, offset: 2 })
    expect(p.items.map((i) => i.uid)).toEqual(newestFirst.slice(2, 5))
    const last = await find({ labels: L, offset: 6, size: 3 })
    expect(last).toMatchObject({ count: 7, size: 1, offset: 6 })
    expect(last.items.map((i) => i.uid)).toEqual(newestFirst.slice(6))
    expect(await find({ labels: L, offset: 10 })).toEqual({ items: [], count: 7, size: 0, offset: 10 })
  })

  it('defaults to 100 and clamps a size above 500 to 500', async () => {
    const L = uniq('many')
    await stack.db.query(`INSERT INTO systems (uid, company_uid, name, life_cycle_state, state, activity_state, creation_date,
      last_state_change_date, labels)
      SELECT md5($2::text || i), $1, $2::text || '-' || i, 'INVENTORY', 'INVENTORY', 'ACTIVATED', 1700000000000 + i,
        1700000000000 + i, ARRAY[$2::text]
      FROM generate_series(1, 510) AS i`, [stack.companyUid, L])
    const byDefault = await find({ labels: L, fields: 'uid' })
    expect(byDefault).toMatchObject({ count: 510, size: 100, offset: 0 })
    expect(byDefault.items).toHaveLength(100)
    const clamped = await find({ labels: L, size: 1000, fields: 'uid' })
    expect(clamped).toMatchObject({ count: 510, size: 500, offset: 0 })
    expect(clamped.items).toHaveLength(500)
    expect(new Set(clamped.items.map((i) => i.uid)).size).toBe(500)
  })
})
