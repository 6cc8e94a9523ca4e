// The header and rows of a usage import file (docs/usage.md: columns named after the usage record
// fields of docs/usage.md, plus `system` or `subscriptionIdentifier`). The file itself is read by the
// CSV operations' reader (core/operations/csv/read.ts: set F, BOM, `;` or `,`, CRLF); this names its columns.
import { FleetError } from '../../errors.js'
import { USAGE_COLUMNS, type UsageColumn, type UsageRow } from './usage-row.js'

const BY_LOWER_NAME = new Map<string, UsageColumn>(USAGE_COLUMNS.map((c) => [c.toLowerCase(), c]))
const SYSTEM_COLUMNS: readonly UsageColumn[] = ['system', 'subscriptionIdentifier']
const COLUMNS_FORM = `columns: ${USAGE_COLUMNS.join(', ')}`

/**
 * The header's columns in order; names are matched without regard to case.
 * @throws file.header.missing (no usage column at all: the first line is data or another file; or no type, start,
 *   or system column), csv.header.unknown.column (a name that is no usage record field, or a name given twice)
 */
export function usageColumns (header: readonly string[]): UsageColumn[] {
  const names = header.map((h) => h.trim())
  const known = names.map((h) => BY_LOWER_NAME.get(h.toLowerCase()))
  if (known.every((k) => k === undefined)) throw new FleetError('file.header.missing', ['the first line names no usage record column', COLUMNS_FORM])
  const unknown = names.find((_, i) => known[i] === undefined)
  if (unknown !== undefined) throw new FleetError('csv.header.unknown.column', [unknown, COLUMNS_FORM])
  const columns = known as UsageColumn[]
  const twice = columns.find((c, i) => columns.indexOf(c) !== i)
  if (twice !== undefined) throw new FleetError('csv.header.unknown.column', [twice, 'the column is named twice'])
  const needed: string[] = (['type', 'start'] as const).filter((c) => !columns.includes(c))
  if (!columns.some((c) => SYSTEM_COLUMNS.includes(c))) needed.push('system or subscriptionIdentifier')
  if (needed.length > 0) throw new FleetError('file.header.missing', [needed.join(', '), 'the column is required'])
  return columns
}

/** A row's non-blank cells by column. */
export function usageRow (columns: readonly UsageColumn[], cells: readonly string[]): UsageRow {
  const row: UsageRow = {}
  for (const [i, c] of columns.entries()) {
    const v = cells[i]?.trim()
    if (v !== undefined && v !== '') row[c] = v
  }
  return row
}
