import { FleetError } from '../errors.js'
import type { Clock } from '../ports.js'
import type { ApplicationFilter, Found, Repositories } from '../repositories.js'
import type { CompanyAccess } from './access.js'
import type { Application, ApplicationAction, ApplicationData, Protocol } from '../domain/system.js'
import { page } from '../domain/lists.js'
import { newUid } from '../security/secrets.js'

export interface ApplicationView extends Omit<Application, 'companyUid'> { public: boolean }

export interface ApplicationCreate {
  name: string
  revision: string
  type: string
  /** conventions.md §Applications: optional, SOFTWARE by default. */
  category?: Application['category'] | undefined
  protocols?: Protocol[] | undefined
  data?: ApplicationData[] | undefined
  actions?: ApplicationAction[] | undefined
}

export const toApplicationView = ({ companyUid, ...a }: Application): ApplicationView => ({ ...a, public: companyUid === null })

/** The application catalogue: public applications and the company's own (issue: Systems, Model). */
export function createApplicationsService ({ repos, clock }: { repos: Pick<Repositories, 'applications'>, clock: Clock }) {
  async function find (access: CompanyAccess, q: ApplicationFilter & { offset?: number | undefined, size?: number | undefined }): Promise<Found<ApplicationView> & { size: number, offset: number }> {
    const p = page(q.offset, q.size)
    const found = await repos.applications.find(access.company.uid, q, p)
    return { items: found.items.map(toApplicationView), count: found.count, size: found.items.length, offset: p.offset }
  }

  /**
   * One application: a public one, or one of the context company's own (another company's is unknown to it,
   * conventions.md §Applications). @throws application.unknown
   */
  async function get (access: CompanyAccess, uid: string): Promise<ApplicationView> {
    const [found] = await repos.applications.findByUids(access.company.uid, [uid])
    if (found === undefined) throw new FleetError('application.unknown', [uid])
    return toApplicationView(found)
  }

  /** Creates a company-owned application. @throws application.not.unique (same type and revision in the company) */
  async function create (access: CompanyAccess, body: ApplicationCreate): Promise<ApplicationView> {
    const companyUid = access.company.uid
    if (await repos.applications.findByKey(companyUid, body.type, body.revision) !== undefined) {
      throw new FleetError('application.not.unique', [body.type, body.revision])
    }
    const ids = (body.data ?? []).map((d) => d.id)
    if (new Set(ids).size !== ids.length) throw new FleetError('request.invalid', ['data', 'duplicate data id'])
    const a: Application = {
      uid: newUid(),
      companyUid,
      name: body.name,
      revision: body.revision,
      type: body.type,
      category: body.category ?? 'SOFTWARE',
      protocols: [...new Set(body.protocols ?? [])],
      data: body.data ?? [],
      actions: body.actions ?? []
    }
    await repos.applications.insert(a, clock.now())
    return toApplicationView(a)
  }

  return { find, get, create }
}

export type ApplicationsService = ReturnType<typeof createApplicationsService>
