// What the install tests share (docs/packages.md#installs): released applications (their binaries in the service's
// artifact store, the application written as the release operation writes it), systems that carry an older revision,
// the four routes, and reading a download link as an agent does.
import { createHash } from 'node:crypto'
import { Readable } from 'node:stream'
import type { LightMyRequestResponse } from 'fastify'
import { expect } from 'vitest'
import { createRepositories } from '../../../storage/repositories/index.js'
import type { Application } from '../../../core/domain/system.js'
import { newUid } from '../../../core/security/secrets.js'
import { companyUid, uniq } from '../../helpers/factories.js'
import { countOperations, type Json } from '../../helpers/operations.js'
import { expectError } from '../../helpers/systems.js'
import { COMPANY_NAME, type Stack } from '../../helpers/stack.js'

export type SoftwareAction = 'install' | 'uninstall' | 'start' | 'stop'

export interface Released { uid: string, type: string, revision: string, bytes: Buffer, sha256: string, md5: string }

export interface ReleaseOptions {
  /** The model's `<application-manager use>`; null: none. */
  manager: string | null
  /** The protocols the model's communication declares (default MQTT). */
  protocols?: string[]
  /** Same type as an earlier release: a newer revision of it. */
  type?: string
  revision?: string
  /** Binaries to store (default one); 0: a model without binaries. */
  binaries?: number
  state?: 'RELEASED' | 'PUBLISHED' | 'DEPRECATED'
  company?: string
}

const digest = (algorithm: string, b: Buffer): string => createHash(algorithm).update(b).digest('hex')

/** An application released with its binaries, as the release operation leaves it. */
export async function releasedApplication (stack: Stack, opts: ReleaseOptions): Promise<Released> {
  const type = opts.type ?? uniq('app.sw')
  const revision = opts.revision ?? '1.0'
  const bytes = Buffer.from(`package ${type} ${revision} ${uniq('bytes')}\n`.repeat(2000))
  const binaries = []
  for (let i = 0; i < (opts.binaries ?? 1); i++) {
    const own = i === 0 ? bytes : Buffer.concat([bytes, Buffer.from(String(i))])
    const info = await stack.ctx.artifacts.put(Readable.from([own]))
    binaries.push({ file: `bin/${type}-${i}.tar`, revision, type: 'FULL', size: info.size, sha256: info.sha256, md5: info.md5, artifact: info.key })
  }
  const application: Application = {
    uid: newUid(),
    companyUid: await companyUid(stack, opts.company ?? COMPANY_NAME),
    name: `Software ${type}`,
    revision,
    type,
    category: 'APPLICATION',
    communication: (opts.protocols ?? ['MQTT']).map((t) => ({ type: t, commIdType: 'SERIAL' })) as Application['communication'],
    data: []
  }
  const repos = createRepositories(stack.db)
  await repos.applications.insertReleased({ application, ownerUid: null, applicationManager: opts.manager, binaries }, Date.now())
  if (opts.state === 'PUBLISHED') await repos.applications.publish(application.uid, Date.now())
  if (opts.state === 'DEPRECATED') await stack.db.query("UPDATE applications SET state = 'DEPRECATED' WHERE uid = $1", [application.uid])
  return { uid: application.uid, type, revision, bytes, sha256: digest('sha256', bytes), md5: digest('md5', bytes) }
}

/** POST /api/v1/operations/systems/applications/{action}. */
export async function postSoftware (stack: Stack, action: SoftwareAction, body: Json, token = stack.adminToken): Promise<LightMyRequestResponse> {
  return await stack.call(token, { method: 'POST', url: `/api/v1/operations/systems/applications/${action}`, payload: body })
}

/** The request is refused with `code` (400) and creates no operation. */
export async function refusedSoftware (stack: Stack, action: SoftwareAction, body: Json, code: string): Promise<Json> {
  const before = await countOperations(stack)
  const res = expectError(await postSoftware(stack, action, body), code)
  expect(await countOperations(stack)).toBe(before)
  return res
}

/** The uids of the system's applications, as GET /systems/{uid} shows them. */
export async function applicationsOf (stack: Stack, systemUid: string): Promise<string[]> {
  const res = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${systemUid}` })
  expect(res.statusCode, res.body).toBe(200)
  return ((res.json().applications ?? []) as Array<{ uid: string }>).map((a) => a.uid).sort()
}

/** Downloads a link as the agents do (a plain GET, no header); answers the status and the bytes. */
export async function download (url: string): Promise<{ status: number, bytes: Buffer }> {
  const res = await fetch(url)
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) }
}

export const sha256 = (b: Buffer): string => digest('sha256', b)
