// What the three CSV operations share (docs/operations.md#csv-operations; docs/operations.md#bulk-operations):
// the file and its header are checked before anything is created (set F: 400, no operation), then one task per row
// carries the row's cells and its line; each task applies its row in its own savepoint (the engine's), so a row
// applies completely or not at all; when the operation finishes, the failed rows are its file.
import { Type } from 'typebox'
import { FleetError, isFleetError } from '../../errors.js'
import type { NewTask, Operation, OperationType, Task } from '../../domain/operation.js'
import type { Repositories } from '../../ports/repositories.js'
import type { Company } from '../../domain/company.js'
import { launch, newOperation, type Caller, type OperationDeps } from '../common.js'
import { isCsvRefusal, type CsvRead, type CsvRow } from './read.js'
import { parseHeader, rowValues, type Column, type ColumnSet, type RowValues } from './columns.js'
import { parseDefaults, type CsvDefaults } from './defaults.js'
import type { CsvFileParams } from './failed-rows.js'

/** What the API hands a CSV kind: the file as read (csv/read.ts) and the text of the JSON part, if any. */
export interface CsvUpload { file: CsvRead, defaults?: string | undefined }

/**
 * The "body" of a CSV kind's route: the API reads the request (api/routes/csv-operations.routes.ts) into a CsvUpload;
 * this schema only documents it.
 */
export const CsvBody = Type.Unsafe<CsvUpload>({
  type: 'object',
  description: 'multipart/form-data: the CSV file in a part of any name, and an optional JSON part named defaultValues (or parameters)'
})

/** What a row's task may be given at creation from the file alone. */
export interface RowTask { systemUid?: string, refused?: { code: FleetError['code'], params: string[] } }

export interface CsvKindSpec {
  type: OperationType
  columns: ColumnSet
  /** Columns the header must have (bulk edit: UID). */
  required?: ReadonlyArray<Column['kind']>
  /** The keys of the JSON part this kind reads. */
  defaults: ReadonlyArray<keyof CsvDefaults>
  /** Called on every row in file order (a kind may remember earlier rows, to refuse a repeated identifier). */
  task?: () => (values: RowValues, row: CsvRow) => RowTask
}

const REQUIRED_NAMES: Partial<Record<Column['kind'], string>> = { uid: 'UID' }

/**
 * Checks the file, its header and the JSON part, then creates the operation with one task per row.
 * @throws set F (file.unreadable, file.header.missing, csv.header.unknown.column, file.missing.data, file.too.large),
 *   request.invalid (the JSON part), offer.unknown, application.unknown, callback.invalid, callback.forbidden
 */
export async function createCsvOperation (deps: OperationDeps, caller: Caller, spec: CsvKindSpec, upload: CsvUpload): Promise<{ operation: string }> {
  const { file } = upload
  if (isCsvRefusal(file)) throw new FleetError(file.refused, file.params)
  const columns = parseHeader(file.header, spec.columns)
  for (const kind of spec.required ?? []) {
    if (!columns.some((c) => c.kind === kind)) throw new FleetError('file.header.missing', [REQUIRED_NAMES[kind] ?? kind, 'the column is required'])
  }
  const defaults = parseDefaults(upload.defaults, spec.defaults)
  const companyUid = caller.access.company.uid
  if (defaults.offerId !== undefined && await deps.repos.catalogue.offer(companyUid, defaults.offerId) === undefined) {
    throw new FleetError('offer.unknown', [defaults.offerId])
  }
  if (defaults.defaultApplications !== undefined && defaults.defaultApplications.length > 0) {
    const found = await deps.repos.applications.findByUids(companyUid, defaults.defaultApplications)
    const unknown = defaults.defaultApplications.find((u) => !found.some((a) => a.uid === u))
    if (unknown !== undefined) throw new FleetError('application.unknown', [unknown])
  }
  const { notify, callback, ...rest } = defaults
  const fileParams: CsvFileParams = { header: file.header, delimiter: file.delimiter }
  const op = await newOperation(deps, caller, spec.type, { notify, callback }, { defaultValues: rest, file: fileParams })
  const prepare = spec.task?.()
  const nameAt = columns.findIndex((c) => c.kind === 'name')
  const tasks = file.rows.map((row): NewTask => {
    const t = prepare?.(rowValues(columns, row.cells), row) ?? {}
    const name = nameAt < 0 ? '' : (row.cells[nameAt] ?? '').trim()
    return {
      systemUid: t.systemUid ?? '',
      systemName: name === '' ? null : name,
      line: row.line,
      params: { cells: row.cells, ...(t.refused === undefined ? {} : { refused: t.refused }) }
    }
  })
  return await launch(deps, op, tasks)
}

/** A task's row, read back with the operation's header. */
export interface CsvRowContext { values: RowValues, defaults: CsvDefaults, columns: Column[] }

export function rowOf (op: Operation, task: Task, set: ColumnSet): CsvRowContext {
  const file = op.parameters.file as CsvFileParams
  const columns = parseHeader(file.header, set)
  const refused = task.params?.refused as RowTask['refused']
  if (refused !== undefined) throw new FleetError(refused.code, refused.params)
  return { values: rowValues(columns, (task.params?.cells as string[] | undefined) ?? []), defaults: (op.parameters.defaultValues ?? {}) as CsvDefaults, columns }
}

/** What a row's task records of the system it made or changed: its uid and name (a light lookup). */
export async function taskSystem (tx: Repositories, companyUid: string, uid: string): Promise<{ uid: string, name: string | null }> {
  const [ref] = await tx.systems.refs(companyUid, { uids: [uid] }, 1)
  return { uid, name: ref?.name ?? null }
}

/**
 * The taskWeight of a CSV row's handler (core/operations/handler.ts): a row costs about 18 statements (bench register),
 * a label task a fraction of one; PGlite then answers the API between chunks of 10 rows rather than 100.
 */
export const CSV_ROW_WEIGHT = 10

/** The company as insertSystem needs it (its system limit). */
export async function companyOf (tx: Repositories, companyUid: string): Promise<Pick<Company, 'uid' | 'systemLimit'>> {
  const company = await tx.companies.findByUid(companyUid)
  return { uid: companyUid, systemLimit: company?.systemLimit ?? null }
}

/**
 * docs/api.md#using-the-api, the register, import and bulk edit rows: a gateway or subscription another system holds is
 * gateway.assigned or subscription.assigned there (set C's system.invalid.assignment in the API).
 */
export async function withAssignedCodes<T> (fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (err) {
    if (isFleetError(err) && err.code === 'system.invalid.assignment') {
      throw new FleetError(err.params[0] === 'gateway' ? 'gateway.assigned' : 'subscription.assigned', err.params.slice(1))
    }
    throw err
  }
}
