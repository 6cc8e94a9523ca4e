// Helpers of the CSV operations tests (docs/operations.md#csv-operations): multipart requests built by
// hand (so each test says exactly what the client sends), the operation run to its end, its tasks and its file.
import type { LightMyRequestResponse } from 'fastify'
import type { Stack } from '../../../helpers/stack.js'
import { allTasks, countOperations, started, until, waitFinished, type Json, type OperationJson } from '../../../helpers/operations.js'
import { countRows, expectError } from '../../../helpers/systems.js'
import { expect } from 'vitest'

export const REGISTER = '/api/v1/operations/systems/register'
export const IMPORT = '/api/v1/operations/systems/import'
export const EDIT = '/api/v1/operations/systems/edit'

export interface Part { name: string, filename?: string, contentType?: string, data: string | Buffer }

/** A multipart/form-data body of these parts. */
export function multipart (parts: Part[]): { payload: Buffer, headers: Record<string, string> } {
  const boundary = `----fleet${Math.random().toString(16).slice(2)}`
  const chunks: Buffer[] = []
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename === undefined ? '' : `; filename="${p.filename}"`}`
    const type = p.contentType === undefined ? '' : `Content-Type: ${p.contentType}\r\n`
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`), Buffer.isBuffer(p.data) ? p.data : Buffer.from(p.data), Buffer.from('\r\n'))
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }
}

export interface CsvRequest {
  /** The JSON part (a string is sent as is). */
  defaults?: Json | string
  /** Its name: defaultValues (default) or parameters. */
  defaultsName?: string
  /** The CSV part's name (any). */
  partName?: string
  token?: string
}

/** POST of a CSV file as a multipart request (the file part first, then the JSON part). */
export async function postCsv (stack: Stack, url: string, csv: string | Buffer, req: CsvRequest = {}): Promise<LightMyRequestResponse> {
  const parts: Part[] = [{ name: req.partName ?? 'file', filename: 'systems.csv', contentType: 'text/csv', data: csv }]
  if (req.defaults !== undefined) {
    parts.push({ name: req.defaultsName ?? 'defaultValues', contentType: 'application/json', data: typeof req.defaults === 'string' ? req.defaults : JSON.stringify(req.defaults) })
  }
  const { payload, headers } = multipart(parts)
  return await stack.call(req.token ?? stack.adminToken, { method: 'POST', url, payload, headers })
}

export interface CsvRun { op: OperationJson, tasks: Array<Json & { line: number }> }

/** Posts the file, waits for the operation to finish and answers it with its tasks (in line order). */
export async function runCsv (stack: Stack, url: string, csv: string | Buffer, req: CsvRequest = {}): Promise<CsvRun> {
  const uid = await started(postCsv(stack, url, csv, req))
  if (req.token === undefined) {
    const op = await waitFinished(stack, uid, 30_000)
    return { op, tasks: await allTasks(stack, uid) as unknown as CsvRun['tasks'] }
  }
  // Another company's user: its operation is read with its token.
  const token = req.token
  let op: OperationJson | undefined
  await until(`operation ${uid} FINISHED`, async () => {
    op = (await stack.call(token, { method: 'GET', url: `/api/v1/operations/${uid}` })).json()
    return op?.state === 'FINISHED'
  }, 30_000)
  const page = (await stack.call(token, { method: 'GET', url: `/api/v1/operations/${uid}/tasks?size=500` })).json() as { items: CsvRun['tasks'] }
  return { op: op as OperationJson, tasks: page.items }
}

/** The failed-rows file of a finished CSV operation, as text without its BOM. */
export async function failedRows (stack: Stack, uid: string): Promise<{ text: string, raw: Buffer, contentType: string }> {
  const res = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/operations/${uid}/file` })
  if (res.statusCode !== 200) throw new Error(`file of ${uid}: ${res.statusCode} ${res.body}`)
  const raw = res.rawPayload
  return { raw, text: raw.toString('utf8').replace(/^\uFEFF/, ''), contentType: String(res.headers['content-type']) }
}

/** The request is refused with `code` (400), creating no operation and no system, gateway or subscription. */
export async function refusedCsv (stack: Stack, request: () => Promise<LightMyRequestResponse>, code: string): Promise<Json> {
  const ops = await countOperations(stack)
  const rows = await countRows(stack)
  const body = expectError(await request(), code)
  expect(await countOperations(stack)).toBe(ops)
  expect(await countRows(stack)).toEqual(rows)
  return body
}

/** The error code of each task, by line (null for a success). */
export const codesByLine = (tasks: CsvRun['tasks']): Record<number, string | null> =>
  Object.fromEntries(tasks.map((t) => [t.line, t.error?.code ?? null]))
