// A package read and its binaries stored, before the release operation is created (docs/packages.md#release-and-publish;
// core/operations/kinds/release.ts says why it happens in the request): every check that can be made before the
// operation's transaction is made here, so that a failed release leaves no binary behind.
import type { Readable } from 'node:stream'
import { RELEASE_ERRORS, type ReleaseError, type ReleasedModel, type StoredBinary } from '../domain/application-package.js'
import { ArtifactTooLarge, type ArtifactStore } from '../ports/artifacts.js'
import type { ApplicationsRepository } from '../ports/applications.js'
import type { PreparedRelease, ReleasedApplication } from '../operations/kinds/release.js'
import type { ReceivedZip } from './applications-upload.js'
import type { Logger } from '../logger.js'

/** The package reader's answer (protocols/app-package/, given by the composition root: core reads no ZIP itself). */
export interface OpenedPackage {
  models: ReleasedModel[]
  binary: (file: string) => Promise<Readable>
  close: () => Promise<void>
}
export type PackageOpener = (zipPath: string) => Promise<{ ok: true, pkg: OpenedPackage } | { ok: false, error: ReleaseError }>

export interface ReleaseDeps {
  applications: Pick<ApplicationsRepository, 'findByKey' | 'artifactsInUse'>
  artifacts: ArtifactStore
  openPackage: PackageOpener
}

class ReleaseFailure extends Error {
  constructor (readonly error: ReleaseError) { super(error.message) }
}

/** A failure while a binary streams: the reader's own code (too large, bad entry), else an unreadable ZIP. */
function asReleaseError (err: unknown, file: string): ReleaseError {
  if (err instanceof ReleaseFailure) return err.error
  if (err instanceof ArtifactTooLarge) return { code: 'application.release.too.large', message: `binary "${file}" is larger than ${err.maxBytes} bytes` }
  const code = (err as { code?: unknown }).code
  const message = err instanceof Error ? err.message : String(err)
  if ((RELEASE_ERRORS as readonly unknown[]).includes(code)) return { code: code as ReleaseError['code'], message }
  return { code: 'application.release.invalid.zip', message: `binary "${file}" cannot be read: ${message}` }
}

/** application.type.already.used: a type and revision twice in the package, or existing (the company's or public). */
async function checkTypesFree (deps: ReleaseDeps, companyUid: string, models: readonly ReleasedModel[]): Promise<void> {
  const seen = new Map<string, string>()
  for (const m of models) {
    const key = JSON.stringify([m.type, m.revision])
    const other = seen.get(key)
    if (other !== undefined) throw new ReleaseFailure({ code: 'application.type.already.used', message: `${m.entry}: type ${m.type} revision ${m.revision} is also the one of ${other}` })
    seen.set(key, m.entry)
    const used = await deps.applications.findByKey(companyUid, m.type, m.revision) ?? await deps.applications.findByKey(null, m.type, m.revision)
    if (used !== undefined) throw new ReleaseFailure({ code: 'application.type.already.used', message: `${m.entry}: type ${m.type} revision ${m.revision} exists` })
  }
}

/** Streams each binary the models name into the artifact store, once per file; `created` collects the new keys. */
async function storeBinaries (deps: ReleaseDeps, models: readonly ReleasedModel[], open: OpenedPackage['binary'], created: Set<string>): Promise<Map<string, StoredBinary>> {
  const stored = new Map<string, StoredBinary>()
  for (const { binaries } of models) {
    for (const b of binaries) {
      if (stored.has(b.file)) continue
      try {
        const source = await open(b.file)
        const info = await deps.artifacts.put(source)
        // Content-addressed: a binary some application already had is the same artifact, and not this release's to remove.
        if (!(await deps.applications.artifactsInUse([info.key])).has(info.key)) created.add(info.key)
        stored.set(b.file, { ...b, size: info.size, sha256: info.sha256, md5: info.md5, artifact: info.key })
      } catch (err) {
        throw new ReleaseFailure(asReleaseError(err, b.file))
      }
    }
  }
  return stored
}

/** Removes the artifacts this release stored that no application uses (a failed release leaves nothing behind). */
export async function dropUnused (deps: Pick<ReleaseDeps, 'applications' | 'artifacts'>, keys: ReadonlySet<string>): Promise<void> {
  const used = await deps.applications.artifactsInUse([...keys])
  for (const key of keys) if (!used.has(key)) await deps.artifacts.delete(key)
}

/**
 * For a release task that lost to another release of its type and revision (core/operations/kinds/release.ts): its
 * binaries that no application references are removed, out of the task's transaction and without holding the task
 * (on the embedded store the statements queue behind that transaction; on PostgreSQL they read only committed
 * applications, and the failed task adds none). A failure is logged: the bytes then stay unreferenced.
 */
export function unreferencedDropper (deps: Pick<ReleaseDeps, 'applications' | 'artifacts'>, log: Pick<Logger, 'warn'>): (keys: readonly string[]) => void {
  return (keys) => {
    if (keys.length === 0) return
    dropUnused(deps, new Set(keys)).catch((err: unknown) => { log.warn({ err, keys }, 'binaries of a failed release not removed') })
  }
}

/** Reads the received package, checks it and stores its binaries: what the release operation creates, or its failure. */
export async function prepareRelease (deps: ReleaseDeps, companyUid: string, zip: ReceivedZip): Promise<PreparedRelease> {
  if (zip.refused !== undefined) return { size: zip.size, ok: false, error: zip.refused }
  const opened = await deps.openPackage(zip.path)
  if (!opened.ok) return { size: zip.size, ok: false, error: opened.error }
  const { pkg } = opened
  const created = new Set<string>()
  try {
    await checkTypesFree(deps, companyUid, pkg.models)
    const stored = await storeBinaries(deps, pkg.models, pkg.binary, created)
    const applications = pkg.models.map(({ binaries, ...model }): ReleasedApplication => ({
      model, binaries: binaries.map((b) => stored.get(b.file) as StoredBinary)
    }))
    return { size: zip.size, ok: true, applications }
  } catch (err) {
    await dropUnused(deps, created)
    if (err instanceof ReleaseFailure) return { size: zip.size, ok: false, error: err.error }
    throw err
  } finally {
    await pkg.close()
  }
}
