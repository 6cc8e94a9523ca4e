// What a simulated device does with a software task (simulator/README.md "Software"; docs/packages.md#installs):
// - MQTT and REST `swinstall {type, revision, url}`: download the link (download.ts), check the bytes against the
//   SHA-256 the link's ETag names (the task carries no digest; the service tags a download with its bytes' SHA-256,
//   docs/packages.md#downloads), install, ack OK; `swuninstall`, `swstart`, `swstop` of a revision it has: OK, of one it lacks: ERROR.
// - M3DA `SoftwareUpdate {url, signature}` (the Mihini agent, docs/protocols/m3da.md#software-updates): download,
//   check the MD5 `signature`, read the package's Manifest and apply its components, then a Response of the ticket:
//   0, or the agent's update code with the reason (552 download retries exhausted, 553 MD5 mismatch, 556 invalid
//   update package).
// - hawkBit DDI deployments (transports/ddi.ts hands them over as DDI_DEPLOYMENT commands): download each artifact,
//   check its size and SHA-256, install the chunk's name at its version; the answer becomes the closed feedback.
// A device of the failing share of installs (`--update-failure-rate`) downloads and checks as the others, then fails
// the install: MQTT ERROR with INSTALL_FAILURE_MESSAGE, M3DA 556 with it as data.
import type { Ack, JsonValue, Task } from '../../protocols/airvantage/index.js'
import { download, type DownloadOptions } from './download.js'
import type { InstalledApplications } from './installed.js'
import { updatePackageReader } from './update-package.js'

/** An ack with, for M3DA, the agent's Response status (0 success, an update code otherwise). */
export type DeviceAck = Ack & { readonly code?: number }

export interface SoftwareOptions {
  /** Fail every install once downloaded (the failing share of `--update-failure-rate`). */
  failsInstalls?: boolean
  /** How downloads go: the fleet's limiter, tries, the cut rate, and the fleet's stop (its signal). */
  download?: Omit<DownloadOptions, 'sink'>
}

/**
 * Thrown instead of an answer when the fleet stops during a download: a device switched off mid-download answers
 * nothing, and the service keeps the task for its next connection (or its timeout).
 */
export class SoftwareStopped extends Error {
  constructor () { super('stopped during a download'); this.name = 'SoftwareStopped' }
}

/** The download's result; @throws SoftwareStopped when the fleet stopped meanwhile */
async function fetched (url: string, o: SoftwareOptions, sink?: DownloadOptions['sink']): Promise<Awaited<ReturnType<typeof download>>> {
  const got = await download(url, { ...o.download, ...(sink === undefined ? {} : { sink }) })
  if (!got.ok && o.download?.signal?.aborted === true) throw new SoftwareStopped()
  return got
}

export const INSTALL_FAILURE_MESSAGE = 'simulated install failure: this device fails its installs (update failure rate)'
/** The Mihini agent's command of an update package, under `@sys.commands`. */
export const SOFTWARE_UPDATE = 'SoftwareUpdate'

/** A hawkBit deployment as the DDI transport hands it to the task loop: `{name, version, artifacts: [{filename, url,
 *  sha256, size}]}`. */
export const DDI_DEPLOYMENT = 'ddi.deployment'

/** The Mihini agent's update codes (the Response status of a failed SoftwareUpdate). */
export const UPDATE_CODES = { retriesExhausted: 552, md5Mismatch: 553, invalidUpdate: 556 } as const

/** Whether runSoftwareTask answers it: an sw* task or the M3DA SoftwareUpdate command. */
export function isSoftwareTask (task: Task): boolean {
  if ('command' in task) return task.command.id === SOFTWARE_UPDATE || task.command.id === DDI_DEPLOYMENT
  return 'swinstall' in task || 'swuninstall' in task || 'swstart' in task || 'swstop' in task
}

const ok = (task: Task): DeviceAck => ({ uid: task.uid, status: 'OK', message: null })
const error = (task: Task, message: string, code?: number): DeviceAck =>
  ({ uid: task.uid, status: 'ERROR', message, ...(code === undefined ? {} : { code }) })

/** The SHA-256 a download's ETag names (the service's tag is the quoted hex digest), if it names one. */
const taggedSha256 = (etag: string | undefined): string | undefined => /^"([0-9a-f]{64})"$/.exec(etag ?? '')?.[1]

async function swinstall (task: Task & { swinstall: { type: string, revision: string, url: string } }, apps: InstalledApplications, o: SoftwareOptions): Promise<DeviceAck> {
  const got = await fetched(task.swinstall.url, o)
  if (!got.ok) return error(task, got.message)
  const tagged = taggedSha256(got.etag)
  if (tagged !== undefined && tagged !== got.sha256) return error(task, `SHA-256 mismatch: the bytes' is ${got.sha256}, the link's ETag says ${tagged}`)
  if (o.failsInstalls === true) return error(task, INSTALL_FAILURE_MESSAGE)
  apps.install(task.swinstall.type, task.swinstall.revision)
  return ok(task)
}

const text = (v: JsonValue | undefined): string | undefined => typeof v === 'string' ? v : undefined

async function softwareUpdate (task: Task, params: Record<string, JsonValue>, apps: InstalledApplications, o: SoftwareOptions): Promise<DeviceAck> {
  const url = text(params.url)
  if (url === undefined) return error(task, 'SoftwareUpdate without a url', UPDATE_CODES.invalidUpdate)
  const reader = updatePackageReader()
  const got = await fetched(url, o, reader)
  if (!got.ok) return error(task, got.message, UPDATE_CODES.retriesExhausted)
  const signature = text(params.signature)?.toLowerCase()
  if (signature !== undefined && signature !== got.md5) return error(task, `the package's MD5 is ${got.md5}, the signature ${signature}`, UPDATE_CODES.md5Mismatch)
  if (o.failsInstalls === true) return error(task, INSTALL_FAILURE_MESSAGE, UPDATE_CODES.invalidUpdate)
  const pkg = reader.result()
  if (!pkg.ok) return error(task, pkg.message, UPDATE_CODES.invalidUpdate)
  for (const c of pkg.components) {
    if (c.version !== undefined) apps.install(c.name, c.version)
    else for (const a of apps.list()) if (a.type === c.name) apps.uninstall(a.type, a.revision)
  }
  return { ...ok(task), code: 0 }
}

const isRecord = (v: JsonValue | undefined): v is Record<string, JsonValue> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** One artifact of a deployment fetched and checked; the reason it is not, otherwise. */
async function artifact (a: Record<string, JsonValue>, o: SoftwareOptions): Promise<string | undefined> {
  const name = text(a.filename) ?? '?'
  const got = await fetched(text(a.url) ?? '', o)
  if (!got.ok) return `${name}: ${got.message}`
  if (typeof a.size === 'number' && a.size >= 0 && got.size !== a.size) return `${name}: ${got.size} bytes, the deployment says ${a.size}`
  if (got.sha256 !== text(a.sha256)?.toLowerCase()) return `${name}: SHA-256 mismatch: the bytes' is ${got.sha256}, the deployment's ${text(a.sha256) ?? 'none'}`
  return undefined
}

async function deployment (task: Task, params: Record<string, JsonValue>, apps: InstalledApplications, o: SoftwareOptions): Promise<DeviceAck> {
  const artifacts = Array.isArray(params.artifacts) ? params.artifacts.filter(isRecord) : []
  if (artifacts.length === 0) return error(task, 'a deployment without artifacts')
  for (const a of artifacts) {
    const refused = await artifact(a, o)
    if (refused !== undefined) return error(task, refused)
  }
  if (o.failsInstalls === true) return error(task, INSTALL_FAILURE_MESSAGE)
  apps.install(text(params.name) ?? '', text(params.version) ?? '')
  return ok(task)
}

/** Runs one software task (isSoftwareTask) to its answer. */
export async function runSoftwareTask (task: Task, apps: InstalledApplications, o: SoftwareOptions = {}): Promise<DeviceAck> {
  if ('swinstall' in task) return await swinstall(task, apps, o)
  if ('command' in task) {
    const params = task.command.params ?? {}
    return task.command.id === DDI_DEPLOYMENT ? await deployment(task, params, apps, o) : await softwareUpdate(task, params, apps, o)
  }
  const [ref, done] = 'swuninstall' in task
    ? [task.swuninstall, apps.uninstall(task.swuninstall.type, task.swuninstall.revision)]
    : 'swstart' in task
      ? [task.swstart, apps.setRunning(task.swstart.type, task.swstart.revision, true)]
      : 'swstop' in task ? [task.swstop, apps.setRunning(task.swstop.type, task.swstop.revision, false)] : [undefined, false]
  if (ref === undefined) return error(task, 'not a software task')
  return done ? ok(task) : error(task, `${ref.type} ${ref.revision} is not installed`)
}
