import { FleetError } from '../errors.js'
import type { Clock } from '../ports/store.js'
import type { ApplicationFilter, Found, Repositories } from '../ports/repositories.js'
import type { CompanyAccess } from './access.js'
import { applicationCategory, type Application, type APPLICATION_CATEGORY_INPUTS } from '../domain/system.js'
import type { CommunicationEntry, DataNode } from '../domain/application-model.js'
import { communicationProblem, dataTreeProblem } from '../domain/application-model-rules.js'
import { fields as pickFields, page, pick } from '../domain/lists.js'
import { newUid } from '../security/secrets.js'
import type { ApplicationsRepository } from '../ports/applications.js'
import type { ApplicationRelease, BinaryView } from '../domain/application-package.js'

export interface ApplicationView extends Omit<Application, 'companyUid'>, Omit<ApplicationRelease, 'binaries'> {
  public: boolean
  binaries: BinaryView[]
}

/** docs/api.md#applications-and-templates: what `fields` may pick on the find; all of them when absent. */
export const APPLICATION_FIELDS = ['uid', 'name', 'revision', 'type', 'category', 'communication', 'data', 'public',
  'state', 'released', 'published', 'owner', 'applicationManager', 'binaries'] as const

/** What an application made without a package holds (docs/packages.md#release-and-publish). */
const NOT_RELEASED: ApplicationRelease = { state: 'PUBLISHED', released: null, published: null, owner: null, applicationManager: null, binaries: [] }

export interface ApplicationCreate {
  name: string
  revision: string
  type: string
  /** Optional, APPLICATION by default; SOFTWARE is taken as APPLICATION. */
  category?: typeof APPLICATION_CATEGORY_INPUTS[number] | undefined
  communication?: CommunicationEntry[] | undefined
  data?: DataNode[] | undefined
}

/** The application as the API shows it: its binaries without the artifact store's key. */
export const toApplicationView = ({ companyUid, ...a }: Application, release: ApplicationRelease = NOT_RELEASED): ApplicationView => ({
  ...a,
  public: companyUid === null,
  ...release,
  binaries: release.binaries.map(({ artifact, ...b }) => b)
})

/** The views of these applications, each with what it holds beyond its model. */
async function viewsOf (applications: Pick<ApplicationsRepository, 'releases'>, found: readonly Application[]): Promise<ApplicationView[]> {
  const releases = await applications.releases(found.map((a) => a.uid))
  return found.map((a) => toApplicationView(a, releases.get(a.uid)))
}

/**
 * The rules of the model beyond its JSON schema (core/domain/application-model-rules.ts), as the 400 of a bad body:
 * a value outside an enumeration answers unknown.enum.value as the schema's enums do, the rest request.invalid.
 * @throws FleetError request.invalid or unknown.enum.value naming the field
 */
export function checkModel (communication: readonly CommunicationEntry[], data: readonly DataNode[], at: { communication: string, data: string }): void {
  const comm = communicationProblem(communication, at.communication)
  if (comm !== undefined) throw new FleetError(comm.unknownValue ? 'unknown.enum.value' : 'request.invalid', [comm.field, comm.message])
  const tree = dataTreeProblem(data, at.data)
  if (tree !== undefined) throw new FleetError('request.invalid', [tree.field, tree.message])
}

/** The application catalogue: public applications and the company's own (docs/api.md#systems). */
export function createApplicationsService ({ repos, clock }: { repos: Pick<Repositories, 'applications'>, clock: Clock }) {
  async function find (access: CompanyAccess, q: ApplicationFilter & { offset?: number | undefined, size?: number | undefined, fields?: string | string[] | undefined }): Promise<Found<Partial<ApplicationView>> & { size: number, offset: number }> {
    const p = page(q.offset, q.size)
    const chosen = pickFields(q.fields, APPLICATION_FIELDS, APPLICATION_FIELDS)
    const category = q.category === 'SOFTWARE' ? 'APPLICATION' : q.category
    const found = await repos.applications.find(access.company.uid, { ...q, category }, p)
    const items = await viewsOf(repos.applications, found.items)
    return { items: items.map((a) => pick(a, chosen)), count: found.count, size: found.items.length, offset: p.offset }
  }

  /**
   * One application: a public one, or one of the context company's own (another company's is unknown to it,
   * docs/api.md#applications-and-templates). @throws application.unknown
   */
  async function get (access: CompanyAccess, uid: string): Promise<ApplicationView> {
    const [found] = await repos.applications.findByUids(access.company.uid, [uid])
    if (found === undefined) throw new FleetError('application.unknown', [uid])
    const [view] = await viewsOf(repos.applications, [found])
    return view as ApplicationView
  }

  /** Creates a company-owned application. @throws application.not.unique (same type and revision in the company) */
  async function create (access: CompanyAccess, body: ApplicationCreate): Promise<ApplicationView> {
    const companyUid = access.company.uid
    const communication = body.communication ?? []
    const data = body.data ?? []
    checkModel(communication, data, { communication: 'body/communication', data: 'body/data' })
    if (await repos.applications.findByKey(companyUid, body.type, body.revision) !== undefined) {
      throw new FleetError('application.not.unique', [body.type, body.revision])
    }
    const a: Application = {
      uid: newUid(),
      companyUid,
      name: body.name,
      revision: body.revision,
      type: body.type,
      category: applicationCategory(body.category ?? 'APPLICATION'),
      communication,
      data
    }
    const now = clock.now()
    await repos.applications.insert(a, now)
    return toApplicationView(a, { ...NOT_RELEASED, published: now })
  }

  /**
   * Only the context company's own applications change: a public one (seeded, shared by every company) or another
   * company's is unknown to the caller, as GET answers for the latter. @throws application.unknown
   */
  async function owned (access: CompanyAccess, uid: string): Promise<Application> {
    const [found] = await repos.applications.findByUids(access.company.uid, [uid])
    if (found?.companyUid !== access.company.uid) throw new FleetError('application.unknown', [uid])
    return found
  }

  /** PUT /applications/{uid}/data: replaces the data tree. @throws application.unknown, request.invalid */
  async function setData (access: CompanyAccess, uid: string, data: DataNode[]): Promise<void> {
    checkModel([], data, { communication: 'body', data: 'body' })
    await owned(access, uid)
    await repos.applications.setData(uid, data)
  }

  /** PUT /applications/{uid}/communication: replaces the protocols. @throws application.unknown, request.invalid */
  async function setCommunication (access: CompanyAccess, uid: string, communication: CommunicationEntry[]): Promise<void> {
    checkModel(communication, [], { communication: 'body', data: 'body' })
    await owned(access, uid)
    await repos.applications.setCommunication(uid, communication)
  }

  return { find, get, create, setData, setCommunication }
}

export type ApplicationsService = ReturnType<typeof createApplicationsService>
