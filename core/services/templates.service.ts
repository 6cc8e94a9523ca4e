import { FleetError } from '../errors.js'
import type { Found, Repositories, SettingTemplate } from '../ports/repositories.js'
import type { CompanyAccess } from './access.js'
import { fields as pickFields, page, pick } from '../domain/lists.js'
import { newUid } from '../security/secrets.js'

/** A setting as apply settings takes it (docs/operations.md#bulk-operations): a data id and a value whose JSON type is its
 * type. */
export interface Setting { key: string, value: boolean | number | string }
export interface TemplateView { uid: string, name: string, settings: Setting[] }
export interface TemplateCreate { name: string, settings: Setting[] }

export const TEMPLATE_FIELDS = ['uid', 'name', 'settings'] as const

const toView = (t: SettingTemplate): TemplateView => ({ uid: t.uid, name: t.name, settings: t.settings as Setting[] })

/**
 * Setting templates: named settings of a company, which apply settings uses through `templateId`.
 * Listed and created through /api/v1/templates; the first company starts with two (core/services/seed/catalogue.seed.ts).
 */
export function createTemplatesService ({ repos }: { repos: Pick<Repositories, 'catalogue'> }) {
  async function find (access: CompanyAccess, q: { name?: string | undefined, fields?: string | string[] | undefined, offset?: number | undefined, size?: number | undefined }): Promise<Found<Partial<TemplateView>> & { size: number, offset: number }> {
    const p = page(q.offset, q.size)
    const chosen = pickFields(q.fields, TEMPLATE_FIELDS, TEMPLATE_FIELDS)
    const found = await repos.catalogue.templates(access.company.uid, { name: q.name }, p)
    return { items: found.items.map((t) => pick(toView(t), chosen)), count: found.count, size: found.items.length, offset: p.offset }
  }

  /**
   * Creates a template of the context company.
   * @throws operation.invalid.multiple.entries.for.same.key when a key is given twice (as apply settings refuses it),
   *   template.not.unique when the company has a template of that name
   */
  async function create (access: CompanyAccess, body: TemplateCreate): Promise<TemplateView> {
    const keys = new Set<string>()
    for (const s of body.settings) {
      if (keys.has(s.key)) throw new FleetError('operation.invalid.multiple.entries.for.same.key', [s.key])
      keys.add(s.key)
    }
    const companyUid = access.company.uid
    if (await repos.catalogue.templateByName(companyUid, body.name) !== undefined) throw new FleetError('template.not.unique', [body.name])
    const t: SettingTemplate = { uid: newUid(), companyUid, name: body.name, settings: body.settings.map((s) => ({ key: s.key, value: s.value })) }
    await repos.catalogue.insertTemplate(t)
    return toView(t)
  }

  return { find, create }
}

export type TemplatesService = ReturnType<typeof createTemplatesService>
