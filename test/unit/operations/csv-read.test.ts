// The CSV reader of the CSV operations (core/operations/csv/read.ts; docs/operations.md#csv-operations, set F of
// docs/api.md#using-the-api) and the writer of the service's files (csv/write.ts): what one writes the other reads
// back, cell for cell (a text a spreadsheet would run as a formula after its single quote) and line for line, in any
// chunking; any bytes answer a file or a refusal, never a throw.
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { detectDelimiter, isCsvRefusal, readCsv, type CsvDelimiter } from '../../../core/operations/csv/read.js'
import { csvLine } from '../../../core/operations/csv/write.js'

async function * chunks (data: Buffer, cuts: number[]): AsyncGenerator<Buffer> {
  let at = 0
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    if (cut <= at || cut >= data.length) continue
    yield data.subarray(at, cut)
    at = cut
  }
  yield data.subarray(at)
}

const cell = fc.string({ unit: fc.constantFrom('a', 'Z', 'é', '€', ' ', ',', ';', '"', '\n', '\r\n', '|', '0', '=', '-', '+', '@', '\t', '.'), maxLength: 8 })
/** What a cell reads back as: a would-be formula after its quote. */
const guarded = (c: string): string => /^[=+\-@\t\r]/.test(c) ? `'${c}` : c

describe('readCsv', () => {
  it('reads back what csvLine writes: the cells, and the line each row starts on, in any chunking, with or without BOM, CRLF or LF', async () => {
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 1, max: 4 }).chain((width) => fc.record({
        header: fc.array(fc.stringMatching(/^[A-Z][A-Z ]{0,6}$/), { minLength: width, maxLength: width }),
        rows: fc.array(fc.array(cell, { minLength: width, maxLength: width }).filter((r) => r.some((c) => c.trim() !== '')), { minLength: 1, maxLength: 6 })
      })),
      fc.constantFrom<CsvDelimiter>(',', ';'), fc.boolean(), fc.constantFrom('\n', '\r\n'), fc.array(fc.nat({ max: 400 }), { maxLength: 6 }),
      async ({ header, rows }, delimiter, bom, eol, cuts) => {
        // The header decides the separator: a one-column header has none, so it is read as a comma file.
        const sep: CsvDelimiter = header.length === 1 ? ',' : delimiter
        const lines = [csvLine(header, sep), ...rows.map((r) => csvLine(r, sep))]
        const text = `${bom ? '\uFEFF' : ''}${lines.join(eol)}${eol}`
        const read = await readCsv(chunks(Buffer.from(text, 'utf8'), cuts))
        if (isCsvRefusal(read)) throw new Error(`refused: ${read.refused} ${read.params.join(' ')}`)
        expect(read.header).toEqual(header.map((h) => h.trim()))
        expect(read.rows.map((r) => r.cells)).toEqual(rows.map((r) => r.map(guarded)))
        let line = 2
        const starts = rows.map((r) => { const at = line; line += 1 + r.join('').split(/\r\n|\r|\n/).length - 1; return at })
        expect(read.rows.map((r) => r.line)).toEqual(starts)
      }), { numRuns: 300 })
  })

  it('any bytes: a file or a refusal of set F, never a throw', async () => {
    await fc.assert(fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), fc.array(fc.nat({ max: 300 }), { maxLength: 4 }), async (bytes, cuts) => {
      const read = await readCsv(chunks(Buffer.from(bytes), cuts))
      if (isCsvRefusal(read)) expect(['file.unreadable', 'file.header.missing', 'file.missing.data']).toContain(read.refused)
      else expect(read.rows.length).toBeGreaterThan(0)
    }), { numRuns: 500 })
  })

  it('stops at the limit: file.too.large without reading further chunks', async () => {
    let pulled = 0
    async function * endless (): AsyncGenerator<Buffer> { for (;;) { pulled++; yield Buffer.from('a,b\n1,2\n'.repeat(128)) } }
    expect(await readCsv(endless(), 10_000)).toEqual({ refused: 'file.too.large', params: ['10000'] })
    expect(pulled).toBe(10)
  })

  it('the separator is the header\'s: more `;` than `,` outside quotes', () => {
    expect(detectDelimiter(Buffer.from('NAME;LABELS\na,b;c'))).toBe(';')
    expect(detectDelimiter(Buffer.from('"A;B;C",D\n'))).toBe(',')
    expect(detectDelimiter(Buffer.from('NAME\n;;;;'))).toBe(',')
  })
})
