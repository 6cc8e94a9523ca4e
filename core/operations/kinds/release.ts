// Release (docs/packages.md#release-and-publish): POST /api/v1/operations/applications/release with the raw bytes of a
// package, an operation of type APPLICATION_RELEASE with one task, which names no system. The request is read by
// core/services/applications-packages.service.ts: the ZIP is written to a file of the receiving process, read and
// checked, its binaries streamed into the artifact store, before the operation is created (a worker of another
// process cannot read that file, and a chunk's transaction must not wait on a package's bytes: on the embedded
// store the API waits for it, docs/decisions/0027-release-reads-the-package-in-the-request.md). The task then creates
// the applications, one per model, in its transaction, or fails with the release's code and creates nothing.
import { Type } from 'typebox'
import { FleetError } from '../../errors.js'
import type { Application } from '../../domain/system.js'
import type { ReleaseError, ReleasedModel, StoredBinary } from '../../domain/application-package.js'
import type { OperationHandler } from '../handler.js'
import { launch, newOperation, type Caller, type OperationDeps } from '../common.js'
import { operationKind } from '../kind.js'
import { newUid } from '../../security/secrets.js'

/** One application to create: its model and its binaries as stored. */
export interface ReleasedApplication { model: Omit<ReleasedModel, 'binaries'>, binaries: StoredBinary[] }

/** The package as read by the request: what to create, or why the release fails. */
export type PreparedRelease = { size: number } & ({ ok: true, applications: ReleasedApplication[] } | { ok: false, error: ReleaseError })

/** What the operation shows of its package (its parameters): its size and the models it holds. */
const parametersOf = (p: PreparedRelease): Record<string, unknown> => ({
  size: p.size,
  applications: p.ok ? p.applications.map(({ model }) => ({ type: model.type, revision: model.revision, name: model.name, entry: model.entry })) : []
})

/** Creates the operation and its one task, which carries the prepared applications (task parameters stay inside). */
export async function releaseOperation (deps: OperationDeps, caller: Caller, prepared: PreparedRelease): Promise<{ operation: string }> {
  const op = await newOperation(deps, caller, 'APPLICATION_RELEASE', {}, parametersOf(prepared))
  const params = prepared.ok ? { applications: prepared.applications } : { error: prepared.error }
  return await launch(deps, op, [{ systemUid: '', systemName: null, params }])
}

type ReleaseTaskParams = { applications?: ReleasedApplication[], error?: ReleaseError } | null

/** The artifact keys of the binaries a release task carries. */
const keysOf = (params: ReleaseTaskParams): string[] =>
  [...new Set((params?.applications ?? []).flatMap(({ binaries }) => binaries.map((b) => b.artifact)))]

/**
 * The release task. `dropUnreferenced`: when the task fails because another release of a type and revision it holds
 * finished first (two sent at the same moment both pass the request's check), its binaries that no application
 * references are removed (docs/decisions/0027-release-reads-the-package-in-the-request.md); the same bytes as the
 * winner's are the winner's artifact, and stay.
 */
export function releaseHandlerWith (dropUnreferenced?: (keys: readonly string[]) => void): OperationHandler {
  return {
    run: releaseHandler.run,
    async failed ({ task }) { dropUnreferenced?.(keysOf(task.params as ReleaseTaskParams)) }
  }
}

export const releaseHandler: OperationHandler = {
  async run ({ tx, op, task, now }) {
    const params = task.params as ReleaseTaskParams
    if (params?.error !== undefined) throw new FleetError(params.error.code, [params.error.message])
    const created: string[] = []
    for (const { model, binaries } of params?.applications ?? []) {
      // Checked again here: another release of the same type and revision may have finished since the request.
      const used = await tx.applications.findByKey(op.companyUid, model.type, model.revision) ??
        await tx.applications.findByKey(null, model.type, model.revision)
      if (used !== undefined) throw new FleetError('application.type.already.used', [`${model.entry}: type ${model.type} revision ${model.revision} exists`])
      const application: Application = {
        uid: newUid(),
        companyUid: op.companyUid,
        name: model.name,
        revision: model.revision,
        type: model.type,
        category: model.category,
        communication: model.communication,
        data: model.data
      }
      await tx.applications.insertReleased({ application, ownerUid: op.userUid, applicationManager: model.applicationManager, binaries }, now)
      created.push(application.uid)
    }
    return { state: 'SUCCESS', params: { applications: created } }
  }
}

export const releaseKind = operationKind({
  type: 'APPLICATION_RELEASE',
  route: {
    path: '/operations/applications/release',
    summary: 'Release applications from a package',
    description: 'The body is the ZIP itself, not multipart, whatever its Content-Type (application/zip, application/octet-stream, application/json) or none, with a length or chunked: a ZIP is recognised by its first bytes. Each *.app model of the package becomes one of the context company\'s applications, RELEASED, the caller its owner, with its communication, data tree, application manager and binaries (size, sha256, md5). One task, which names no system; it fails with application.release.invalid.zip, application.release.no.model, application.release.invalid.model (entry and line), application.release.missing.binary, application.type.already.used or application.release.too.large, and nothing is created.',
    body: Type.Unknown({ description: 'The raw bytes of the ZIP' }),
    upload: 'zip'
  },
  create: async (deps, caller, body) => await releaseOperation(deps, caller, body as PreparedRelease),
  handler: releaseHandler,
  bind: (deps) => releaseHandlerWith(deps.dropUnreferenced)
})
