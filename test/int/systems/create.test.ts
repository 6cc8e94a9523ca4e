// POST /api/v1/systems (docs/api.md#systems, docs/api.md#using-the-api row "create system").
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createUser, seed, uniq, type TestUser } from '../../helpers/factories.js'
import {
  appUid, countRows, createSystem, expectError, expectRejected, OTHER_COMPANY, postSystem, seedCatalogue, validImei,
  type Body, type Catalogue
} from '../../helpers/systems.js'

let stack: Stack
let cat: Catalogue
let other: TestUser
let n = 0
const imei = (): string => validImei(++n)
const serial = (): string => uniq('SN')

beforeAll(async () => {
  stack = await startStack()
  cat = await seedCatalogue(stack)
  other = await createUser(stack, { company: OTHER_COMPANY, rights: ['entities.systems.create', 'entities.systems.view'] })
})
afterAll(async () => { await stack.close() })

const reject = async (body: Body, code: string): Promise<void> => {
  await expectRejected(stack, async () => await postSystem(stack, body), code)
}

describe('create: the created System', () => {
  it('answers the full System in its initial state (§States: create system)', async () => {
    const before = Date.now()
    const s = await createSystem(stack, {
      name: 'first',
      type: 'router',
      labels: ['a', 'b', 'a'],
      metadata: { site: 'Paris' },
      communication: { mqtt: { password: 'mqtt-secret' } },
      gateway: { imei: imei(), serialNumber: serial(), macAddress: '00:11:22:33:44:55', type: 'GL7600' },
      subscription: { identifier: uniq('8933'), operator: 'ORANGE', mobileNumber: '+33612345678', formFactor: '4FF' },
      applications: [{ uid: appUid(cat, 'fw.public@1.0') }]
    })
    expect(s).toMatchObject({
      name: 'first',
      type: 'router',
      lifeCycleState: 'INVENTORY',
      state: 'INVENTORY',
      activityState: 'ACTIVATED',
      commStatus: 'UNDEFINED',
      syncStatus: 'NOT_SYNC',
      activationDate: null,
      lastCommDate: null,
      lastSyncDate: null,
      labels: ['a', 'b'],
      metadata: { site: 'Paris' },
      communication: { mqtt: { password: 'mqtt-secret' }, m3da: null, rest: null, msci: null, lwm2m: null },
      heartbeat: null,
      statusReport: null,
      reports: [],
      offer: null,
      applications: [{ uid: appUid(cat, 'fw.public@1.0'), name: 'Public firmware', revision: '1.0', type: 'fw.public', category: 'FIRMWARE' }],
      subscription: { operator: 'ORANGE', mobileNumber: '+33612345678', formFactor: '4FF' },
      gateway: { macAddress: '00:11:22:33:44:55', type: 'GL7600' }
    })
    expect(typeof s.uid).toBe('string')
    expect(s.creationDate).toBeGreaterThanOrEqual(before)
    expect(s.lastStateChangeDate).toBe(s.creationDate)
    expect(s.gateway.creationDate).toBeGreaterThanOrEqual(before)
    expect(s.subscriptions).toEqual([s.subscription])
    for (const level of ['rssiLevel', 'ecioLevel', 'rsrpLevel', 'rsrqLevel', 'signalStrength']) expect(s.data[level]).toBe('NO_REPORT')
    expect(s.data.networkServiceType).toBe('UNKNOWN')
    expect(s.data.roamingStatus).toBe('UNKNOWN')
    expect(s.dataUsage).toMatchObject({ bytesTotal: 0, status: 'WITHIN_PLAN' })
    const details = (await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${s.uid as string}` })).json()
    expect(details).toEqual(s)
  })

  it('names the system after the serial number, then the IMEI, then the MAC address', async () => {
    const sn = serial()
    const i1 = imei()
    const i2 = imei()
    expect((await createSystem(stack, { gateway: { imei: i1, serialNumber: sn, macAddress: '00:11:22:33:44:66' } })).name).toBe(sn)
    expect((await createSystem(stack, { name: '', gateway: { imei: i2, macAddress: '00:11:22:33:44:77' } })).name).toBe(i2)
    expect((await createSystem(stack, { name: '  ', gateway: { macAddress: '00:11:22:33:44:88' } })).name).toBe('00:11:22:33:44:88')
  })

  it('refuses a system with no name and no gateway identifiers: system.missing.fields', async () => {
    await reject({}, 'system.missing.fields')
    await reject({ name: '', type: 'x', subscription: { identifier: uniq('8933'), operator: 'ORANGE' } }, 'system.missing.fields')
  })
})

describe('create: gateway', () => {
  it('creates a gateway on the fly', async () => {
    const before = await countRows(stack)
    const s = await createSystem(stack, { gateway: { serialNumber: serial() } })
    expect((await countRows(stack)).gateways).toBe(before.gateways + 1)
    expect(s.gateway).toMatchObject({ imei: null, macAddress: null, type: null })
  })

  it('reuses a gateway of the company holding one of the identifiers, updating its identifiers', async () => {
    const i = imei()
    const first = await createSystem(stack, { name: 'reuse-1', gateway: { imei: i } })
    const del = await stack.call(stack.adminToken, { method: 'DELETE', url: `/api/v1/systems/${first.uid as string}` })
    expect(del.statusCode).toBe(200)
    const before = await countRows(stack)
    const sn = serial()
    const second = await createSystem(stack, { name: 'reuse-2', gateway: { imei: i, serialNumber: sn, type: 'FX30' } })
    expect(second.gateway).toMatchObject({ uid: first.gateway.uid, imei: i, serialNumber: sn, type: 'FX30', creationDate: first.gateway.creationDate })
    expect((await countRows(stack)).gateways).toBe(before.gateways)
  })

  it('links an existing gateway by uid', async () => {
    const first = await createSystem(stack, { name: 'link-1', gateway: { serialNumber: serial() } })
    await stack.call(stack.adminToken, { method: 'DELETE', url: `/api/v1/systems/${first.uid as string}` })
    const second = await createSystem(stack, { name: 'link-2', gateway: { uid: first.gateway.uid } })
    expect(second.gateway).toEqual(first.gateway)
  })

  it('refuses an unknown gateway uid, and one of another company: gateway.unknown', async () => {
    await reject({ name: 'x', gateway: { uid: 'no-such-gateway' } }, 'gateway.unknown')
    const theirs = await createSystem(stack, { gateway: { serialNumber: serial() } }, { token: other.token })
    await reject({ name: 'x', gateway: { uid: theirs.gateway.uid } }, 'gateway.unknown')
  })

  it('refuses a gateway with no IMEI, serial number or MAC address: gateway.missing.identifiers', async () => {
    await reject({ name: 'x', gateway: { type: 'FX30' } }, 'gateway.missing.identifiers')
    await reject({ name: 'x', gateway: { imei: '', serialNumber: null } }, 'gateway.missing.identifiers')
  })

  it('refuses identifiers held by two different gateways: gateway.not.unique.identifiers', async () => {
    const a = await createSystem(stack, { gateway: { imei: imei() } })
    const b = await createSystem(stack, { gateway: { serialNumber: serial() } })
    await reject({ name: 'x', gateway: { imei: a.gateway.imei, serialNumber: b.gateway.serialNumber } }, 'gateway.not.unique.identifiers')
  })

  it.each([
    ['gateway.invalid.imei', { imei: '35000000000000' }], // 14 digits
    ['gateway.invalid.imei', { imei: validImei(999).slice(0, 14) + String((Number(validImei(999).slice(14)) + 1) % 10) }],
    ['gateway.invalid.imei', { imei: '35000000000000A' }],
    ['gateway.invalid.esn', { serialNumber: 'SN-esn', esn: 'XYZ' }],
    ['gateway.invalid.esn', { serialNumber: 'SN-esn', esn: '25612345678' }], // manufacturer code over 255
    ['gateway.invalid.meid', { serialNumber: 'SN-meid', meid: 'A1000000' }],
    ['gateway.invalid.mac.address', { macAddress: '00:11:22:33:44' }],
    ['gateway.invalid.mac.address', { macAddress: '00:11-22:33:44:55' }]
  ])('refuses malformed identifiers: %s %j', async (code, gateway) => {
    await reject({ name: 'x', gateway }, code)
  })

  it('accepts well-formed ESN and MEID', async () => {
    const s = await createSystem(stack, { gateway: { serialNumber: serial(), esn: '8A3C21F0', meid: 'A10000009296F2' } })
    const { rows } = await stack.db.query<{ esn: string, meid: string }>('SELECT esn, meid FROM gateways WHERE uid = $1', [s.gateway.uid])
    expect(rows[0]).toEqual({ esn: '8A3C21F0', meid: 'A10000009296F2' })
  })
})

describe('create: subscription', () => {
  it('creates a subscription from identifier and operator (UNKNOWN allowed), with an operator account', async () => {
    const id = uniq('8933')
    const s = await createSystem(stack, { name: 'sub-1', subscription: { identifier: id, operator: 'UNKNOWN' } })
    expect(s.subscription).toMatchObject({ identifier: id, operator: 'UNKNOWN', state: 'INVENTORY', mobileNumber: null })
    const withAccount = await createSystem(stack, {
      name: 'sub-2', subscription: { identifier: uniq('8933'), operator: 'ORANGE', operatorAccount: { uid: cat.accounts['Orange account'] } }
    })
    const { rows } = await stack.db.query<{ operator_account_uid: string }>('SELECT operator_account_uid FROM subscriptions WHERE uid = $1', [withAccount.subscription.uid])
    expect(rows[0]?.operator_account_uid).toBe(cat.accounts['Orange account'])
  })

  it('refuses a subscription without identifier or operator', async () => {
    await reject({ name: 'x', subscription: { operator: 'ORANGE' } }, 'subscription.missing.identifier')
    await reject({ name: 'x', subscription: { identifier: uniq('8933') } }, 'subscription.missing.operator')
    await reject({ name: 'x', subscription: { identifier: uniq('8933'), operator: '' } }, 'subscription.missing.operator')
  })

  it('refuses unknown enum values: unknown.enum.value', async () => {
    await reject({ name: 'x', subscription: { identifier: uniq('8933'), operator: 'FOO' } }, 'unknown.enum.value')
    await reject({ name: 'x', subscription: { identifier: uniq('8933'), operator: 'ORANGE', formFactor: '9FF' } }, 'unknown.enum.value')
    await reject({ name: 'x', lifeCycleState: 'FOO' }, 'unknown.enum.value')
  })

  it('refuses an operator account that is unknown or of another company: operator.account.unknown', async () => {
    await reject({ name: 'x', subscription: { identifier: uniq('8933'), operator: 'ORANGE', operatorAccount: { uid: 'nope' } } }, 'operator.account.unknown')
    await reject({ name: 'x', subscription: { identifier: uniq('8933'), operator: 'ORANGE', operatorAccount: { uid: cat.accounts['Other account'] } } }, 'operator.account.unknown')
  })

  it('refuses an operator account of another operator: subscription.operator.and.operator.account.incompatible', async () => {
    await reject({ name: 'x', subscription: { identifier: uniq('8933'), operator: 'SFR', operatorAccount: { uid: cat.accounts['Orange account'] } } },
      'subscription.operator.and.operator.account.incompatible')
  })
})

describe('create: applications', () => {
  it('links public applications and the company\'s own by uid', async () => {
    const s = await createSystem(stack, { name: 'apps', applications: [{ uid: appUid(cat, 'app.own@1') }, { uid: appUid(cat, 'app.mqtt@1') }] })
    expect(s.applications.map((a: { uid: string }) => a.uid).sort()).toEqual([appUid(cat, 'app.own@1'), appUid(cat, 'app.mqtt@1')].sort())
  })

  it('refuses an unknown application, or a private one of another company: application.unknown', async () => {
    await reject({ name: 'x', applications: [{ uid: 'nope' }] }, 'application.unknown')
    await reject({ name: 'x', applications: [{ uid: appUid(cat, 'app.other@1') }] }, 'application.unknown')
  })

  it('refuses an application entry without uid: application.missing', async () => {
    await reject({ name: 'x', applications: [{}] }, 'application.missing')
  })

  it('refuses the same application twice: application.not.unique', async () => {
    await reject({ name: 'x', applications: [{ uid: appUid(cat, 'app.own@1') }, { uid: appUid(cat, 'app.own@1') }] }, 'application.not.unique')
  })

  it('refuses two applications of one type: system.applications.type.not.unique', async () => {
    await reject({ name: 'x', applications: [{ uid: appUid(cat, 'fw.public@1.0') }, { uid: appUid(cat, 'fw.public@2.0') }] }, 'system.applications.type.not.unique')
  })

  it('refuses two applications using one protocol: applications.protocol.conflicts', async () => {
    await reject({ name: 'x', applications: [{ uid: appUid(cat, 'app.mqtt@1') }, { uid: appUid(cat, 'app.mqtt2@1') }] }, 'applications.protocol.conflicts')
  })
})

describe('create: composition (set C)', () => {
  it('refuses a gateway or subscription already used by another system: system.invalid.assignment', async () => {
    const s = await createSystem(stack, { gateway: { imei: imei() }, subscription: { identifier: uniq('8933'), operator: 'ORANGE' } })
    await reject({ name: 'x', gateway: { uid: s.gateway.uid } }, 'system.invalid.assignment')
    await reject({ name: 'x', gateway: { imei: s.gateway.imei, serialNumber: serial(), type: 'changed' } }, 'system.invalid.assignment')
    expect((await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${s.uid as string}` })).json().gateway).toEqual(s.gateway)
    await reject({ name: 'x', subscription: { uid: s.subscription.uid } }, 'system.invalid.assignment')
    await reject({ name: 'x', subscription: { identifier: s.subscription.identifier, operator: 'ORANGE' } }, 'system.invalid.assignment')
  })

  it('refuses a SIM locked to another IMEI: system.invalid.compatibility', async () => {
    const locked = { identifier: uniq('8933'), operator: 'ORANGE', activationImei: imei(), imeiLock: { imeiLock: true } }
    await reject({ name: 'x', gateway: { imei: imei() }, subscription: locked }, 'system.invalid.compatibility')
    const ok = await createSystem(stack, { name: 'locked-ok', gateway: { imei: locked.activationImei }, subscription: locked })
    expect(ok.subscription.imeiLock).toMatchObject({ imeiLock: true })
  })

  it('refuses a serial number another company\'s system logs in with: system.communication.identifier.already.used', async () => {
    const sn = serial()
    await createSystem(stack, { gateway: { serialNumber: sn } }, { token: other.token })
    await reject({ name: 'x', gateway: { serialNumber: sn } }, 'system.communication.identifier.already.used')
  })

  it('lets only one of two companies creating systems with one serial number at once have it', async () => {
    for (let round = 0; round < 5; round++) {
      const sn = serial()
      const [mine, theirs] = await Promise.all([
        postSystem(stack, { gateway: { serialNumber: sn } }),
        postSystem(stack, { gateway: { serialNumber: sn } }, { token: other.token })
      ])
      const outcomes = [mine, theirs].map((r) => r.statusCode === 200 ? 'created' : r.json().error).sort()
      expect(outcomes).toEqual(['created', 'system.communication.identifier.already.used'])
      const { rows } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM gateways WHERE serial_number = $1', [sn])
      expect(rows[0]?.n).toBe(1)
    }
  })

  it.each([
    ['system.invalid.m3da.password', { m3da: { password: 'short' } }],
    ['system.invalid.m3da.password', { m3da: { password: 'with spaces inside' } }],
    ['system.invalid.m3da.registration.password', { m3da: { registrationPassword: 'short' } }],
    ['system.invalid.m3da.registration.password', { m3da: { registrationPassword: 'with spaces inside' } }]
  ])('refuses a malformed M3DA password: %s %j', async (code, communication) => {
    await reject({ name: 'x', communication }, code)
  })

  it('accepts well-formed M3DA passwords', async () => {
    const s = await createSystem(stack, { name: 'm3da', communication: { m3da: { password: 'p4ssw0rd!', registrationPassword: 'reg-pass-1' } } })
    expect(s.communication.m3da).toEqual({ password: 'p4ssw0rd!', registrationPassword: 'reg-pass-1' })
  })
})

describe('create: limits and rights', () => {
  it('refuses a system over the company limit: system.limit.exceeded', async () => {
    const company = uniq('Limited')
    await seed(stack, { companies: [{ name: company, systemLimit: 2 }] })
    const user = await createUser(stack, { company, rights: ['entities.systems.create'] })
    await createSystem(stack, { name: 'l1', gateway: { serialNumber: serial() } }, { token: user.token })
    await createSystem(stack, { name: 'l2', gateway: { serialNumber: serial() } }, { token: user.token })
    await expectRejected(stack, async () => await postSystem(stack, {
      name: 'l3', gateway: { serialNumber: serial() }, subscription: { identifier: uniq('8933'), operator: 'ORANGE' }
    }, { token: user.token }), 'system.limit.exceeded')
  })

  it('refuses a caller without entities.systems.create: 403 missing.rights', async () => {
    const user = await createUser(stack, { rights: ['entities.systems.view', 'entities.systems.edit'] })
    const res = await postSystem(stack, { name: 'x' }, { token: user.token })
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({ error: 'missing.rights', errorParameters: ['entities.systems.create'] })
  })

  it('refuses a company the caller has no access to: partner.unknown', async () => {
    const res = await postSystem(stack, { name: 'x' }, { company: cat.otherCompanyUid })
    expectError(res, 'partner.unknown')
  })

  it('creates in the given context company when the caller belongs to it', async () => {
    const s = await createSystem(stack, { name: 'in-context' }, { company: stack.companyUid })
    const { rows } = await stack.db.query<{ company_uid: string }>('SELECT company_uid FROM systems WHERE uid = $1', [s.uid])
    expect(rows[0]?.company_uid).toBe(stack.companyUid)
  })
})
