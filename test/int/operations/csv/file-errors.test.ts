// Set F of docs/api.md#using-the-api on the three CSV operations: the file is checked before the operation is created
// (docs/operations.md#bulk-operations: 400, nothing created), over 10 MB is refused without reading the rest (§Limits).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../../helpers/stack.js'
import { uniq } from '../../../helpers/factories.js'
import { validImei } from '../../../helpers/systems.js'
import { EDIT, IMPORT, multipart, postCsv, REGISTER, refusedCsv, runCsv } from './csv-helpers.js'

let stack: Stack

beforeAll(async () => { stack = await startStack() }, 60_000)
afterAll(async () => { await stack?.close() })

const MB = 1024 * 1024
/** A valid register file of a little more than `bytes`. */
function bigFile (bytes: number): Buffer {
  const rows = ['GATEWAY[SERIAL NUMBER],GATEWAY[IMEI]']
  let size = rows[0]?.length ?? 0
  for (let i = 0; size <= bytes; i++) {
    const row = `SN-BIG-${String(i).padStart(9, '0')},${validImei(i % 900_000)}`
    rows.push(row)
    size += row.length + 1
  }
  return Buffer.from(rows.join('\n'))
}

const raw = async (url: string, body: Buffer | string, contentType = 'application/octet-stream') =>
  await stack.call(stack.adminToken, { method: 'POST', url, payload: Buffer.from(body), headers: { 'content-type': contentType } })

describe('set F on every CSV operation (400, no operation, nothing made)', () => {
  for (const url of [REGISTER, IMPORT, EDIT]) {
    const header = url === EDIT ? 'UID,NAME' : 'NAME,GATEWAY[SERIAL NUMBER]'
    it(`${url}: file.header.missing, file.missing.data, csv.header.unknown.column, file.unreadable`, async () => {
      await refusedCsv(stack, async () => await postCsv(stack, url, ''), 'file.header.missing')
      await refusedCsv(stack, async () => await postCsv(stack, url, '\r\n\r\n'), 'file.header.missing')
      await refusedCsv(stack, async () => await postCsv(stack, url, `${header}\r\n`), 'file.missing.data')
      await refusedCsv(stack, async () => await postCsv(stack, url, `${header}\n,\n`), 'file.missing.data')
      const unknown = await refusedCsv(stack, async () => await postCsv(stack, url, `${header},COLOUR\nx,y,z\n`), 'csv.header.unknown.column')
      expect(unknown.errorParameters).toEqual(['COLOUR'])
      await refusedCsv(stack, async () => await postCsv(stack, url, `${header},NAME\nx,y,z\n`), 'csv.header.unknown.column')
      await refusedCsv(stack, async () => await postCsv(stack, url, `${header},GATEWAY[COLOUR]\nx,y,z\n`), 'csv.header.unknown.column')
      // Not text (a PNG's first bytes), not UTF-8 (Latin-1 é), a quote never closed, a row wider than the header.
      await refusedCsv(stack, async () => await postCsv(stack, url, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00])), 'file.unreadable')
      await refusedCsv(stack, async () => await postCsv(stack, url, Buffer.concat([Buffer.from(`${header}\nCaf`), Buffer.from([0xe9]), Buffer.from(',x\n')])), 'file.unreadable')
      await refusedCsv(stack, async () => await postCsv(stack, url, `${header}\n"open,x\n`), 'file.unreadable')
      await refusedCsv(stack, async () => await postCsv(stack, url, `${header}\na,b,c\n`), 'file.unreadable')
      // No CSV part at all, or not a multipart request.
      const onlyJson = multipart([{ name: 'defaultValues', data: '{}' }])
      await refusedCsv(stack, async () => await stack.call(stack.adminToken, { method: 'POST', url, ...onlyJson }), 'file.unreadable')
      await refusedCsv(stack, async () => await stack.call(stack.adminToken, { method: 'POST', url, payload: { name: 'x' } }), 'file.unreadable')
    })
  }

  it('file.too.large past 10 MB, in a multipart part, a plain field, and a raw body', async () => {
    const big = bigFile(10 * MB)
    expect(big.length).toBeGreaterThan(10 * MB)
    await refusedCsv(stack, async () => await postCsv(stack, REGISTER, big), 'file.too.large')
    const field = multipart([{ name: 'csv', data: big }])
    await refusedCsv(stack, async () => await stack.call(stack.adminToken, { method: 'POST', url: IMPORT, ...field }), 'file.too.large')
    await refusedCsv(stack, async () => await raw(EDIT, Buffer.concat([Buffer.from('UID\n'), big])), 'file.too.large')
  }, 120_000)

  it('register and import take no raw body: multipart only (bulk edit takes both)', async () => {
    await refusedCsv(stack, async () => await raw(REGISTER, `GATEWAY[SERIAL NUMBER],GATEWAY[IMEI]\n${uniq('SN')},${validImei(1)}\n`), 'file.unreadable')
    await refusedCsv(stack, async () => await raw(IMPORT, `NAME\n${uniq('n')}\n`, 'text/csv'), 'file.unreadable')
    await refusedCsv(stack, async () => await raw(EDIT, 'NAME\nx\n'), 'file.header.missing')
  })

  it('what spreadsheets write is read: BOM, `;` separators, CRLF, quoted cells with separators and line breaks', async () => {
    const name = uniq('multi')
    const csv = `\uFEFFNAME;LABELS;METADATA[note]\r\n"${name}";"a|b";"line one\r\nline two; with ;"\r\n`
    const { tasks } = await runCsv(stack, IMPORT, csv)
    expect(tasks).toHaveLength(1)
    expect(tasks[0]).toMatchObject({ state: 'SUCCESS', line: 2 })
    const { rows } = await stack.db.query<{ metadata: Record<string, string> }>('SELECT metadata FROM systems WHERE name = $1', [name])
    expect(rows[0]?.metadata).toEqual({ note: 'line one\r\nline two; with ;' })
  })
})
