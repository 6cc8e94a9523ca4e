// POST /api/v1/operations/systems/{uid}/export/data/historical (docs/operations.md#bulk-operations,
// docs/api.md#using-the-api row "export data history", docs/api.md#limits) and GET /api/v1/operations/{uid}/file
// (docs/operations.md#bulk-operations). The file is the wide CSV documented in core/operations/kinds/export.ts.
import { parse } from 'csv-parse/sync'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { COMPANY_NAME, startStack, type Stack } from '../../helpers/stack.js'
import { companyUid, createUser, seed, uniq, type TestUser } from '../../helpers/factories.js'
import { createSystem, expectError, OTHER_COMPANY, type Json } from '../../helpers/systems.js'
import { countOperations, listTasks, postExport, postLabel, started, waitFinished } from '../../helpers/operations.js'
import { insertPoints, utc, type TestPoint } from '../../helpers/telemetry.js'

let stack: Stack
let system: Json
let other: TestUser
let otherSystem: Json
let datasetUid: string
let otherDatasetUid: string
let viewer: TestUser

const t1 = utc('2024-01-01T10:00:00')
const t2 = utc('2024-01-01T10:00:01')
const t3 = utc('2024-01-02T00:00:00')
const t4 = utc('2024-02-01T00:00:00')

async function datasetOf (company: string, name: string): Promise<string> {
  const { rows } = await stack.db.query<{ uid: string }>('SELECT uid FROM datasets WHERE company_uid = $1 AND name = $2', [await companyUid(stack, company), name])
  if (rows[0] === undefined) throw new Error(`no dataset ${name}`)
  return rows[0].uid
}

async function download (operationUid: string, token = stack.adminToken): Promise<{ status: number, type: string, disposition: string, body: string }> {
  const res = await stack.call(token, { method: 'GET', url: `/api/v1/operations/${operationUid}/file` })
  return { status: res.statusCode, type: String(res.headers['content-type']), disposition: String(res.headers['content-disposition']), body: res.body }
}

/** Exports, waits for the operation to finish and answers the CSV text. */
async function exported (systemUid: string, body: Json): Promise<string> {
  const uid = await started(postExport(stack, systemUid, body))
  const op = await waitFinished(stack, uid)
  expect(op.counters.find((c) => c.state === 'SUCCESS')?.count).toBe(1)
  const file = await download(uid)
  expect(file.status).toBe(200)
  return file.body
}

beforeAll(async () => {
  stack = await startStack()
  system = await createSystem(stack, { name: 'Pump, north "A"' })
  await insertPoints(stack.db, system.uid, [
    { dataId: 'temp', ts: t1, value: 21.5 },
    { dataId: 'status', ts: t1, value: 'ok' },
    { dataId: 'status', ts: t2, value: 'a,b' },
    { dataId: 'flag', ts: t2, value: true },
    { dataId: 'other', ts: t2, value: 99 },
    { dataId: 'temp', ts: t3, value: 22 },
    { dataId: 'status', ts: t3, value: 'say "hi"' },
    { dataId: 'x,y', ts: t3, value: -1 },
    { dataId: 'temp', ts: t4, value: null },
    { dataId: 'status', ts: t4, value: 'line1\nline2' },
    { dataId: 'flag', ts: t4, value: false }
  ])
  other = await createUser(stack, { company: OTHER_COMPANY, rights: ['entities.systems.create', 'entities.systems.view', 'entities.systems.export'] })
  otherSystem = await createSystem(stack, { name: uniq('other') }, { token: other.token })
  await seed(stack, {
    datasets: [
      { company: COMPANY_NAME, name: 'Engine', data: ['temp', 'status'] },
      { company: OTHER_COMPANY, name: 'Engine', data: ['temp'] }
    ]
  })
  datasetUid = await datasetOf(COMPANY_NAME, 'Engine')
  otherDatasetUid = await datasetOf(OTHER_COMPANY, 'Engine')
  viewer = await createUser(stack, { rights: ['entities.systems.view', 'entities.systems.edit'] })
})
afterAll(async () => { await stack?.close() })

describe('export data history: the file', () => {
  it('writes one row per timestamp in ascending time, empty cells where a data has no value, RFC 4180 quoting', async () => {
    const csv = await exported(system.uid, { data: ['temp', 'status', 'flag', 'x,y'] })
    expect(csv).toBe([
      'timestamp,temp,status,flag,"x,y"',
      `${t1},21.5,ok,,`,
      `${t2},,"a,b",true,`,
      `${t3},22,"say ""hi""",,-1`,
      `${t4},,"line1\nline2",false,`,
      ''
    ].join('\r\n'))
    // A CSV reader gives the values back.
    expect(parse(csv)).toEqual([
      ['timestamp', 'temp', 'status', 'flag', 'x,y'],
      [String(t1), '21.5', 'ok', '', ''],
      [String(t2), '', 'a,b', 'true', ''],
      [String(t3), '22', 'say "hi"', '', '-1'],
      [String(t4), '', 'line1\nline2', 'false', '']
    ])
  })

  it('writes texts a spreadsheet would run as formulas after a single quote, data ids included', async () => {
    const s = await createSystem(stack, { name: uniq('formulas') })
    await insertPoints(stack.db, s.uid, [
      { dataId: '=id', ts: t1, value: '=HYPERLINK("http://x")' },
      { dataId: 'text', ts: t1, value: '@SUM(1)' },
      { dataId: 'text', ts: t2, value: '+1' },
      { dataId: 'text', ts: t3, value: '-2' },
      { dataId: 'num', ts: t3, value: -2 }
    ])
    const csv = await exported(s.uid, { data: ['=id', 'text', 'num'] })
    expect(parse(csv)).toEqual([
      ['timestamp', "'=id", 'text', 'num'],
      [String(t1), '\'=HYPERLINK("http://x")', "'@SUM(1)", ''],
      [String(t2), '', "'+1", ''],
      [String(t3), '', "'-2", '-2']
    ])
  })

  it('downloads as text/csv with a file name, and keeps only the rows of [fromDate, toDate] (both inclusive)', async () => {
    const uid = await started(postExport(stack, system.uid, { data: ['temp', 'status'], fromDate: t2, toDate: t3 }))
    await waitFinished(stack, uid)
    const file = await download(uid)
    expect(file.status).toBe(200)
    expect(file.type).toMatch(/^text\/csv/)
    expect(file.disposition).toBe('attachment; filename="Pump_north_A_-data-history.csv"')
    expect(file.body).toBe(['timestamp,temp,status', `${t2},,"a,b"`, `${t3},22,"say ""hi"""`, ''].join('\r\n'))
  })

  it('takes the dataset\'s data first, then the listed data not already in it', async () => {
    const csv = await exported(system.uid, { dataset: datasetUid, data: ['flag', 'temp'], fromDate: t4, toDate: t4 })
    expect(csv).toBe(['timestamp,temp,status,flag', `${t4},,"line1\nline2",false`, ''].join('\r\n'))
  })

  it('tolerates dates in seconds, and writes only the header when nothing is in the range', async () => {
    expect(await exported(system.uid, { data: ['temp'], fromDate: t3 / 1000, toDate: t3 / 1000 })).toBe(`timestamp,temp\r\n${t3},22\r\n`)
    expect(await exported(system.uid, { data: ['temp'], fromDate: t4 + 1 })).toBe('timestamp,temp\r\n')
  })

  it('defaults to the whole history up to the request (fromDate 0, toDate now), recorded in the parameters', async () => {
    const s = await createSystem(stack, { name: uniq('defaults') })
    const future = Date.now() + 3_600_000
    await insertPoints(stack.db, s.uid, [{ dataId: 'n', ts: 1, value: 1 }, { dataId: 'n', ts: t1, value: 2 }, { dataId: 'n', ts: future, value: 3 }])
    const before = Date.now()
    const uid = await started(postExport(stack, s.uid, { data: ['n'] }))
    const op = await waitFinished(stack, uid)
    expect(op.parameters).toMatchObject({ system: s.uid, dataset: null, data: ['n'], fromDate: 0 })
    const toDate = (op.parameters as { toDate: number }).toDate
    expect(toDate).toBeGreaterThanOrEqual(before)
    expect(toDate).toBeLessThan(future)
    expect((await download(uid)).body).toBe(`timestamp,n\r\n1,1\r\n${t1},2\r\n`)
  })

  it('reads a long history in batches: every timestamp once, in order, even with duplicates at a batch edge', async () => {
    const s = await createSystem(stack, { name: uniq('long') })
    const n = 12_345
    const base = utc('2023-01-01T00:00:00')
    const points: TestPoint[] = Array.from({ length: n }, (_, i) => ({ dataId: 'dense', ts: base + i * 1000, value: i }))
    // The 10,000th newest point closes the first batch of 10,000: a second point at its millisecond must not
    // make a second row, and the points before it must all come.
    points.push({ dataId: 'dense', ts: base + (n - 10_000) * 1000, value: n - 10_000 })
    points.push({ dataId: 'sparse', ts: base + 500 * 1000, value: 'half' })
    await insertPoints(stack.db, s.uid, points)
    const rows = parse(await exported(s.uid, { data: ['dense', 'sparse'] })) as string[][]
    expect(rows[0]).toEqual(['timestamp', 'dense', 'sparse'])
    expect(rows.length).toBe(n + 1)
    for (let i = 0; i < n; i++) {
      const row = rows[i + 1] ?? []
      if (row[0] !== String(base + i * 1000) || row[1] !== String(i) || row[2] !== (i === 500 ? 'half' : '')) {
        throw new Error(`row ${i + 1}: ${JSON.stringify(row)}`)
      }
    }
  })
})

describe('export data history: the operation', () => {
  it('is one SYSTEM_EXPORT_DATA_HISTORY operation with one task on the system', async () => {
    const uid = await started(postExport(stack, system.uid, { data: ['temp'], notify: false }))
    const op = await waitFinished(stack, uid)
    expect(op).toMatchObject({
      uid,
      entity: 'SYSTEM',
      operationType: 'SYSTEM_EXPORT_DATA_HISTORY',
      state: 'FINISHED',
      total: 1,
      target: system.uid,
      notify: false,
      callback: null,
      user: { uid: stack.adminUid }
    })
    expect(op.counters).toEqual([
      { state: 'PENDING', count: 0 }, { state: 'IN_PROGRESS', count: 0 }, { state: 'SUCCESS', count: 1 },
      { state: 'FAILURE', count: 0 }, { state: 'BEING_CANCELLED', count: 0 }, { state: 'CANCELLED', count: 0 }
    ])
    const tasks = await listTasks(stack, uid)
    expect(tasks.count).toBe(1)
    expect(tasks.items[0]).toMatchObject({ operation: uid, system: { uid: system.uid, name: system.name }, state: 'SUCCESS', error: null })
  })

  it('answers company.file.not.found for an operation without a file, operation.unknown for another company', async () => {
    const label = await started(postLabel(stack, { labels: { add: [uniq('l')] }, criteria: { uids: [system.uid] } }))
    await waitFinished(stack, label)
    expectError(await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/operations/${label}/file` }), 'company.file.not.found')
    const exp = await started(postExport(stack, system.uid, { data: ['temp'] }))
    await waitFinished(stack, exp)
    expectError(await stack.call(other.token, { method: 'GET', url: `/api/v1/operations/${exp}/file` }), 'operation.unknown')
  })
})

describe('export data history: refused requests create no operation', () => {
  const refused = async (systemUid: string, body: Json, code: string, token = stack.adminToken): Promise<Json> => {
    const before = await countOperations(stack)
    const res = expectError(await postExport(stack, systemUid, body, token), code)
    expect(await countOperations(stack)).toBe(before)
    return res
  }

  it('system.unknown: an unknown uid, or a system of another company', async () => {
    expect((await refused('nope', { data: ['temp'] }, 'system.unknown')).errorParameters).toEqual(['nope'])
    await refused(otherSystem.uid, { data: ['temp'] }, 'system.unknown')
    // The other company's user sees its own system, not ours.
    await refused(system.uid, { data: ['temp'] }, 'system.unknown', other.token)
  })

  it('dataset.or.data.missing: neither dataset nor data, or empty ones', async () => {
    await refused(system.uid, {}, 'dataset.or.data.missing')
    await refused(system.uid, { data: [] }, 'dataset.or.data.missing')
    await refused(system.uid, { dataset: null, data: null, fromDate: 0 }, 'dataset.or.data.missing')
    await refused(system.uid, { dataset: '', data: [''] }, 'dataset.or.data.missing')
  })

  it('dataset.unknown: an unknown uid, or a dataset of another company', async () => {
    expect((await refused(system.uid, { dataset: 'nope' }, 'dataset.unknown')).errorParameters).toEqual(['nope'])
    await refused(system.uid, { dataset: otherDatasetUid, data: ['temp'] }, 'dataset.unknown')
  })

  it('operation.data.history.too.many.data.selected: more than 200 data, the dataset\'s counted', async () => {
    const ids = Array.from({ length: 201 }, (_, i) => `d${i}`)
    await refused(system.uid, { data: ids }, 'operation.data.history.too.many.data.selected')
    await refused(system.uid, { dataset: datasetUid, data: ids.slice(0, 199) }, 'operation.data.history.too.many.data.selected')
    // 200 is allowed, and a repeated id counts once.
    await started(postExport(stack, system.uid, { data: [...ids.slice(0, 200), 'd0'] }))
    await started(postExport(stack, system.uid, { dataset: datasetUid, data: [...ids.slice(0, 198), 'temp'] }))
  })

  it('invalid.timerange: toDate lower than fromDate (equal is one instant)', async () => {
    await refused(system.uid, { data: ['temp'], fromDate: t2, toDate: t1 }, 'invalid.timerange')
    await refused(system.uid, { data: ['temp'], fromDate: Date.now() + 86_400_000 }, 'invalid.timerange')
    await started(postExport(stack, system.uid, { data: ['temp'], fromDate: t1, toDate: t1 }))
  })

  it('needs entities.systems.export (403 missing.rights), and access to the company parameter (partner.unknown)', async () => {
    const before = await countOperations(stack)
    const res = await postExport(stack, system.uid, { data: ['temp'] }, viewer.token)
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({ error: 'missing.rights', errorParameters: ['entities.systems.export'] })
    const otherUid = await companyUid(stack, OTHER_COMPANY)
    expectError(await postExport(stack, otherSystem.uid, { data: ['temp'] }, stack.adminToken, otherUid), 'partner.unknown')
    expect(await countOperations(stack)).toBe(before)
  })
})

describe('seed: datasets', () => {
  it('matches a dataset by name in its company: seeding again replaces its data and keeps its uid', async () => {
    await seed(stack, { datasets: [{ company: COMPANY_NAME, name: 'Reseeded', data: ['a', 'b', 'a'] }] })
    const uid = await datasetOf(COMPANY_NAME, 'Reseeded')
    await seed(stack, { datasets: [{ company: COMPANY_NAME, name: 'Reseeded', data: ['c'] }] })
    expect(await datasetOf(COMPANY_NAME, 'Reseeded')).toBe(uid)
    const { rows } = await stack.db.query<{ data: string[] }>('SELECT data FROM datasets WHERE uid = $1', [uid])
    expect(rows[0]?.data).toEqual(['c'])
    await expect(seed(stack, { datasets: [{ company: 'No such company', name: 'x', data: [] }] })).rejects.toThrow(/unknown company/)
  })
})
