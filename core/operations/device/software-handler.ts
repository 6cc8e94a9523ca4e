// How an install, uninstall, start or stop runs on each system (docs/packages.md#installs): the application's update
// path and the system's protocols choose the transport (software-targets.ts), an install gives the task a download
// link per binary, valid until the operation's timeout, and the device task (core/domain/software-task.ts) leaves as
// every device task does, with the SMS shoulder tap first when requestConnection asks for it. The device's success
// ends the task SUCCESS and, in the same transaction, the system's applications hold the installed revision in place
// of any other of its type (an uninstall removes it); its error ends it FAILURE with the device's message.
import { FleetError } from '../../errors.js'
import type { Repositories } from '../../ports/repositories.js'
import type { DownloadLinkInput } from '../../ports/package-downloads.js'
import type { Operation } from '../../domain/operation.js'
import type { SoftwareAction, SoftwareBinary, SoftwareBody } from '../../domain/software-task.js'
import { DEVICE_ERROR } from '../engine.js'
import type { AnswerContext, OperationHandler, TaskContext, TaskOutcome } from '../handler.js'
import { perSystem, present } from './per-system.js'
import { issueDeviceTask } from './issue.js'
import { installable, type Installable } from './software-create.js'
import { softwareParameters } from './software-body.js'
import { softwareTransport } from './software-targets.js'
import type { DeviceTarget } from './targets.js'

/** What the handlers need of the rest of the service: the download links, written in the task's transaction. */
export interface SoftwareDeps { link: (tx: Repositories, req: DownloadLinkInput) => Promise<string> }

// The application and its release, read once per transaction and operation: a chunk's tasks share the chunk's
// repositories (per-system.ts), so 500 tasks read it once. Released binaries never change.
const read = new WeakMap<Repositories, Map<string, Promise<Installable>>>()

/** @throws application.unknown, operation.install.missing.application.manager */
async function packageOf (tx: Repositories, op: Operation): Promise<Installable> {
  let ofTx = read.get(tx)
  if (ofTx === undefined) { ofTx = new Map(); read.set(tx, ofTx) }
  let found = ofTx.get(op.uid)
  if (found === undefined) { found = installable(tx, op.companyUid, softwareParameters(op).application); ofTx.set(op.uid, found) }
  return await found
}

async function linksOf (deps: SoftwareDeps | undefined, ctx: TaskContext, pkg: Installable): Promise<SoftwareBinary[]> {
  if (pkg.release.binaries.length === 0) return []
  if (deps === undefined) throw new Error('software operations run without download links: bind the kind (core/operations/kind.ts)')
  const out: SoftwareBinary[] = []
  for (const b of pkg.release.binaries) {
    const url = await deps.link(ctx.tx, { systemUid: ctx.task.systemUid, taskUid: ctx.task.uid, artifact: b.artifact, file: b.file, size: b.size, expiresAt: ctx.op.timeoutDate })
    out.push({ file: b.file, revision: b.revision, type: b.type, size: b.size, sha256: b.sha256, md5: b.md5, url })
  }
  return out
}

/** The task of one system: every check first, then the links (a failed check leaves none behind). */
async function runOne (deps: SoftwareDeps | undefined, action: SoftwareAction, ctx: TaskContext, found: DeviceTarget | undefined): Promise<TaskOutcome> {
  const pkg = await packageOf(ctx.tx, ctx.op)
  const target = present(ctx, found)
  const p = softwareParameters(ctx.op)
  const protocol = softwareTransport(target, pkg.manager, action, p.protocol, pkg.application.communication)
  const { uid, type, name, revision } = pkg.application
  const body: SoftwareBody = {
    software: { action, application: { uid, type, name, revision }, manager: pkg.manager, binaries: action === 'install' ? await linksOf(deps, ctx, pkg) : [] }
  }
  return await issueDeviceTask(ctx, protocol, body, { requestConnection: p.requestConnection })
}

/** The system's applications once the device succeeded: the installed one in place of its type's, or without it. */
async function recordApplications (ctx: AnswerContext, action: SoftwareAction): Promise<void> {
  if (action !== 'install' && action !== 'uninstall') return
  const p = softwareParameters(ctx.op)
  const current = await ctx.tx.applications.ofSystem(ctx.task.systemUid)
  const kept = current.filter((a) => a.uid !== p.application && (action === 'uninstall' || a.type !== p.applicationType)).map((a) => a.uid)
  await ctx.tx.systems.setApplications(ctx.task.systemUid, action === 'install' ? [...kept, p.application] : kept)
}

/** Tasks read per page while the links of a finished install are revoked. */
const PAGE = 500

/**
 * Once the operation has finished, every task has ended (SUCCESS, FAILURE, cancelled, timed out): its links are of no
 * more use and are revoked with the FINISHED state, rather than left valid until the timeout.
 */
async function revokeLinks (tx: Repositories, op: Operation): Promise<void> {
  for (let offset = 0; ; offset += PAGE) {
    const page = await tx.operations.tasks(op.uid, undefined, { offset, size: PAGE })
    await tx.packageDownloads.removeForTasks(page.items.map((t) => t.uid))
    if (page.items.length < PAGE) return
  }
}

/** The handler of one action; `deps` absent only where no task runs (the kind's declaration before binding). */
export function softwareHandler (action: SoftwareAction, deps?: SoftwareDeps): OperationHandler {
  return {
    ...perSystem(async (ctx, target) => await runOne(deps, action, ctx, target)),
    // docs/devices.md: OK → SUCCESS, ERROR → FAILURE with the device's message; a task being cancelled takes what
    // the device answers, so an install that went through is recorded all the same.
    async answered (ctx) {
      if (ctx.answer.status === 'ERROR') throw new FleetError(DEVICE_ERROR, ctx.answer.message === null ? [] : [ctx.answer.message])
      await recordApplications(ctx, action)
      return { state: 'SUCCESS' }
    },
    ...(action === 'install' ? { finished: revokeLinks } : {})
  }
}
