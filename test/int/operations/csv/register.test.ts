// POST /api/v1/operations/systems/register (docs/operations.md#csv-operations; §Errors row "register";
// docs/operations.md#bulk-operations: one task per row with its line): what a row makes, completing a SIM's system,
// registration codes against the seeded gateway inventory, every per-row code, a failing row leaving nothing behind,
// the failed-rows file and what spreadsheets write (BOM, `;`, CRLF).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { COMPANY_NAME, startStack, type Stack } from '../../../helpers/stack.js'
import { createUser, seed, uniq } from '../../../helpers/factories.js'
import { appUid, createSystem, getSystem, seedCatalogue, validImei, type Catalogue } from '../../../helpers/systems.js'
import { codesByLine, failedRows, postCsv, REGISTER, refusedCsv, runCsv } from './csv-helpers.js'

let stack: Stack
let catalogue: Catalogue
let offerUid: string
let n = 0
const imei = (): string => validImei(31_000 + ++n)
const sn = (): string => uniq('SN')
const iccid = (): string => `8933${String(Date.now()).slice(-8)}${String(++n).padStart(6, '0')}`

// A product that needs its registration code, and the company's inventory of it (the seed's sections).
const CODED = { serialNumber: uniq('WP'), imei: validImei(39_001), code: 'K7Q-2291' }
const CODED2 = { serialNumber: uniq('WP'), imei: validImei(39_003), code: 'Z9Z-0001' }

beforeAll(async () => {
  stack = await startStack()
  catalogue = await seedCatalogue(stack)
  await seed(stack, {
    gatewayProducts: [{ type: 'WP7702', registrationCode: true }, { type: 'FX30', registrationCode: false }],
    gatewayInventory: [
      { company: COMPANY_NAME, serialNumber: CODED.serialNumber, imei: CODED.imei, type: 'WP7702', registrationCode: CODED.code },
      { company: COMPANY_NAME, serialNumber: CODED2.serialNumber, imei: CODED2.imei, type: 'WP7702', registrationCode: CODED2.code },
      { company: COMPANY_NAME, serialNumber: 'FX30-INV-1', imei: validImei(39_002), type: 'FX30' }
    ]
  })
  const { rows } = await stack.db.query<{ uid: string }>('SELECT uid FROM offers WHERE name = $1', ['Basic offer'])
  offerUid = rows[0]?.uid ?? ''
}, 60_000)
afterAll(async () => { await stack?.close() })

const exists = async (table: string, column: string, value: string): Promise<boolean> =>
  ((await stack.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${column} = $1`, [value])).rows[0]?.n ?? 0) > 0

describe('register: rows that make systems', () => {
  it('a spreadsheet file (UTF-8 BOM, `;`, CRLF) makes one system per row, with its line, labels, SIM, offer and default applications', async () => {
    const a = { sn: sn(), imei: imei(), iccid: iccid() }
    const b = { sn: sn(), imei: imei() }
    const csv = '\uFEFFNAME;TYPE;LABELS;GATEWAY[SERIAL NUMBER];GATEWAY[IMEI];SUBSCRIPTION[IDENTIFIER];SUBSCRIPTION[OPERATOR];M3DA[password]\r\n' +
      `Truck é1;tracker;north|fleet;${a.sn};${a.imei};${a.iccid};ORANGE;s3cret-pass\r\n` +
      `;;;${b.sn};${b.imei};;;\r\n`
    const fw = appUid(catalogue, 'fw.public@1.0')
    const { op, tasks } = await runCsv(stack, REGISTER, csv, { defaults: { defaultApplications: [fw], offerId: offerUid } })
    expect(op).toMatchObject({ operationType: 'SYSTEM_REGISTER', state: 'FINISHED', total: 2 })
    expect(tasks.map((t) => [t.line, t.state])).toEqual([[2, 'SUCCESS'], [3, 'SUCCESS']])
    const first = await getSystem(stack, tasks[0]?.system.uid)
    expect(first).toMatchObject({ name: 'Truck é1', type: 'tracker', lifeCycleState: 'INVENTORY', gateway: { serialNumber: a.sn, imei: a.imei }, subscription: { identifier: a.iccid, operator: 'ORANGE' }, offer: { uid: offerUid } })
    expect([...first.labels].sort()).toEqual(['fleet', 'north'])
    expect(first.applications.map((x: { uid: string }) => x.uid)).toEqual([fw])
    expect(first.communication.m3da.password).toBe('s3cret-pass')
    expect(tasks[0]?.system.name).toBe('Truck é1')
    // docs/api.md#systems: without a name, the serial number names the system.
    expect(await getSystem(stack, tasks[1]?.system.uid)).toMatchObject({ name: b.sn, gateway: { serialNumber: b.sn, imei: b.imei }, subscription: null })
  })

  it('a SIM already in the company: its system is completed with the gateway, not a new one', async () => {
    const sim = iccid()
    const existing = await createSystem(stack, { name: uniq('sim-only'), labels: ['old'], subscription: { identifier: sim, operator: 'ORANGE' } })
    const g = { sn: sn(), imei: imei() }
    const { tasks } = await runCsv(stack, REGISTER, `GATEWAY[SERIAL NUMBER],GATEWAY[IMEI],SUBSCRIPTION[IDENTIFIER],LABELS\n${g.sn},${g.imei},${sim},new\n`)
    expect(tasks[0]).toMatchObject({ state: 'SUCCESS', line: 2, system: { uid: existing.uid } })
    const s = await getSystem(stack, existing.uid)
    expect(s).toMatchObject({ gateway: { serialNumber: g.sn, imei: g.imei }, subscription: { identifier: sim } })
    expect([...s.labels].sort()).toEqual(['new', 'old'])
  })

  it('a SIM in the company but in no system gets a new system (no operator needed)', async () => {
    const sim = iccid()
    const made = await createSystem(stack, { name: uniq('tmp'), subscription: { identifier: sim, operator: 'SFR' } })
    await stack.call(stack.adminToken, { method: 'DELETE', url: `/api/v1/systems/${made.uid}` })
    const { tasks } = await runCsv(stack, REGISTER, `NAME,SUBSCRIPTION[IDENTIFIER]\nfrom-stock,${sim}\n`)
    expect(tasks[0]?.state).toBe('SUCCESS')
    expect(await getSystem(stack, tasks[0]?.system.uid)).toMatchObject({ name: 'from-stock', subscription: { identifier: sim, operator: 'SFR' } })
  })

  it('a product that needs a registration code registers with its serial number and code; IMEI and type come from the inventory', async () => {
    const { tasks } = await runCsv(stack, REGISTER, `GATEWAY[SERIAL NUMBER],REGISTRATION CODE\n${CODED.serialNumber},${CODED.code}\n`)
    expect(tasks[0]?.state).toBe('SUCCESS')
    expect(await getSystem(stack, tasks[0]?.system.uid)).toMatchObject({ gateway: { serialNumber: CODED.serialNumber, imei: CODED.imei, type: 'WP7702' } })
  })

  it('the JSON part may be named parameters, and the CSV part anything', async () => {
    const { tasks } = await runCsv(stack, REGISTER, `GATEWAY[serialNumber],GATEWAY[imei]\n${sn()},${imei()}\n`, { defaultsName: 'parameters', partName: 'whatever', defaults: { offerId: offerUid } })
    expect((await getSystem(stack, tasks[0]?.system.uid)).offer).toMatchObject({ uid: offerUid })
  })
})

describe('register: rows that fail, with their code', () => {
  it('every code of the register row, one row each; the other rows apply', async () => {
    const taken = await createSystem(stack, { name: uniq('taken'), gateway: { serialNumber: sn(), imei: imei() }, subscription: { identifier: iccid(), operator: 'ORANGE' } })
    const dup = { sn: sn(), imei: imei(), iccid: iccid() }
    const ok = { sn: sn(), imei: imei() }
    const rows = [
      /* 2 */ `${ok.sn},${ok.imei},,,,`,
      /* 3 */ `${CODED.serialNumber},,,,WRONG,`,
      /* 4 */ `${CODED2.serialNumber},,,,,`,
      /* 5 */ 'FX30-INV-1,,,,,',
      /* 6 */ `,${imei()},,,,`,
      /* 7 */ `${sn()},12345,,,,`,
      /* 8 */ `${taken.gateway.serialNumber},${taken.gateway.imei},,,,`,
      /* 9 */ `${sn()},${imei()},${taken.subscription.identifier},,,`,
      /* 10 */ `${dup.sn},${dup.imei},${dup.iccid},ORANGE,,`,
      /* 11 */ `${dup.sn},${imei()},${iccid()},ORANGE,,`,
      /* 12 */ `${sn()},${imei()},${dup.iccid},ORANGE,,`,
      /* 13 */ `${sn()},${imei()},${iccid()},,,`,
      /* 14 */ `${sn()},${imei()},${iccid()},NOT_AN_OPERATOR,,`,
      /* 15 */ `${sn()},${imei()},,,,short`,
      /* 16 */ ',,,,,',
      /* 17 */ `${sn()},,,,NO-SUCH-CODE,`
    ]
    const csv = `GATEWAY[SERIAL NUMBER],GATEWAY[IMEI],SUBSCRIPTION[IDENTIFIER],SUBSCRIPTION[OPERATOR],REGISTRATION CODE,M3DA[password]\n${rows.join('\n')}\n`
    const { op, tasks } = await runCsv(stack, REGISTER, csv)
    expect(codesByLine(tasks)).toEqual({
      2: null,
      3: 'system.invalid.registration.code',
      4: 'system.invalid.registration.code',
      5: 'gateway.missing.identifiers',
      6: 'gateway.missing.identifiers',
      7: 'gateway.invalid.imei',
      8: 'gateway.assigned',
      9: 'subscription.assigned',
      10: null,
      11: 'gateway.not.unique.identifiers',
      12: 'subscription.not.unique.identifiers',
      13: 'subscription.missing.operator',
      14: 'unknown.enum.value',
      15: 'system.invalid.m3da.password',
      17: 'system.invalid.registration.code'
    })
    // line 16 is blank: not a row
    expect(op.total).toBe(15)
  })

  it('a row that fails leaves nothing behind: no gateway, no subscription, no system', async () => {
    const g = { sn: sn(), imei: imei(), iccid: iccid() }
    const { op, tasks } = await runCsv(stack, REGISTER, `NAME,GATEWAY[SERIAL NUMBER],GATEWAY[IMEI],SUBSCRIPTION[IDENTIFIER],SUBSCRIPTION[OPERATOR],M3DA[password]\nhalf,${g.sn},${g.imei},${g.iccid},ORANGE,bad pass\n`)
    expect(tasks[0]).toMatchObject({ state: 'FAILURE', error: { code: 'system.invalid.m3da.password' }, line: 2, system: null })
    expect(op.target).toBeNull()
    expect(await exists('gateways', 'serial_number', g.sn)).toBe(false)
    expect(await exists('subscriptions', 'identifier', g.iccid)).toBe(false)
    expect(await exists('systems', 'name', 'half')).toBe(false)
  })

  it('system.limit.exceeded once the company holds its limit', async () => {
    await seed(stack, { companies: [{ name: 'Small Co', systemLimit: 1 }] })
    const user = await createUser(stack, { company: 'Small Co', rights: ['entities.systems.create', 'entities.systems.view'] })
    const { tasks } = await runCsv(stack, REGISTER, `GATEWAY[SERIAL NUMBER],GATEWAY[IMEI]\n${sn()},${imei()}\n${sn()},${imei()}\n`, { token: user.token })
    expect(tasks.map((t) => t.error?.code ?? null)).toEqual([null, 'system.limit.exceeded'])
  })
})

describe('register: refused before anything is made (400, no operation)', () => {
  it('offer.unknown and application.unknown in the JSON part', async () => {
    const csv = `GATEWAY[SERIAL NUMBER],GATEWAY[IMEI]\n${sn()},${imei()}\n`
    await refusedCsv(stack, async () => await postCsv(stack, REGISTER, csv, { defaults: { offerId: 'no-such-offer' } }), 'offer.unknown')
    await refusedCsv(stack, async () => await postCsv(stack, REGISTER, csv, { defaults: { defaultApplications: ['no-such-app'] } }), 'application.unknown')
    await refusedCsv(stack, async () => await postCsv(stack, REGISTER, csv, { defaults: '{not json' }), 'request.invalid')
  })

  it('notify and callback of the JSON part are the operation\'s (a callback to a private address is refused as for any operation)', async () => {
    const csv = `GATEWAY[SERIAL NUMBER],GATEWAY[IMEI]\n${sn()},${imei()}\n`
    await refusedCsv(stack, async () => await postCsv(stack, REGISTER, csv, { defaults: { callback: 'http://127.0.0.1:9/hook' } }), 'callback.forbidden')
    await refusedCsv(stack, async () => await postCsv(stack, REGISTER, csv, { defaults: { notify: 'yes' } }), 'request.invalid')
    const { op } = await runCsv(stack, REGISTER, csv, { defaults: { notify: true } })
    expect(op).toMatchObject({ notify: true, callback: null, parameters: { defaultValues: {} } })
  })

  it('the rights of fleet-api.md: create for register and import, edit for bulk edit (403 missing.rights)', async () => {
    const viewer = await createUser(stack, { rights: ['entities.systems.view', 'entities.systems.edit'] })
    const csv = `GATEWAY[SERIAL NUMBER],GATEWAY[IMEI]\n${sn()},${imei()}\n`
    for (const url of [REGISTER, '/api/v1/operations/systems/import']) {
      const res = await postCsv(stack, url, csv, { token: viewer.token })
      expect({ status: res.statusCode, error: res.json().error }).toEqual({ status: 403, error: 'missing.rights' })
    }
    const editor = await createUser(stack, { rights: ['entities.systems.view', 'entities.systems.create'] })
    const res = await postCsv(stack, '/api/v1/operations/systems/edit', 'UID\nx\n', { token: editor.token })
    expect(res.statusCode).toBe(403)
  })

  it('a column of import (METADATA) is unknown to register', async () => {
    await refusedCsv(stack, async () => await postCsv(stack, REGISTER, `GATEWAY[SERIAL NUMBER],METADATA[color]\n${sn()},red\n`), 'csv.header.unknown.column')
  })
})

describe('register: the failed rows file', () => {
  it('GET /operations/{uid}/file answers the failed rows in the file\'s separator with an ERROR column; sent again, the ERROR column is ignored', async () => {
    const good = { sn: sn(), imei: imei() }
    const csv = `NAME;GATEWAY[SERIAL NUMBER];GATEWAY[IMEI]\r\nok;${good.sn};${good.imei}\r\n"bad; one";${sn()};123\r\nalso bad;;${imei()}\r\n`
    const { op } = await runCsv(stack, REGISTER, csv)
    const file = await failedRows(stack, op.uid)
    expect(file.contentType).toMatch(/^text\/csv/)
    expect(file.raw.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]))
    const lines = file.text.split('\r\n')
    expect(lines[0]).toBe('NAME;GATEWAY[SERIAL NUMBER];GATEWAY[IMEI];ERROR')
    expect(lines[1]).toMatch(/^"bad; one";SN-[0-9a-f]+;123;gateway\.invalid\.imei/)
    expect(lines[2]).toMatch(/^also bad;;\d+;gateway\.missing\.identifiers/)
    expect(lines.slice(3)).toEqual([''])
    // The user fixes nothing and sends the file back: it is read (the ERROR column is a comment), the rows fail again.
    const again = await runCsv(stack, REGISTER, file.raw)
    expect(again.tasks.map((t) => t.error?.code)).toEqual(['gateway.invalid.imei', 'gateway.missing.identifiers'])
  })
})
