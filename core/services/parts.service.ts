// GET /api/v1/gateways and GET /api/v1/subscriptions: the parts systems are made of (docs/api.md#systems), found by
// their identifiers so that a client can look a gateway or SIM up before it creates the system around it. A company
// sees its own parts only (each row carries its company, and moves with its system on a transfer); paging, `fields` and
// sort follow docs/api.md#using-the-api as GET /api/v1/systems does.
import type { Found, Page, Repositories, Sort } from '../ports/repositories.js'
import type { CompanyAccess } from './access.js'
import { fields as pickFields, list, page, pick, sorts, type SortQuery } from '../domain/lists.js'
import { gatewayView, subscriptionView } from '../domain/system.js'
import {
  GATEWAY_FIELDS, GATEWAY_FILTERS, GATEWAY_SORTS, SUBSCRIPTION_FIELDS, SUBSCRIPTION_FILTERS, SUBSCRIPTION_SORTS
} from '../domain/parts.js'

type Multi = string | string[] | undefined
type View = Record<string, unknown>
export type PartsQuery = SortQuery & { fields?: Multi, offset?: number | undefined, size?: number | undefined } & Partial<Record<string, unknown>>
export type ListAnswer = Found<View> & { size: number, offset: number }

interface Kind<T, K extends string, S extends string> {
  filters: readonly K[]
  fields: readonly string[]
  sorts: readonly S[]
  find: (companyUid: string, filter: Partial<Record<K, string[]>>, sort: Array<Sort<S>>, page: Page) => Promise<Found<T>>
  view: (t: T) => View
}

/** One list: exact-match filters (any of several values), sort, page, then only the chosen fields of each item. */
async function findPage<T, K extends string, S extends string> (kind: Kind<T, K, S>, companyUid: string, q: PartsQuery): Promise<ListAnswer> {
  const filter: Partial<Record<K, string[]>> = {}
  for (const key of kind.filters) {
    const values = list(q[key] as Multi)
    if (values !== undefined) filter[key] = values
  }
  const chosen = pickFields(q.fields, kind.fields, kind.fields)
  const p = page(q.offset, q.size)
  const found = await kind.find(companyUid, filter, sorts(q, kind.sorts), p)
  const items = found.items.map((t) => pick(kind.view(t), chosen))
  return { items, count: found.count, size: items.length, offset: p.offset }
}

export function createPartsService ({ repos }: { repos: Pick<Repositories, 'gateways' | 'subscriptions'> }) {
  return {
    /** Gateways of the context company by uid, imei, serialNumber, macAddress. @throws sort.invalid.field */
    async gateways (access: CompanyAccess, q: PartsQuery): Promise<ListAnswer> {
      return await findPage({
        filters: GATEWAY_FILTERS,
        fields: GATEWAY_FIELDS,
        sorts: GATEWAY_SORTS,
        find: async (...args) => await repos.gateways.find(...args),
        view: (g) => ({ ...gatewayView(g) })
      }, access.company.uid, q)
    },
    /** Subscriptions of the context company by uid, identifier, mobileNumber, networkIdentifier, operator. @throws sort.invalid.field */
    async subscriptions (access: CompanyAccess, q: PartsQuery): Promise<ListAnswer> {
      return await findPage({
        filters: SUBSCRIPTION_FILTERS,
        fields: SUBSCRIPTION_FIELDS,
        sorts: SUBSCRIPTION_SORTS,
        find: async (...args) => await repos.subscriptions.find(...args),
        view: (s) => ({ ...subscriptionView(s) })
      }, access.company.uid, q)
    }
  }
}

export type PartsService = ReturnType<typeof createPartsService>
