// Application packages on the API side (docs/packages.md#release-and-publish): a release request read into an
// operation, and an application deleted with the artifacts no other application uses.
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { FleetError } from '../errors.js'
import type { UnitOfWork } from '../ports/store.js'
import type { ApplicationsRepository } from '../ports/applications.js'
import type { ArtifactStore } from '../ports/artifacts.js'
import type { Actor } from '../domain/actor.js'
import type { CompanyAccess } from './access.js'
import type { OperationsService } from '../operations/service.js'
import { releaseKind } from '../operations/kinds/release.js'
import { receiveZip } from './applications-upload.js'
import { prepareRelease, type PackageOpener } from './applications-release.js'

export interface ApplicationPackagesDeps {
  applications: ApplicationsRepository
  inTransaction: UnitOfWork
  artifacts: ArtifactStore
  openPackage: PackageOpener
  operations: Pick<OperationsService, 'create'>
  /** Where release bodies are written while they are read (under DATA_DIR). */
  dataDir: string
  /** APPLICATION_RELEASE_MAX_BYTES: a larger body fails its release with application.release.too.large. */
  maxReleaseBytes: number
}

export function createApplicationPackagesService (deps: ApplicationPackagesDeps) {
  const uploads = join(deps.dataDir, 'tmp', 'releases')

  /**
   * POST /operations/applications/release: the body written to a file, read, its binaries stored, then the operation
   * created; the file is removed whatever happens. A refused body (not a ZIP, too large) is left unread: the caller
   * closes the connection after answering. `received`: awaited once the body is in (or refused), before any of the
   * store's work: the API's admission takes the request's place there, not while the client sends (it may throw).
   */
  async function release (access: CompanyAccess, actor: Actor, body: Readable, received?: () => Promise<void>): Promise<{ operation: string }> {
    const zip = await receiveZip(body, uploads, deps.maxReleaseBytes)
    try {
      await received?.()
      const prepared = await prepareRelease(deps, access.company.uid, zip)
      return await deps.operations.create(releaseKind, access, actor, prepared)
    } finally {
      await zip.discard()
    }
  }

  /**
   * DELETE /applications/{uid}: one of the context company's applications (any other is unknown to it, as for the
   * other application routes), then the artifacts of its binaries that no other application uses.
   * @throws application.unknown, application.in.use (an operation not finished names it, or systems have it)
   */
  async function remove (access: CompanyAccess, uid: string): Promise<void> {
    const freed = await deps.inTransaction(async (tx) => {
      const [found] = await tx.applications.findByUids(access.company.uid, [uid])
      if (found?.companyUid !== access.company.uid) throw new FleetError('application.unknown', [uid])
      const use = await tx.applications.inUse(uid)
      if (use.operations > 0) throw new FleetError('application.in.use', [uid, `${use.operations} operation(s) in progress name it`])
      if (use.systems > 0) throw new FleetError('application.in.use', [uid, `${use.systems} system(s) have it`])
      return await tx.applications.delete(uid)
    })
    // After the commit: a rolled back deletion keeps its bytes.
    for (const key of freed) await deps.artifacts.delete(key)
  }

  return { release, remove }
}

export type ApplicationPackagesService = ReturnType<typeof createApplicationPackagesService>
