// The one CSV writer of the service's files (GET /api/v1/operations/{uid}/file: data history exports and the
// failed rows of CSV operations). RFC 4180: a cell holding the separator, a quote or a line break is quoted, its
// quotes doubled. A text a spreadsheet would run as a formula (starting with =, +, -, @, a tab or a carriage
// return: CSV injection) is written after a single quote, so it opens as text. Numbers are written as numbers (a
// data value -71 stays -71); a text that looks like one ("-71") is a text and gets its quote like any other, since a
// spreadsheet reads "-1+cmd|..." as a formula just as well.
import type { CsvDelimiter } from './read.js'

export type CsvValue = string | number | boolean | null | undefined

const FORMULA_START = /^[=+\-@\t\r]/

/** One cell: null and undefined are empty, numbers and booleans as they are, texts guarded and quoted. */
export function csvCell (value: CsvValue, delimiter: CsvDelimiter = ','): string {
  if (value === null || value === undefined) return ''
  if (typeof value !== 'string') return String(value)
  const text = FORMULA_START.test(value) ? `'${value}` : value
  return text.includes(delimiter) || /["\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/** One line of cells, without its line end. */
export const csvLine = (cells: readonly CsvValue[], delimiter: CsvDelimiter = ','): string => cells.map((c) => csvCell(c, delimiter)).join(delimiter)
