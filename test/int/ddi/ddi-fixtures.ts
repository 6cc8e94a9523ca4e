// What the DDI tests share (docs/protocols/ddi.md): a controller's requests with its TargetToken, and install device
// tasks written as the install operation writes them (core/operations/device/software-handler.ts): the binary in the
// artifact store, its download link, the SoftwareBody over protocol DDI; with an operation and its task when a test
// needs the engine (cancel).
import { createHash } from 'node:crypto'
import { Readable } from 'node:stream'
import { createRepositories } from '../../../storage/repositories/index.js'
import { newUid } from '../../../core/security/secrets.js'
import type { SoftwareBody } from '../../../core/domain/software-task.js'
import type { Application } from '../../../core/domain/system.js'
import type { Stack } from '../../helpers/stack.js'
import { insertTask, type Device } from '../../helpers/devices.js'
import { companyUid, uniq } from '../../helpers/factories.js'
import { COMPANY_NAME } from '../../helpers/stack.js'

export const digest = (algorithm: string, b: Buffer): string => createHash(algorithm).update(b).digest('hex')

export interface Controller { tenant: string, id: string, token: string }

export const controllerOf = (stack: Stack, d: Device, tenant = stack.companyUid): Controller => ({ tenant, id: d.serial, token: d.restPassword ?? '' })

export interface DdiAnswer { status: number, body: any, text: string, headers: Headers }

/** One DDI request (`path` after the controller's base, '' for the poll) with `Authorization: TargetToken`. */
export async function ddi (stack: Stack, c: Controller, method: string, path = '', opts: { body?: string, authorization?: string } = {}): Promise<DdiAnswer> {
  const url = `${stack.httpUrl}/ddi/${encodeURIComponent(c.tenant)}/controller/v1/${encodeURIComponent(c.id)}${path}`
  const headers: Record<string, string> = { authorization: opts.authorization ?? `TargetToken ${c.token}` }
  if (opts.body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(url, { method, headers, ...(opts.body === undefined ? {} : { body: opts.body }) })
  const text = await res.text()
  let body: unknown
  try { body = text === '' ? undefined : JSON.parse(text) } catch { body = text }
  return { status: res.status, body, text, headers: res.headers }
}

/** A feedback document as SWUpdate writes it. */
export const feedback = (execution: string, finished = 'none', details: string[] = []): string =>
  JSON.stringify({ id: 1, time: '20260101T000000', status: { result: { progress: { cnt: 0, of: 0 }, finished }, execution, details } })

/** The action id and href the poll points to, for a rel. */
export function linkOf (poll: DdiAnswer, rel: 'deploymentBase' | 'cancelAction'): { id: string, path: string } | undefined {
  const href = poll.body?._links?.[rel]?.href as string | undefined
  if (href === undefined) return undefined
  const id = href.slice(href.lastIndexOf('/') + 1)
  return { id, path: `/${rel}/${id}` }
}

export interface Install { taskUid: string, operationUid: string, bytes: Buffer, url: string, file: string }

export interface InstallOptions {
  bytes?: Buffer
  /** Serve these bytes through the link instead of the binary's own (a corrupted download). */
  served?: Buffer
}

/**
 * An install device task of the system over DDI, its binary stored and linked (a link belongs to an operation task:
 * each install is one operation IN_PROGRESS, as the engine leaves it once the task is written).
 */
export async function insertInstall (stack: Stack, systemUid: string, opts: InstallOptions = {}): Promise<Install> {
  const operation = await insertOperation(stack, systemUid)
  const bytes = opts.bytes ?? Buffer.from(`firmware ${uniq('image')}\n`.repeat(500))
  const info = await stack.ctx.artifacts.put(Readable.from([bytes]))
  const servedInfo = opts.served === undefined ? info : await stack.ctx.artifacts.put(Readable.from([opts.served]))
  const taskUid = operation.taskUid
  const file = `images/${uniq('update')}.swu`
  const url = await stack.ctx.services.downloads.link({ systemUid, taskUid, artifact: servedInfo.key, file, size: servedInfo.size, expiresAt: Date.now() + 3_600_000 })
  const body: SoftwareBody & { uid: string } = {
    uid: taskUid,
    software: {
      action: 'install',
      application: { uid: newUid(), type: 'gw.firmware', name: 'Gateway firmware', revision: '2.1' },
      manager: 'HAWKBIT',
      binaries: [{ file, revision: '2.1', type: 'FULL', size: info.size, sha256: info.sha256, md5: info.md5, url }]
    }
  }
  await insertTask(stack, systemUid, body as unknown as Record<string, unknown>, { protocol: 'DDI' })
  await stack.db.query('UPDATE device_tasks SET operation_uid = $2, operation_task_uid = $3 WHERE uid = $1', [taskUid, operation.operationUid, taskUid])
  return { taskUid, operationUid: operation.operationUid, bytes, url, file }
}

/** An install operation IN_PROGRESS with one IN_PROGRESS task for the system, as the engine leaves it once sent. */
export async function insertOperation (stack: Stack, systemUid: string): Promise<{ operationUid: string, taskUid: string }> {
  const repos = createRepositories(stack.db)
  const now = Date.now()
  const operationUid = newUid()
  await repos.operations.insert({
    uid: operationUid,
    companyUid: stack.companyUid,
    type: 'SYSTEM_INSTALL_APPLICATION',
    state: 'IN_PROGRESS',
    createdAt: now,
    startDate: now,
    scheduledTime: null,
    timeoutDate: now + 3_600_000,
    endDate: null,
    cancelDate: null,
    total: 0,
    target: null,
    userUid: null,
    userEmail: null,
    notify: false,
    callback: null,
    parameters: { application: newUid() },
    dependsOn: null,
    resolved: true
  })
  await repos.operations.insertTasks(operationUid, [{ systemUid, systemName: 'ddi' }], now)
  const task = (await repos.operations.tasks(operationUid, undefined, { offset: 0, size: 1 })).items[0]
  if (task === undefined) throw new Error('no task written')
  await repos.operations.setTaskResults([{ uid: task.uid, state: 'IN_PROGRESS' }], now)
  return { operationUid, taskUid: task.uid }
}

export async function operationTask (stack: Stack, taskUid: string): Promise<{ state: string, errorCode: string | null, errorMessage: string | null }> {
  const { rows } = await stack.db.query<{ state: string, errorCode: string | null, errorMessage: string | null }>(
    'SELECT state, error_code AS "errorCode", error_message AS "errorMessage" FROM operation_tasks WHERE uid = $1', [taskUid])
  if (rows[0] === undefined) throw new Error(`no operation task ${taskUid}`)
  return rows[0]
}

export interface Firmware { uid: string, type: string, file: string }

/**
 * An application whose update path is HAWKBIT, released with one binary of these bytes (as the release operation
 * leaves it) and declaring DDI with a poll every `pollPeriodS` seconds: what an install operation sends over DDI.
 */
export async function releasedFirmware (stack: Stack, bytes: Buffer, pollPeriodS = 1): Promise<Firmware> {
  const type = uniq('gw.firmware')
  const info = await stack.ctx.artifacts.put(Readable.from([bytes]))
  const file = `images/${type}.swu`
  const application: Application = {
    uid: newUid(),
    companyUid: await companyUid(stack, COMPANY_NAME),
    name: 'Gateway firmware',
    revision: '2.1',
    type,
    category: 'FIRMWARE',
    communication: [{ type: 'DDI', commIdType: 'SERIAL', parameters: { pollPeriodS } }] as Application['communication'],
    data: []
  }
  await createRepositories(stack.db).applications.insertReleased({
    application, ownerUid: null, applicationManager: 'HAWKBIT', binaries: [{ file, revision: '2.1', type: 'FULL', size: info.size, sha256: info.sha256, md5: info.md5, artifact: info.key }]
  }, Date.now())
  return { uid: application.uid, type, file }
}
