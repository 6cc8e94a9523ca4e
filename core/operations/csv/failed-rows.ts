// The failed rows of a CSV operation as a CSV file with an ERROR column (GET /api/v1/operations/{uid}/file): the
// user fixes those rows and sends the file again (the ERROR column is read as a comment: csv/columns.ts).
import type { Repositories } from '../../ports/repositories.js'
import type { Operation } from '../../domain/operation.js'
import type { CsvDelimiter } from './read.js'
import { csvLine } from './write.js'
import { isSecretColumn } from './columns.js'

/** What a CSV operation keeps of its file in its parameters, to write the failed rows back. */
export interface CsvFileParams { header: string[], delimiter: CsvDelimiter }

/** The name of the comment column the failed-rows file adds. */
export const ERROR_COLUMN = 'ERROR'

const PAGE = 1000

/**
 * Writes the file of the rows that were not applied (FAILURE, and CANCELLED rows too: they were not applied either),
 * in the file's own separator, UTF-8 with a BOM and CRLF as spreadsheets write them. Written when the operation
 * finishes, in the transaction that makes it FINISHED: a finished CSV operation always has its file.
 */
export async function writeFailedRows (tx: Repositories, op: Operation): Promise<void> {
  const file = op.parameters.file as CsvFileParams | undefined
  if (file === undefined) return
  const { delimiter } = file
  // The previous ERROR column goes (a new one is added); the password columns too: whoever may read the operation's
  // file sees them otherwise, and the user types them again when sending the rows back.
  const keep = (h: string): boolean => h.trim().toUpperCase() !== ERROR_COLUMN && !isSecretColumn(h)
  const header = file.header.filter(keep)
  const lines = [csvLine([...header, ERROR_COLUMN], delimiter)]
  for (let offset = 0; ; offset += PAGE) {
    const page = await tx.operations.tasks(op.uid, ['FAILURE', 'CANCELLED'], { offset, size: PAGE })
    for (const t of page.items) {
      const cells = (t.params?.cells as string[] | undefined) ?? []
      const kept = file.header.map((h, i) => [h, cells[i] ?? ''] as const).filter(([h]) => keep(h)).map(([, c]) => c)
      lines.push(csvLine([...kept, t.errorMessage ?? t.errorCode ?? t.state], delimiter))
    }
    if (page.items.length < PAGE) break
  }
  const data = Buffer.from(`\uFEFF${lines.join('\r\n')}\r\n`, 'utf8')
  await tx.operations.putFile(op.uid, { name: `${op.type.toLowerCase()}-${op.uid}-failed.csv`, contentType: 'text/csv; charset=utf-8', data })
}
