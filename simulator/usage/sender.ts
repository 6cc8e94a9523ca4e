// Sends the usage feed through the service's import, as an operator's billing system drops its files: each file is
// one `POST /api/v1/operations/systems/usages/import` (the CSV as the body; docs/usage.md), an operation
// SYSTEM_IMPORT_USAGES that the sender follows through GET /api/v1/operations/{uid} until it is FINISHED, one file
// after the other.
import { setTimeout as sleep } from 'node:timers/promises'
import { ProvisionError, type ApiClient } from '../provision.js'

export const USAGE_IMPORT_PATH = '/api/v1/operations/systems/usages/import'

/** What the sender reads of an operation (docs/operations.md#bulk-operations). */
interface OperationJson { state: string, total?: number, counters?: Array<{ state: string, count: number }> }

export interface FileOutcome {
  operation: string
  rows: number
  /** Rows stored (or already there: a repeated record is stored once and its row succeeds). */
  succeeded: number
  /** Rows that failed (their reasons are the operation's file, GET /api/v1/operations/{uid}/file). */
  failed: number
}

export interface WaitOptions {
  /** Between two reads of the operation (default 500 ms). */
  pollMs?: number
  /** Give up after this long (default 10 minutes). */
  timeoutMs?: number
}

/** Reads the operation until it is FINISHED. @throws ProvisionError when the service answers otherwise, or at the timeout */
export async function waitForOperation (api: ApiClient, uid: string, opts: WaitOptions = {}): Promise<OperationJson> {
  const deadline = Date.now() + (opts.timeoutMs ?? 600_000)
  for (;;) {
    const res = await api.request('GET', `/api/v1/operations/${encodeURIComponent(uid)}`)
    if (res.status !== 200) throw new ProvisionError(`reading operation ${uid} failed (${res.status}): ${JSON.stringify(res.json)}`)
    const op = res.json as OperationJson
    if (op.state === 'FINISHED') return op
    if (Date.now() > deadline) throw new ProvisionError(`operation ${uid} is still ${op.state} after ${opts.timeoutMs ?? 600_000} ms`)
    await sleep(opts.pollMs ?? 500)
  }
}

/** Imports one CSV file and waits until its operation is FINISHED. @throws ProvisionError with the service's answer */
export async function importUsageFile (api: ApiClient, csv: string, opts: WaitOptions = {}): Promise<FileOutcome> {
  const res = await api.request('POST', USAGE_IMPORT_PATH, csv, 'text/csv')
  if (res.status !== 200) throw new ProvisionError(`usage import refused (${res.status}): ${JSON.stringify(res.json)}`)
  const operation = (res.json as { operation: string }).operation
  const op = await waitForOperation(api, operation, opts)
  const rows = op.total ?? 0
  const succeeded = op.counters?.find((c) => c.state === 'SUCCESS')?.count ?? 0
  return { operation, rows, succeeded, failed: rows - succeeded }
}
