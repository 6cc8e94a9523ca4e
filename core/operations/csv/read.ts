// Reading the CSV file of a register, import or bulk edit request (docs/operations.md#csv-operations;
// set F of §Errors). The file is read as it arrives: past 10 MB it is refused without reading the rest. What
// spreadsheets write is read: UTF-8 with or without BOM, `,` or `;` between cells, CRLF or LF line ends.
import { parse, type Parser } from 'csv-parse'

/** docs/api.md#limits: the CSV file of register, import and bulk edit. */
export const MAX_CSV_BYTES = 10 * 1024 * 1024

export type CsvDelimiter = ',' | ';'

export interface CsvRow { line: number, cells: string[] }

/** A file read: its header cells, its data rows with their line numbers, and the separator it used. */
export interface CsvFile { delimiter: CsvDelimiter, header: string[], rows: CsvRow[] }

export type CsvRefusalCode = 'file.unreadable' | 'file.header.missing' | 'file.missing.data' | 'file.too.large'

export interface CsvRefusal { refused: CsvRefusalCode, params: string[] }

export type CsvRead = CsvFile | CsvRefusal

export const isCsvRefusal = (r: CsvRead): r is CsvRefusal => 'refused' in r

/** How far the separator is looked for: the header line, or this much of it when it is longer. */
const DETECT_BYTES = 64 * 1024

/**
 * The separator of the header line: `;` when it has more of them than commas outside quotes (a spreadsheet of a
 * locale whose decimal mark is the comma), the comma otherwise.
 */
export function detectDelimiter (head: Buffer): CsvDelimiter {
  let commas = 0
  let semicolons = 0
  let quoted = false
  for (const byte of head) {
    if (byte === 0x22) quoted = !quoted
    else if (!quoted && (byte === 0x0a || byte === 0x0d)) break
    else if (!quoted && byte === 0x2c) commas++
    else if (!quoted && byte === 0x3b) semicolons++
  }
  return semicolons > commas ? ';' : ','
}

const blankRow = (cells: readonly string[]): boolean => cells.every((c) => c.trim() === '')

/**
 * Reads the file from its chunks. Never throws on the content: a file that is not UTF-8 text or not CSV answers
 * file.unreadable, one without a header file.header.missing, one without a data row file.missing.data, one over
 * `maxBytes` file.too.large as soon as the limit is passed (the caller drops the rest of the stream). A row with
 * more cells than the header is unreadable; fewer cells are read as blank ones (spreadsheets drop trailing blanks).
 */
export async function readCsv (source: AsyncIterable<Buffer | Uint8Array | string> | Iterable<Buffer | Uint8Array | string>, maxBytes = MAX_CSV_BYTES): Promise<CsvRead> {
  const records: CsvRow[] = []
  let failure: string | undefined
  let parser: Parser | undefined
  let head: Buffer[] = []
  let headBytes = 0
  let size = 0
  let delimiter: CsvDelimiter = ','
  let quotedCrlf = 0
  let decoded = true
  const utf8 = new TextDecoder('utf-8', { fatal: true })

  const start = (first: Buffer): Parser => {
    delimiter = detectDelimiter(first)
    const p = parse({ bom: true, delimiter, relax_column_count: true, skip_empty_lines: true, info: true })
    p.on('data', (r: { record: string[], info: { lines: number } }) => {
      // docs/operations.md#bulk-operations: a task's `line` is where its row starts. csv-parse answers the line a
      // record ends on, and counts a CRLF inside a quoted cell as two lines (csv-parse 7): both are undone here.
      const crlf = r.record.reduce((n, c) => n + (c.match(/\r\n/g)?.length ?? 0), 0)
      const breaks = r.record.reduce((n, c) => n + (c.match(/\r\n|\r|\n/g)?.length ?? 0), 0)
      quotedCrlf += crlf
      records.push({ line: r.info.lines - quotedCrlf - breaks, cells: r.record })
    })
    p.on('error', (err: Error) => { failure ??= err.message })
    return p
  }
  const checkText = (chunk: Buffer, last: boolean): void => {
    // NUL never appears in text (and PostgreSQL text cannot hold it); a binary file stops here, as do bytes that
    // are not UTF-8 (the streaming decoder keeps a character cut between two chunks for the next one).
    if (chunk.includes(0)) { decoded = false; failure ??= 'a NUL byte: not a text file'; return }
    try { utf8.decode(chunk, { stream: !last }) } catch { decoded = false; failure ??= 'not UTF-8 text' }
  }

  for await (const raw of source) {
    const chunk = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : Buffer.from(raw)
    size += chunk.length
    if (size > maxBytes) {
      parser?.destroy()
      return { refused: 'file.too.large', params: [String(maxBytes)] }
    }
    checkText(chunk, false)
    if (failure !== undefined) continue // drain to learn the size, parse no more
    if (parser === undefined) {
      head.push(chunk)
      headBytes += chunk.length
      const first = Buffer.concat(head)
      if (!first.includes(0x0a) && !first.includes(0x0d) && headBytes < DETECT_BYTES) continue
      parser = start(first)
      head = []
      parser.write(first)
    } else parser.write(chunk)
  }
  checkText(Buffer.alloc(0), true)
  if (failure === undefined && parser === undefined && headBytes > 0) {
    parser = start(Buffer.concat(head))
    parser.write(Buffer.concat(head))
  }
  if (parser !== undefined && failure === undefined) {
    const p = parser
    await new Promise<void>((resolve) => {
      p.once('end', resolve)
      p.once('error', () => { resolve() })
      p.end()
      p.resume()
    })
  } else parser?.destroy()
  if (failure !== undefined) return { refused: 'file.unreadable', params: [decoded ? `not CSV: ${failure}` : failure] }
  return fileOf(records, delimiter)
}

/** The parsed records as a file: the first is the header (a blank one is none), blank rows under it are skipped. */
function fileOf (records: readonly CsvRow[], delimiter: CsvDelimiter): CsvRead {
  const [headerRecord, ...data] = records
  if (headerRecord === undefined || blankRow(headerRecord.cells)) return { refused: 'file.header.missing', params: ['the first line names the columns'] }
  const header = headerRecord.cells.map((c) => c.trim())
  const rows: CsvRow[] = []
  for (const r of data) {
    if (blankRow(r.cells)) continue
    if (r.cells.length > header.length) {
      return { refused: 'file.unreadable', params: [`line ${r.line}`, `${r.cells.length} cells for ${header.length} columns`] }
    }
    rows.push({ line: r.line, cells: header.map((_, i) => r.cells[i] ?? '') })
  }
  if (rows.length === 0) return { refused: 'file.missing.data', params: ['the file has no row under its header'] }
  return { delimiter, header, rows }
}
