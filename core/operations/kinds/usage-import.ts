// Usage import (docs/usage.md): POST /api/v1/operations/systems/usages/import with a CSV file, an
// operation of type SYSTEM_IMPORT_USAGES with one task per row (its `line`). The file and its header are checked
// before anything is created (set F, as the other CSV operations: core/operations/csv/); each row's system is found
// by its `system` uid, else by its `subscriptionIdentifier` (ICCID), among the caller's company's systems. A row
// stores one usage record; the same record imported again is stored once and its row still succeeds.
//
// Choices where the spec is silent (docs/usage.md):
// - A row naming both `system` and `subscriptionIdentifier` is the system's; a row whose system is not found, or
//   that names none, fails with system.unknown; a cell the record cannot take fails with request.invalid (column,
//   value, what it takes).
// - Records are processed when their row runs: that time is their end processing date (INVOICED_ counters), and
//   roundedBytesTotal / roundedDuration, when the file leaves them out, are rounded with the system's offer.
// - dataUsage of the systems of a chunk is brought up to date in the chunk's transaction (core/services/usage/month-usage.ts).
// - When the operation finishes, its failed rows are its file (GET /api/v1/operations/{uid}/file), as for the other
//   CSV operations.
import { FleetError, isFleetError } from '../../errors.js'
import type { NewTask, Operation, Task } from '../../domain/operation.js'
import type { Repositories } from '../../ports/repositories.js'
import type { NewUsageRecord } from '../../ports/usage.js'
import type { OperationHandler, TaskOutcome } from '../handler.js'
import { launch, newOperation, type Caller, type OperationDeps } from '../common.js'
import { isCsvRefusal } from '../csv/read.js'
import { CsvBody, type CsvUpload } from '../csv/operation.js'
import { operationKind } from '../kind.js'
import { parseDefaults } from '../csv/defaults.js'
import { writeFailedRows, type CsvFileParams } from '../csv/failed-rows.js'
import { usageColumns, usageRow } from '../../services/usage/usage-csv.js'
import { usageRecordOf } from '../../services/usage/usage-row.js'
import { addToMonthUsage } from '../../services/usage/month-usage.js'

/**
 * Checks the file, finds each row's system and creates the operation with one task per row.
 * @throws set F (file.unreadable, file.header.missing, csv.header.unknown.column, file.missing.data, file.too.large),
 *   request.invalid (the JSON part), callback.invalid, callback.forbidden
 */
export async function usageImportOperation (deps: OperationDeps, caller: Caller, upload: CsvUpload): Promise<{ operation: string }> {
  const { file } = upload
  if (isCsvRefusal(file)) throw new FleetError(file.refused, file.params)
  const columns = usageColumns(file.header)
  const { notify, callback } = parseDefaults(upload.defaults, ['notify', 'callback'])
  const rows = file.rows.map((r) => ({ ...r, row: usageRow(columns, r.cells) }))
  const uids = rows.flatMap((r) => r.row.system ?? [])
  const iccids = rows.flatMap((r) => r.row.system === undefined ? r.row.subscriptionIdentifier ?? [] : [])
  const targets = await deps.repos.usage.targets(caller.access.company.uid, uids, iccids)
  const byUid = new Map(targets.map((t) => [t.uid, t]))
  const byIccid = new Map(targets.flatMap((t) => t.iccid === null ? [] : [[t.iccid, t] as const]))
  const tasks = rows.map(({ line, cells, row }): NewTask => {
    const target = row.system !== undefined ? byUid.get(row.system) : byIccid.get(row.subscriptionIdentifier ?? '')
    // A row whose system is not found keeps what it named: its task fails with system.unknown when it runs.
    return { systemUid: target?.uid ?? row.system ?? row.subscriptionIdentifier ?? '', systemName: target?.name ?? null, line, params: { cells } }
  })
  const fileParams: CsvFileParams = { header: file.header, delimiter: file.delimiter }
  const op = await newOperation(deps, caller, 'SYSTEM_IMPORT_USAGES', { notify, callback }, { file: fileParams, rows: tasks.length })
  return await launch(deps, op, tasks)
}

/** The record of each task's row, or why the row fails; stores the records and recomputes the systems' dataUsage. */
async function importRows (tx: Repositories, op: Operation, tasks: Task[], now: number): Promise<Array<TaskOutcome | FleetError>> {
  const columns = usageColumns((op.parameters.file as CsvFileParams).header)
  const billing = await tx.usage.billing(op.companyUid, tasks.map((t) => t.systemUid))
  const records: NewUsageRecord[] = []
  const outcomes = tasks.map((t): TaskOutcome | FleetError => {
    const b = billing.get(t.systemUid)
    if (b === undefined) return new FleetError('system.unknown', [t.systemUid, 'no system of the company has this uid or subscription identifier'])
    const record = usageRecordOf(usageRow(columns, (t.params?.cells as string[] | undefined) ?? []), b.increments, now)
    if (isFleetError(record)) return record
    records.push({ ...record, systemUid: t.systemUid })
    return { state: 'SUCCESS', params: { record: record.uid } }
  })
  await addToMonthUsage(tx, await tx.usage.insert(records), now)
  return outcomes
}

export const usageImportHandler: OperationHandler = {
  async run ({ tx, op, task, now }) {
    const [outcome] = await importRows(tx, op, [task], now)
    if (outcome === undefined) throw new Error('no outcome for the task')
    if (isFleetError(outcome)) throw outcome
    return outcome
  },
  // A chunk's rows in a few statements: the records in one INSERT, dataUsage of its systems in two UPDATEs.
  async runChunk ({ tx, op, tasks, now }) {
    return await importRows(tx, op, tasks, now)
  },
  async finished (tx, op) {
    await writeFailedRows(tx, op)
  }
}

export const usageImportKind = operationKind({
  type: 'SYSTEM_IMPORT_USAGES',
  route: {
    path: '/operations/systems/usages/import',
    summary: 'Import usage records from a CSV file',
    description: 'The CSV itself as an application/octet-stream (or text/csv) body, or multipart/form-data (a CSV part of any name and an optional JSON part defaultValues or parameters {notify, callback}); at most 10 MB. Columns: system (uid) or subscriptionIdentifier (ICCID), type (DATA, SMS_SENT, SMS_RECEIVED, VOICE_IN, VOICE_OUT, MSU), start, and any field of the usage record (uid, end, partial, bytesSent, bytesReceived, bytesTotal, roundedBytesTotal, roundedDuration, apn, pdpAddress, ratType, phoneNumber, visitedNetwork, visitedCountry, visitedMnc, visitedMcc, servedImsi, servedImei, servedMsisdn). One task per row with its line; a record imported again is stored once; the failed rows are the operation\'s file.',
    body: CsvBody,
    upload: 'multipart-or-raw'
  },
  create: async (deps, caller, body) => await usageImportOperation(deps, caller, body),
  handler: usageImportHandler
})
