// Creating an install, uninstall, start or stop (docs/packages.md#installs): the application is checked at once (400,
// nothing created), then the selection, the schedule and the callback as every device operation's.
import { FleetError } from '../../errors.js'
import type { Repositories } from '../../ports/repositories.js'
import type { OperationType } from '../../domain/operation.js'
import type { Application } from '../../domain/system.js'
import { APPLICATION_MANAGERS, type ApplicationManager, type ApplicationRelease } from '../../domain/application-package.js'
import type { SoftwareAction } from '../../domain/software-task.js'
import { launch, newOperation, type Caller, type OperationDeps } from '../common.js'
import { resolveSelection } from '../selection.js'
import { rolloutParams } from './rollout-params.js'
import type { SoftwareParameters, SoftwareRequest } from './software-body.js'

const blank = (s: string | null | undefined): s is null | undefined | '' => s == null || s.trim() === ''

const isManager = (m: string | null): m is ApplicationManager => m !== null && (APPLICATION_MANAGERS as readonly string[]).includes(m)

/** An application the company sees (its own or a public one) with its release. */
export interface Installable { application: Application, release: ApplicationRelease, manager: ApplicationManager }

/**
 * The application as the company sees it (another company's is unknown, as GET answers), with the update path its
 * model names. Read again by each chunk of tasks. @throws application.unknown,
 * operation.install.missing.application.manager
 */
export async function installable (repos: Pick<Repositories, 'applications'>, companyUid: string, uid: string): Promise<Installable> {
  const [application] = await repos.applications.findByUids(companyUid, [uid])
  const release = application === undefined ? undefined : (await repos.applications.releases([uid])).get(uid)
  if (application === undefined || release === undefined) throw new FleetError('application.unknown', [uid])
  const manager = release.applicationManager
  if (!isManager(manager)) {
    throw new FleetError('operation.install.missing.application.manager', [uid, manager === null ? 'its model names no <application-manager>' : `unknown application manager ${manager}`])
  }
  return { application, release, manager }
}

/**
 * What the request may ask of the application: an install needs binaries, and a deprecated application is installed
 * no more (RELEASED and PUBLISHED both are: a company installs what it released on its own systems before publishing
 * it). @throws application.missing, what installable() throws, operation.install.missing.binaries,
 *   operation.install.application.deprecated
 */
async function requested (repos: Pick<Repositories, 'applications'>, companyUid: string, uid: string | null | undefined, action: SoftwareAction): Promise<Installable> {
  if (blank(uid)) throw new FleetError('application.missing', ['application', `the uid of the application to ${action}`])
  const found = await installable(repos, companyUid, uid.trim())
  if (action === 'install' && found.release.binaries.length === 0) throw new FleetError('operation.install.missing.binaries', [uid, 'its model names no <binaries>'])
  if (action === 'install' && found.release.state === 'DEPRECATED') throw new FleetError('operation.install.application.deprecated', [uid])
  return found
}

/**
 * Validates and creates the operation.
 * @throws what requested() throws, set S, set T, callback.invalid, callback.forbidden
 */
export async function createSoftwareOperation (deps: OperationDeps, caller: Caller, type: OperationType, action: SoftwareAction, body: SoftwareRequest): Promise<{ operation: string }> {
  const companyUid = caller.access.company.uid
  const { application, manager } = await requested(deps.repos, companyUid, body.application, action)
  const selection = await resolveSelection(deps.repos, companyUid, body.systems)
  const parameters: SoftwareParameters & Record<string, unknown> = {
    action,
    application: application.uid,
    applicationType: application.type,
    applicationName: application.name,
    applicationRevision: application.revision,
    manager,
    protocol: blank(body.protocol) ? null : body.protocol.trim().toUpperCase(),
    requestConnection: body.requestConnection === true,
    reboot: body.reboot === true,
    options: body.parameters ?? null,
    ...rolloutParams(body)
  }
  const op = await newOperation(deps, caller, type, body, parameters, selection)
  return await launch(deps, op, selection.tasks)
}
