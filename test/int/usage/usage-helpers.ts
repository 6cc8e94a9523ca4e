// Helpers of the usage record tests (docs/usage.md): send a usage CSV (raw body or multipart), wait
// for its operation, read records and systems back through HTTP.
import type { LightMyRequestResponse } from 'fastify'
import type { Stack } from '../../helpers/stack.js'
import { started, waitFinished, type OperationJson } from '../../helpers/operations.js'

export const IMPORT_URL = '/api/v1/operations/systems/usages/import'

/** POST the CSV as a raw body (application/octet-stream unless told). */
export async function postUsageCsv (stack: Stack, csv: string | Buffer, opts: { token?: string, type?: string } = {}): Promise<LightMyRequestResponse> {
  return await stack.call(opts.token ?? stack.adminToken, {
    method: 'POST', url: IMPORT_URL, headers: { 'content-type': opts.type ?? 'application/octet-stream' }, payload: csv
  })
}

/** POST the CSV as multipart/form-data: a file part named `file`, and a JSON text part when given. */
export async function postUsageMultipart (stack: Stack, csv: string, json?: { name: string, value: unknown }): Promise<LightMyRequestResponse> {
  const boundary = '----usage-test-boundary'
  const parts = [`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="usage.csv"\r\nContent-Type: text/csv\r\n\r\n${csv}\r\n`]
  if (json !== undefined) parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="${json.name}"\r\n\r\n${JSON.stringify(json.value)}\r\n`)
  return await stack.call(stack.adminToken, {
    method: 'POST', url: IMPORT_URL, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, payload: `${parts.join('')}--${boundary}--\r\n`
  })
}

/** Imports the CSV and waits until its operation has finished. */
export async function importUsage (stack: Stack, csv: string): Promise<OperationJson> {
  return await waitFinished(stack, await started(postUsageCsv(stack, csv)))
}

/** GET as the administrator; fails the test on anything but 200. */
export async function getJson (stack: Stack, url: string): Promise<any> {
  const res = await stack.call(stack.adminToken, { method: 'GET', url })
  if (res.statusCode !== 200) throw new Error(`GET ${url}: ${res.statusCode} ${res.body}`)
  return res.json()
}

/** Usage records stored for a system, straight from the store. */
export async function storedRecords (stack: Stack, systemUid: string): Promise<number> {
  const { rows } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM usage_records WHERE system_uid = $1', [systemUid])
  return rows[0]?.n ?? 0
}

/** A CSV text from rows of cells, lines ended by `eol`, cells joined by `sep`. */
export const csvOf = (rows: Array<Array<string | number>>, sep = ',', eol = '\n'): string => rows.map((r) => r.join(sep)).join(eol) + eol
