// POST /api/v1/operations/systems/usages/import (docs/usage.md; docs/usage.md, set F
// of docs/api.md#using-the-api, docs/api.md#limits): an operation SYSTEM_IMPORT_USAGES with one task per row, the
// records read back through the usage record endpoints, the billing increments of docs/usage.md.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createUser, uniq, type TestUser } from '../../helpers/factories.js'
import { createSystem, expectError, OTHER_COMPANY, type Json } from '../../helpers/systems.js'
import { allTasks, count, countOperations, started, waitFinished } from '../../helpers/operations.js'
import { csvOf, getJson, importUsage, postUsageCsv, postUsageMultipart, storedRecords } from './usage-helpers.js'

let stack: Stack
let other: TestUser
let foreign: Json

const H = 3_600_000
const T0 = Date.UTC(2026, 0, 5, 8) // records of the past: the default range is the last 3 months, so lists name from/to
const range = `from=${T0 - 10 * H}&to=${T0 + 100 * H}`

const HEADER = ['system', 'uid', 'type', 'start', 'end', 'partial', 'bytesSent', 'bytesReceived', 'bytesTotal', 'phoneNumber', 'apn', 'visitedCountry', 'servedImsi']

async function newSystem (iccid?: string): Promise<Json> {
  return await createSystem(stack, { name: uniq('usage'), ...(iccid === undefined ? {} : { subscription: { identifier: iccid, operator: 'ORANGE' } }) })
}

const records = async (uid: string): Promise<Json[]> => await getJson(stack, `/api/v1/systems/${uid}/usages/records?${range}`)

beforeAll(async () => {
  stack = await startStack()
  other = await createUser(stack, { company: OTHER_COMPANY, rights: ['entities.systems.create', 'entities.systems.view'] })
  foreign = await createSystem(stack, { name: uniq('foreign') }, { token: other.token })
})
afterAll(async () => { await stack?.close() })

describe('usage import', () => {
  it('stores one record per row of every type, in an operation SYSTEM_IMPORT_USAGES with a task per row and its line', async () => {
    const s = await newSystem()
    const csv = csvOf([
      HEADER,
      [s.uid, 'd-1', 'DATA', T0, T0 + H, 'false', 100, 200, 300, '', 'm2m.example', 'FR', '208011234567890'],
      [s.uid, 'v-1', 'VOICE_OUT', T0 + 2 * H, T0 + 2 * H + 61_000, '', '', '', '', '+33611111111', '', '', ''],
      [s.uid, 'v-2', 'VOICE_IN', T0 + 3 * H, T0 + 3 * H + 30_000, '', '', '', '', '+33622222222', '', '', ''],
      [s.uid, 's-1', 'SMS_SENT', T0 + 4 * H, '', '', '', '', '', '+33633333333', '', '', ''],
      [s.uid, 's-2', 'sms_received', T0 + 5 * H, '', '', '', '', '', '+33644444444', '', '', ''],
      [s.uid, 'm-1', 'MSU', T0 + 6 * H, '', '', '', '', '', '', '', 'DE', '']
    ])
    const op = await importUsage(stack, csv)
    expect(op.operationType).toBe('SYSTEM_IMPORT_USAGES')
    expect([op.total, count(op, 'SUCCESS'), count(op, 'FAILURE')]).toEqual([6, 6, 0])
    const tasks = await allTasks(stack, op.uid)
    expect(tasks.map((t) => (t as Json).line).sort()).toEqual([2, 3, 4, 5, 6, 7])
    expect(tasks.every((t) => t.system.uid === s.uid && t.system.name === s.name)).toBe(true)

    const list = await records(s.uid)
    expect(list.map((r) => r.uid)).toEqual(['m-1', 's-2', 's-1', 'v-2', 'v-1', 'd-1']) // most recent first
    const nulls = { visitedNetwork: null, visitedCountry: null, visitedMnc: null, visitedMcc: null, servedImsi: null, servedImei: null, servedMsisdn: null }
    expect(list[5]).toEqual({
      ...nulls,
      uid: 'd-1',
      type: 'DATA',
      start: T0,
      end: T0 + H,
      partial: false,
      bytesSent: 100,
      bytesReceived: 200,
      bytesTotal: 300,
      roundedBytesTotal: 1024,
      apn: 'm2m.example',
      pdpAddress: null,
      ratType: null,
      visitedCountry: 'FR',
      servedImsi: '208011234567890'
    })
    // Voice: rounded up to the started minute by default; SMS and MSU have no end.
    expect(list[4]).toEqual({ ...nulls, uid: 'v-1', type: 'VOICE_OUT', start: T0 + 2 * H, end: T0 + 2 * H + 61_000, phoneNumber: '+33611111111', roundedDuration: 120 })
    expect(list[3]).toMatchObject({ type: 'VOICE_IN', roundedDuration: 60 })
    expect(list[2]).toEqual({ ...nulls, uid: 's-1', type: 'SMS_SENT', start: T0 + 4 * H, phoneNumber: '+33633333333' })
    expect(list[1]).toMatchObject({ uid: 's-2', type: 'SMS_RECEIVED', phoneNumber: '+33644444444' })
    expect(list[0]).toEqual({ ...nulls, uid: 'm-1', type: 'MSU', start: T0 + 6 * H, visitedCountry: 'DE' })
  })

  it('keeps interim DATA records of a session under its uid (end = start) and stores a repeated record once', async () => {
    const s = await newSystem()
    const csv = csvOf([
      ['system', 'uid', 'type', 'start', 'end', 'partial', 'bytesSent', 'bytesReceived'],
      [s.uid, 'sess', 'DATA', T0, '', 'true', 10, 20],
      [s.uid, 'sess', 'DATA', T0 + H, T0 + H + 5, 'true', 1, 2], // interim: its end is its start whatever the cell says
      [s.uid, 'sess', 'DATA', T0, T0 + 2 * H, 'false', 5, 5],
      [s.uid, 'sess', 'DATA', T0, T0 + 2 * H, 'false', 5, 5] // the same record twice in one file
    ])
    const op = await importUsage(stack, csv)
    expect(count(op, 'SUCCESS')).toBe(4)
    expect(await storedRecords(stack, s.uid)).toBe(3)
    const list = await records(s.uid)
    expect(list.map((r) => [r.start, r.end, r.partial, r.bytesTotal])).toEqual([
      [T0 + H, T0 + H, true, 3], [T0, T0 + 2 * H, false, 10], [T0, T0, true, 30]
    ])
    // The same file again: every row succeeds, nothing more is stored.
    expect(count(await importUsage(stack, csv), 'SUCCESS')).toBe(4)
    expect(await storedRecords(stack, s.uid)).toBe(3)
    // A file without uid column: the record's own uid is made from what it is, so a second import adds nothing.
    const noUid = csvOf([['system', 'type', 'start', 'phoneNumber'], [s.uid, 'SMS_SENT', T0 + 7 * H, '+3312']])
    await importUsage(stack, noUid)
    await importUsage(stack, noUid)
    expect(await storedRecords(stack, s.uid)).toBe(4)
  })

  it('finds systems by subscriptionIdentifier (ICCID), reads multipart, a BOM, `;` and CRLF, ISO dates and seconds', async () => {
    const iccid = `8933${Date.now()}`.slice(0, 19)
    const s = await newSystem(iccid)
    const csv = '\uFEFF' + csvOf([
      ['subscriptionIdentifier', 'UID', 'Type', 'Start', 'End', 'bytesTotal'],
      [iccid, 'a', 'DATA', new Date(T0).toISOString(), new Date(T0 + H).toISOString(), 2048],
      [iccid, 'b', 'DATA', String(Math.floor((T0 + H) / 1000)), String(Math.floor((T0 + 2 * H) / 1000)), 1]
    ], ';', '\r\n')
    const op = await waitFinished(stack, await started(postUsageMultipart(stack, csv, { name: 'parameters', value: { notify: false } })))
    expect(count(op, 'SUCCESS')).toBe(2)
    const list = await records(s.uid)
    expect(list.map((r) => [r.uid, r.start, r.end, r.bytesTotal, r.roundedBytesTotal])).toEqual([
      ['b', T0 + H, T0 + 2 * H, 1, 1024], ['a', T0, T0 + H, 2048, 2048]
    ])
  })

  it('rounds with the offer\'s billing increments, and keeps rounded values the file gives', async () => {
    const s = await newSystem()
    const { rows: [offer] } = await stack.db.query<{ uid: string }>(
      `INSERT INTO offers (uid, company_uid, name, limit_bytes, types, data_increment_bytes, voice_increment_seconds)
       VALUES ($1, $2, $3, NULL, '{}', 10000, 30) RETURNING uid`, [uniq('offer'), stack.companyUid, uniq('billed')])
    await stack.db.query('UPDATE systems SET offer_uid = $1 WHERE uid = $2', [offer?.uid, s.uid])
    const csv = csvOf([
      ['system', 'uid', 'type', 'start', 'end', 'bytesTotal', 'roundedBytesTotal', 'roundedDuration'],
      [s.uid, 'd1', 'DATA', T0, T0 + 1, 10001, '', ''],
      [s.uid, 'd2', 'DATA', T0 + 1, T0 + 2, 5, 7, ''],
      [s.uid, 'v1', 'VOICE_IN', T0 + 2, T0 + 2 + 31_000, '', '', ''],
      [s.uid, 'v2', 'VOICE_OUT', T0 + 3, T0 + 3 + 1000, '', '', 99]
    ])
    await importUsage(stack, csv)
    const byUid = Object.fromEntries((await records(s.uid)).map((r) => [r.uid, r]))
    expect([byUid.d1.roundedBytesTotal, byUid.d2.roundedBytesTotal, byUid.v1.roundedDuration, byUid.v2.roundedDuration]).toEqual([20000, 7, 60, 99])
  })

  it('fails the rows it cannot store with their code and stores the others; the failed rows are the operation\'s file', async () => {
    const s = await newSystem()
    const csv = csvOf([
      ['system', 'subscriptionIdentifier', 'uid', 'type', 'start', 'end', 'partial', 'bytesTotal'],
      [s.uid, '', 'ok', 'DATA', T0, T0 + 1, '', 1],
      ['no-such-system', '', 'x1', 'DATA', T0, T0 + 1, '', 1],
      [foreign.uid, '', 'x2', 'SMS_SENT', T0, '', '', ''], // another company's system is unknown here
      ['', '8900000000000000000', 'x3', 'SMS_SENT', T0, '', '', ''], // an ICCID nobody has
      [s.uid, '', 'x4', 'FAX', T0, '', '', ''],
      [s.uid, '', 'x5', 'SMS_SENT', 'yesterday', '', '', ''],
      [s.uid, '', 'x6', 'VOICE_IN', T0, '', '', ''], // a call without end
      [s.uid, '', 'x7', 'DATA', T0, T0 - 1, '', 1], // ends before it starts
      [s.uid, '', 'x8', 'DATA', T0, T0 + 1, 'maybe', 1],
      [s.uid, '', 'x9', 'DATA', T0, T0 + 1, '', -5],
      [s.uid, '', 'x10', 'SMS_SENT', '', '', '', '']
    ])
    const op = await importUsage(stack, csv)
    expect([count(op, 'SUCCESS'), count(op, 'FAILURE')]).toEqual([1, 10])
    const failed = Object.fromEntries((await allTasks(stack, op.uid, 'FAILURE')).map((t) => [(t as Json).line, t.error?.code]))
    expect(failed).toEqual({
      3: 'system.unknown',
      4: 'system.unknown',
      5: 'system.unknown',
      6: 'request.invalid',
      7: 'request.invalid',
      8: 'request.invalid',
      9: 'request.invalid',
      10: 'request.invalid',
      11: 'request.invalid',
      12: 'request.invalid'
    })
    expect(await storedRecords(stack, s.uid)).toBe(1)
    expect(await storedRecords(stack, foreign.uid)).toBe(0)
    const file = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/operations/${op.uid}/file` })
    expect(file.statusCode).toBe(200)
    const lines = file.body.replace(/^\uFEFF/, '').trim().split('\r\n')
    expect(lines).toHaveLength(11)
    expect(lines[0]).toBe('system,subscriptionIdentifier,uid,type,start,end,partial,bytesTotal,ERROR')
    expect(lines.some((l) => l.startsWith('no-such-system,'))).toBe(true)
  })
})

describe('usage import: the file (set F), refused at once and nothing created', () => {
  const refused = async (body: string | Buffer, code: string, type?: string): Promise<void> => {
    const before = await countOperations(stack)
    expectError(await postUsageCsv(stack, body, type === undefined ? {} : { type }), code)
    expect(await countOperations(stack)).toBe(before)
  }

  it('answers every code of set F', async () => {
    await refused(Buffer.from([0x00, 0x01, 0xff, 0xfe, 0x00]), 'file.unreadable')
    await refused(Buffer.from('system,type,start\n"unclosed,DATA,1\n'), 'file.unreadable')
    await refused('', 'file.header.missing')
    await refused('abc,DATA,1767225600000\nabd,DATA,1767225600001\n', 'file.header.missing') // data where the header should be
    await refused('system,start\nx,1\n', 'file.header.missing') // no type column
    await refused('type,start\nDATA,1\n', 'file.header.missing') // neither system nor subscriptionIdentifier
    await refused('system,type,start,colour\nx,DATA,1,red\n', 'csv.header.unknown.column')
    await refused('system,type,start\r\n', 'file.missing.data')
    const big = 'system,type,start\n' + 'x,SMS_SENT,1767225600000\n'.repeat(Math.ceil((10 * 1024 * 1024) / 25) + 10)
    await refused(big, 'file.too.large')
  })

  it('needs the edit right on systems', async () => {
    const viewer = await createUser(stack, { rights: ['entities.systems.view'] })
    const res = await postUsageCsv(stack, 'system,type,start\nx,SMS_SENT,1\n', { token: viewer.token })
    expect(res.statusCode).toBe(403)
  })
})
