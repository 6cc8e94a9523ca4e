// Export data history (docs/operations.md#bulk-operations; docs/operations.md#bulk-operations: GET
// /operations/{uid}/file). One operation, one task on the system; the task writes a CSV file of the system's data
// points.
//
// Choices where the spec is silent:
// - fromDate and toDate are both inclusive; fromDate defaults to 0 (the whole history) and toDate to the time of the
//   request, so the file is the same whenever the task runs. Seconds and microseconds are tolerated like every
//   timestamp (docs/api.md#using-the-api); the parameters keep the values in milliseconds.
// - The data are those of the dataset, then those of `data` not already in it; at most 200 in all.
// - The CSV is wide, as a spreadsheet user expects: a header `timestamp,<dataId>...` (dataset order, then `data`
//   order), then one row per timestamp (epoch milliseconds) in ascending time, with an empty cell where a data has
//   no value at that time. Numbers are written as they are, booleans as true/false, strings quoted per RFC 4180
//   when they hold a comma, a quote or a line break; lines end with CRLF (RFC 4180). A null value is an empty cell.
//   Texts that a spreadsheet would take for a formula are written after a single quote (csv/write.ts).
//   When one data has several points at the same millisecond, the row holds one of them.
import { FleetError } from '../../errors.js'
import { toMillis } from '../../domain/lists.js'
import type { DataValue } from '../../domain/device-message.js'
import type { StoredPoint } from '../../ports/data-queries.js'
import type { Repositories } from '../../ports/repositories.js'
import type { OperationHandler } from '../handler.js'
import { launch, newOperation, type Caller, type OperationDeps } from '../common.js'
import { Type } from 'typebox'
import { Nullable, Flag, Time } from '../body.schema.js'
import { operationKind } from '../kind.js'
import { csvLine, type CsvValue } from '../csv/write.js'

// docs/api.md#limits: data selected for history export.
export const MAX_EXPORT_DATA = 200
// Points held in memory per read, across all the data of the export (each data id is read in its own batches).
const POINTS_PER_READ = 50_000
const MIN_BATCH = 100
const MAX_BATCH = 10_000

export interface ExportBody {
  notify?: boolean | null
  callback?: string | null
  dataset?: string | null
  data?: string[] | null
  fromDate?: number | null
  toDate?: number | null
}

export interface ExportParams { system: string, dataset: string | null, data: string[], fromDate: number, toDate: number }

/**
 * The data ids to export: the dataset's, then the listed ones.
 * @throws dataset.or.data.missing, dataset.unknown, operation.data.history.too.many.data.selected
 */
const DATA_FORM = 'give a dataset uid or a non-empty data list of data ids'

async function selectedData (deps: OperationDeps, companyUid: string, body: ExportBody): Promise<string[]> {
  const listed = (body.data ?? []).filter((d) => d !== '')
  const datasetUid = body.dataset == null || body.dataset === '' ? null : body.dataset
  if (datasetUid === null && listed.length === 0) throw new FleetError('dataset.or.data.missing', ['dataset', 'data', DATA_FORM])
  const dataset = datasetUid === null ? undefined : await deps.repos.operations.dataset(companyUid, datasetUid)
  if (datasetUid !== null && dataset === undefined) throw new FleetError('dataset.unknown', [datasetUid])
  const ids = [...new Set([...(dataset?.data ?? []), ...listed])]
  if (ids.length > MAX_EXPORT_DATA) throw new FleetError('operation.data.history.too.many.data.selected', [String(MAX_EXPORT_DATA)])
  if (ids.length === 0) throw new FleetError('dataset.or.data.missing', ['dataset', 'data', DATA_FORM])
  return ids
}

/**
 * POST /operations/systems/{uid}/export/data/historical: validated at once, then one task makes the file.
 * @throws system.unknown, dataset.unknown, dataset.or.data.missing, invalid.timerange,
 *   operation.data.history.too.many.data.selected
 */
export async function exportOperation (deps: OperationDeps, caller: Caller, systemUid: string, body: ExportBody): Promise<{ operation: string }> {
  const companyUid = caller.access.company.uid
  const system = await deps.repos.systems.findByUid(companyUid, systemUid)
  if (system === undefined) throw new FleetError('system.unknown', [systemUid])
  const data = await selectedData(deps, companyUid, body)
  const fromDate = body.fromDate == null ? 0 : toMillis(body.fromDate)
  const toDate = body.toDate == null ? deps.clock.now() : toMillis(body.toDate)
  if (toDate < fromDate) throw new FleetError('invalid.timerange', [String(fromDate), String(toDate), 'toDate must not be earlier than fromDate'])
  const params: ExportParams = { system: system.uid, dataset: body.dataset ?? null, data, fromDate, toDate }
  const op = await newOperation(deps, caller, 'SYSTEM_EXPORT_DATA_HISTORY', { notify: body.notify, callback: body.callback }, { ...params })
  return await launch(deps, op, [{ systemUid: system.uid, systemName: system.name }])
}

/** One data id's points, read newest first in batches of `size`, one point per timestamp. */
class SeriesCursor {
  private buf: StoredPoint[] = []
  private i = 0
  private done = false
  constructor (private readonly read: (to: number) => Promise<StoredPoint[]>, private to: number, private readonly size: number) {}

  /** Reads the next batch when this one is used up (and the series is not). */
  async fill (): Promise<void> {
    while (this.i >= this.buf.length && !this.done) {
      this.buf = await this.read(this.to)
      this.i = 0
      const last = this.buf[this.buf.length - 1]
      if (this.buf.length < this.size || last === undefined) this.done = true
      // The next batch ends before the oldest timestamp read: its other points, if any, are duplicates of it.
      else this.to = last.ts
    }
  }

  /** The next point (newest first); undefined once the series is read (after fill()). */
  peek (): StoredPoint | undefined { return this.buf[this.i] }

  /** Takes the value at `ts` (the head's timestamp) and skips the other points of that millisecond. */
  take (ts: number): DataValue {
    const value = this.buf[this.i]?.value ?? null
    while (this.buf[this.i]?.ts === ts) this.i++
    return value
  }
}

/** The CSV of the system's points in [fromDate, toDate], oldest row first. Memory holds the lines and one batch per data. */
export async function historyCsv (tx: Pick<Repositories, 'dataQueries'>, systemUid: string, p: Pick<ExportParams, 'data' | 'fromDate' | 'toDate'>): Promise<{ csv: string, rows: number }> {
  const size = Math.min(MAX_BATCH, Math.max(MIN_BATCH, Math.floor(POINTS_PER_READ / Math.max(1, p.data.length))))
  const cursors = p.data.map((id) => new SeriesCursor(
    async (to) => await tx.dataQueries.raw([systemUid], [id], { from: p.fromDate, to }, size), p.toDate + 1, size))
  for (const c of cursors) await c.fill()
  const lines: string[] = [] // newest first while merging, reversed at the end
  const cells: CsvValue[] = []
  for (;;) {
    let ts = -Infinity
    for (const c of cursors) ts = Math.max(ts, c.peek()?.ts ?? -Infinity)
    if (ts === -Infinity) break
    for (const [k, c] of cursors.entries()) {
      if (c.peek()?.ts !== ts) { cells[k] = null; continue }
      cells[k] = c.take(ts)
      if (c.peek() === undefined) await c.fill()
    }
    lines.push(`${csvLine([ts, ...cells])}\r\n`)
  }
  const header = `${csvLine(['timestamp', ...p.data])}\r\n`
  return { csv: header + lines.reverse().join(''), rows: lines.length }
}

/** A file name safe in a Content-Disposition header, made from the system name (or uid). */
function fileName (systemName: string | null, systemUid: string): string {
  const base = (systemName ?? '').replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '').slice(0, 80)
  return `${base === '' ? systemUid : base}-data-history.csv`
}

/** Writes the CSV as the operation's file (GET /api/v1/operations/{uid}/file). */
export const exportHandler: OperationHandler = {
  async run ({ tx, op, task }) {
    const system = await tx.systems.findByUid(op.companyUid, task.systemUid)
    if (system === undefined) throw new FleetError('system.unknown', [task.systemUid])
    const { csv, rows } = await historyCsv(tx, system.uid, op.parameters as unknown as ExportParams)
    const name = fileName(system.name, system.uid)
    await tx.operations.putFile(op.uid, { name, contentType: 'text/csv; charset=utf-8', data: Buffer.from(csv, 'utf8') })
    return { state: 'SUCCESS', params: { file: name, rows } }
  }
}

/** docs/operations.md#bulk-operations. */
const ExportBodySchema = Type.Object({
  notify: Flag,
  callback: Type.Optional(Nullable(Type.String())),
  dataset: Type.Optional(Nullable(Type.String())),
  data: Type.Optional(Type.Union([Type.Null(), Type.Array(Type.String())])),
  fromDate: Time,
  toDate: Time
}, {
  description: 'Export the data history of the system to a CSV file: a dataset or data ids (at most 200)',
  examples: [{ data: ['machine.temperature', '_RSSI'], fromDate: 1767225600000, toDate: 1767830400000 }]
})

export const exportKind = operationKind({
  type: 'SYSTEM_EXPORT_DATA_HISTORY',
  route: { path: '/operations/systems/:uid/export/data/historical', summary: 'Export the data history of a system to a CSV file', description: 'The file is read with GET /api/v1/operations/{uid}/file once the operation has finished.', body: ExportBodySchema },
  create: async (deps, caller, body, systemUid) => await exportOperation(deps, caller, systemUid ?? '', body as ExportBody),
  handler: exportHandler
})
