// POST /api/v1/operations/systems/import (docs/operations.md#csv-operations, deprecated and kept) and
// POST /api/v1/operations/systems/edit (§Bulk edit): every header of their tables, the default values, the codes of
// their §Errors rows per row, blank cells that set null, and the raw application/octet-stream body of bulk edit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../../helpers/stack.js'
import { uniq } from '../../../helpers/factories.js'
import { appUid, createSystem, getSystem, seedCatalogue, validImei, type Catalogue } from '../../../helpers/systems.js'
import { allTasks, started, waitFinished } from '../../../helpers/operations.js'
import { codesByLine, EDIT, failedRows, IMPORT, multipart, runCsv } from './csv-helpers.js'

let stack: Stack
let catalogue: Catalogue
let n = 0
const imei = (): string => validImei(52_000 + ++n)
const sn = (): string => uniq('SN')
const iccid = (): string => `8944${String(Date.now()).slice(-8)}${String(++n).padStart(6, '0')}`

beforeAll(async () => {
  stack = await startStack()
  catalogue = await seedCatalogue(stack)
}, 60_000)
afterAll(async () => { await stack?.close() })

describe('import', () => {
  it('every column: name, type, labels, gateway and subscription fields, metadata, communication; defaultType and defaultApplications', async () => {
    const g = { sn: sn(), imei: imei(), iccid: iccid() }
    const header = 'NAME,LABELS,GATEWAY[IMEI],GATEWAY[SERIAL NUMBER],GATEWAY[MAC ADDRESS],GATEWAY[TYPE],SUBSCRIPTION[IDENTIFIER],SUBSCRIPTION[OPERATOR],' +
      'SUBSCRIPTION[MOBILE NUMBER],SUBSCRIPTION[NETWORK IDENTIFIER],SUBSCRIPTION[FORM FACTOR],METADATA[color],MSCI[host],MSCI[user],MSCI[password],REST[password],MQTT[password],M3DA[registrationPassword]'
    const row = `imported,a|b,${g.imei},${g.sn},00:1A:2B:3C:4D:5E,FX30,${g.iccid},ORANGE,+33600000001,208011234567890,4FF,blue,h.example,u1,p1,rest-pass,mqtt-pass,reg-pass-123`
    const fw = appUid(catalogue, 'fw.public@1.0')
    const { op, tasks } = await runCsv(stack, IMPORT, `${header}\n${row}\n`, { defaults: { defaultType: 'meter', defaultApplications: [fw], notify: false } })
    expect(op).toMatchObject({ operationType: 'SYSTEM_IMPORT', state: 'FINISHED', notify: false })
    expect(tasks[0]).toMatchObject({ state: 'SUCCESS', line: 2 })
    const s = await getSystem(stack, tasks[0]?.system.uid)
    expect(s).toMatchObject({
      name: 'imported',
      type: 'meter',
      metadata: { color: 'blue' },
      gateway: { imei: g.imei, serialNumber: g.sn, macAddress: '00:1A:2B:3C:4D:5E', type: 'FX30' },
      subscription: { identifier: g.iccid, operator: 'ORANGE', mobileNumber: '+33600000001', networkIdentifier: '208011234567890', formFactor: '4FF' },
      communication: { msci: { host: 'h.example', user: 'u1', password: 'p1' }, rest: { password: 'rest-pass' }, mqtt: { password: 'mqtt-pass' }, m3da: { registrationPassword: 'reg-pass-123' } }
    })
    expect([...s.labels].sort()).toEqual(['a', 'b'])
    expect(s.applications.map((a: { uid: string }) => a.uid)).toEqual([fw])
    // The system's labels are inherited by the new gateway and subscription (docs/operations.md#csv-operations).
    const gw = await stack.db.query<{ labels: string[] }>('SELECT labels FROM gateways WHERE uid = $1', [s.gateway.uid])
    const sim = await stack.db.query<{ labels: string[] }>('SELECT labels FROM subscriptions WHERE uid = $1', [s.subscription.uid])
    expect(gw.rows[0]?.labels).toEqual(['a', 'b'])
    expect(sim.rows[0]?.labels).toEqual(['a', 'b'])
  })

  it('TYPE column wins over defaultType; GATEWAY_REF and SUBSCRIPTION_REF link existing parts; the parameters part name is read', async () => {
    const parts = await createSystem(stack, { name: uniq('donor'), gateway: { serialNumber: sn(), imei: imei() }, subscription: { identifier: iccid(), operator: 'SFR' } })
    await stack.call(stack.adminToken, { method: 'DELETE', url: `/api/v1/systems/${parts.uid}` })
    const { tasks } = await runCsv(stack, IMPORT, `NAME,TYPE,GATEWAY_REF[UID],SUBSCRIPTION_REF[UID]\nlinked,,${parts.gateway.uid},${parts.subscription.uid}\n`, { defaultsName: 'parameters', defaults: { defaultType: 'ignored' } })
    expect(tasks[0]?.state).toBe('SUCCESS')
    const s = await getSystem(stack, tasks[0]?.system.uid)
    expect(s).toMatchObject({ name: 'linked', type: null, gateway: { uid: parts.gateway.uid }, subscription: { uid: parts.subscription.uid } })
  })

  it('the JSON part may come before the CSV part, and the CSV may be a plain field (no file name)', async () => {
    const name = uniq('field')
    const { payload, headers } = multipart([
      { name: 'parameters', data: JSON.stringify({ defaultType: 'sensor' }) },
      { name: 'systems', data: `NAME\n${name}\n` }
    ])
    const uid = await started(stack.call(stack.adminToken, { method: 'POST', url: IMPORT, payload, headers }))
    await waitFinished(stack, uid, 30_000)
    const [task] = await allTasks(stack, uid)
    expect(await getSystem(stack, task?.system.uid ?? '')).toMatchObject({ name, type: 'sensor' })
  })

  it('the codes of the import row: set G, set C, gateway.assigned, subscription.assigned; a failed row leaves nothing', async () => {
    const taken = await createSystem(stack, { name: uniq('taken'), gateway: { serialNumber: sn(), imei: imei() }, subscription: { identifier: iccid(), operator: 'ORANGE' } })
    const lost = { sn: sn(), iccid: iccid() }
    const rows = [
      /* 2 */ `ok,${sn()},,,,`,
      /* 3 */ ',,,,,ORANGE',
      /* 4 */ 'bad-imei,,1234,,,',
      /* 5 */ 'bad-mac,,,zz:zz,,',
      /* 6 */ `gw-taken,${taken.gateway.serialNumber},,,,`,
      /* 7 */ `sim-taken,${sn()},,,${taken.subscription.identifier},ORANGE`,
      /* 8 */ 'gw-unknown,,,,,,no-such-gateway',
      /* 9 */ `lost,${lost.sn},,,${lost.iccid},NOPE`
    ]
    const csv = `NAME,GATEWAY[SERIAL NUMBER],GATEWAY[IMEI],GATEWAY[MAC ADDRESS],SUBSCRIPTION[IDENTIFIER],SUBSCRIPTION[OPERATOR],GATEWAY_REF[UID]\n${rows.map((r) => r.split(',').length === 7 ? r : `${r},`).join('\n')}\n`
    const { tasks } = await runCsv(stack, IMPORT, csv)
    expect(codesByLine(tasks)).toEqual({
      2: null,
      3: 'subscription.missing.identifier',
      4: 'gateway.invalid.imei',
      5: 'gateway.invalid.mac.address',
      6: 'gateway.assigned',
      7: 'subscription.assigned',
      8: 'gateway.unknown',
      9: 'unknown.enum.value'
    })
    const gone = await stack.db.query('SELECT 1 FROM gateways WHERE serial_number = $1', [lost.sn])
    expect(gone.rows).toEqual([])
  })
})

describe('bulk edit', () => {
  it('every column of a row changes its system; blank GATEWAY and SUBSCRIPTION cells set null, other blank cells change nothing', async () => {
    const s = await createSystem(stack, {
      name: uniq('before'),
      type: 'old-type',
      labels: ['keep'],
      metadata: { a: '1' },
      gateway: { serialNumber: sn(), imei: imei(), macAddress: '00:11:22:33:44:55' },
      subscription: { identifier: iccid(), operator: 'ORANGE', mobileNumber: '+33611111111' }
    })
    const newImei = imei()
    const header = 'UID,NAME,TYPE,LABELS,GATEWAY[IMEI],GATEWAY[MAC ADDRESS],SUBSCRIPTION[MOBILE NUMBER],SUBSCRIPTION[OPERATOR],METADATA[b],REST[password]'
    const { op, tasks } = await runCsv(stack, EDIT, `${header}\n${s.uid},after,,x|y,${newImei},,,SFR,2,new-rest-pw\n`)
    expect(op).toMatchObject({ operationType: 'SYSTEM_EDIT', total: 1, target: s.uid })
    expect(tasks[0]).toMatchObject({ state: 'SUCCESS', line: 2, system: { uid: s.uid, name: 'after' } })
    const after = await getSystem(stack, s.uid)
    expect(after).toMatchObject({
      name: 'after',
      type: 'old-type',
      metadata: { a: '1', b: '2' },
      gateway: { uid: s.gateway.uid, imei: newImei, macAddress: null, serialNumber: s.gateway.serialNumber },
      subscription: { uid: s.subscription.uid, mobileNumber: null, operator: 'SFR' },
      communication: { rest: { password: 'new-rest-pw' } }
    })
    expect([...after.labels].sort()).toEqual(['x', 'y'])
    // The device logins follow the gateway's new IMEI (docs/devices.md).
    const logins = await stack.db.query<{ identifier: string }>('SELECT identifier FROM comm_identifiers WHERE system_uid = $1 ORDER BY identifier', [s.uid])
    expect(logins.rows.map((r) => r.identifier).sort()).toEqual([s.gateway.serialNumber, newImei].sort())
  })

  it('a system without a gateway gets one made and assigned; defaultType applies without a TYPE column', async () => {
    const s = await createSystem(stack, { name: uniq('bare') })
    const g = { sn: sn(), imei: imei() }
    const { tasks } = await runCsv(stack, EDIT, `UID,GATEWAY[SERIAL NUMBER],GATEWAY[IMEI]\n${s.uid},${g.sn},${g.imei}\n`, { defaults: { defaultType: 'router' } })
    expect(tasks[0]?.state).toBe('SUCCESS')
    expect(await getSystem(stack, s.uid)).toMatchObject({ type: 'router', gateway: { serialNumber: g.sn, imei: g.imei } })
  })

  it('the codes of the bulk edit row, one row each; a failing row changes nothing', async () => {
    const a = await createSystem(stack, { name: uniq('a'), gateway: { serialNumber: sn(), imei: imei() } })
    const b = await createSystem(stack, { name: uniq('b'), gateway: { serialNumber: sn(), imei: imei() }, subscription: { identifier: iccid(), operator: 'ORANGE' } })
    const lockedImei = imei()
    const locked = await createSystem(stack, {
      name: uniq('locked'),
      subscription: { identifier: iccid(), operator: 'ORANGE', activationImei: lockedImei, imeiLock: { imeiLock: true, imeiLockDate: 1_700_000_000_000 } }
    })
    const free = await createSystem(stack, { name: uniq('free'), gateway: { macAddress: '00:AA:BB:CC:DD:EE' } })
    const rows = [
      /* 2 */ 'no-such-system,,,,,',
      /* 3 */ ',renamed,,,,',
      /* 4 */ `${a.uid},renamed-a,1234,,,`,
      /* 5 */ `${a.uid},renamed-a2,${b.gateway.imei},,,`,
      /* 6 */ `${free.uid},,,,${b.gateway.uid},`,
      /* 7 */ `${free.uid},,,,,${b.subscription.uid}`,
      /* 8 */ `${locked.uid},,,${imei()},,`,
      /* 9 */ `${free.uid},x,,,,no-such-subscription`
    ]
    const csv = `UID,NAME,GATEWAY[IMEI],SUBSCRIPTION[ACTIVATION IMEI],GATEWAY_REF[UID],SUBSCRIPTION_REF[UID]\n${rows.join('\n')}\n`
    const { tasks } = await runCsv(stack, EDIT, csv)
    expect(codesByLine(tasks)).toEqual({
      2: 'system.unknown',
      3: 'system.unknown',
      4: 'gateway.invalid.imei',
      5: 'gateway.not.unique.identifiers',
      6: 'gateway.assigned',
      7: 'subscription.assigned',
      8: 'subscription.cannot.update.activation.imei.lock.exists',
      9: 'subscription.unknown'
    })
    expect((await getSystem(stack, a.uid)).name).toBe(a.name)
    expect((await getSystem(stack, free.uid)).name).toBe(free.name)
    expect((await getSystem(stack, locked.uid)).subscription.activationImei).toBe(lockedImei)
  })

  it('a blank identifier the gateway cannot lose is refused (set G), as is a blank ICCID', async () => {
    const s = await createSystem(stack, { name: uniq('only-mac'), gateway: { macAddress: '00:AB:CD:EF:01:23' }, subscription: { identifier: iccid(), operator: 'ORANGE' } })
    const { tasks } = await runCsv(stack, EDIT, `UID,GATEWAY[MAC ADDRESS]\n${s.uid},\n`)
    expect(tasks[0]?.error?.code).toBe('gateway.missing.identifiers')
    const sim = await runCsv(stack, EDIT, `UID,SUBSCRIPTION[IDENTIFIER]\n${s.uid},\n`)
    expect(sim.tasks[0]?.error?.code).toBe('subscription.missing.identifier')
  })

  it('the CSV itself as an application/octet-stream body; the failed rows file', async () => {
    const s = await createSystem(stack, { name: uniq('raw') })
    const csv = `UID;NAME\r\n${s.uid};raw-renamed\r\nmissing;x\r\n`
    const uid = await started(stack.call(stack.adminToken, { method: 'POST', url: EDIT, payload: Buffer.from(csv), headers: { 'content-type': 'application/octet-stream' } }))
    await waitFinished(stack, uid, 30_000)
    expect((await allTasks(stack, uid)).map((t) => t.error?.code ?? null)).toEqual([null, 'system.unknown'])
    expect((await getSystem(stack, s.uid)).name).toBe('raw-renamed')
    const file = await failedRows(stack, uid)
    expect(file.text).toBe('UID;NAME;ERROR\r\nmissing;x;system.unknown missing\r\n')
  })
})
