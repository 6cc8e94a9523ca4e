// The company page (`#/company`, administrators only): details (name, address) and their edit, the
// picture, the IP filters of API calls and of devices (docs/api.md#users-and-companies), and the administrators.
import { h, replace } from '../lib/dom.js'
import type { Page, PageContext } from '../page.js'
import { administratorsPanel } from './company/administrators.js'
import type { Company as CompanyRecord } from '../../../core/domain/company.js'
import { ipFiltersForm } from './company/ip-filters.js'
import { picturePanel } from './company/picture.js'
import './company/company.css'

/** The Company resource of docs/api.md#users-and-companies, as GET /company/{uid} answers it. */
type Company = Omit<CompanyRecord, 'systemLimit'>

function detailsForm (ctx: PageContext, company: Company, saved: (c: Company) => void): HTMLElement {
  const name = h('input', { type: 'text', value: company.name, required: true, autocomplete: 'organization' })
  const address = h('textarea', { rows: 2, maxlength: 255, autocomplete: 'street-address' }, company.address ?? '')
  const save = h('button', { type: 'submit', class: 'primary' }, 'Save details')
  const form = h('form', {},
    h('div', { class: 'form-row' }, h('label', {}, 'Name', name), h('label', {}, 'Address', address)),
    h('p', { class: 'hint' }, `Two-factor authentication: ${company.nFactor ? 'on' : 'off'}.`),
    save)
  form.addEventListener('submit', (e) => {
    e.preventDefault()
    save.disabled = true
    ctx.api.put<Company>(`/api/v1/company/${encodeURIComponent(company.uid)}`, { name: name.value.trim(), address: address.value.trim() === '' ? null : address.value.trim() })
      .then((c) => { ctx.notify('The company details are saved.'); saved(c) })
      .catch((err: unknown) => { ctx.notify(err as Error) })
      .finally(() => { save.disabled = false })
  })
  return h('section', { class: 'card', 'aria-labelledby': 'details-title' }, h('h2', { id: 'details-title' }, 'Details'), form)
}

function filtersForm (ctx: PageContext, company: Company, saved: (c: Company) => void): HTMLElement {
  const api = ipFiltersForm('API calls', 'API calls', company.ipFiltering, company.ipFilters)
  const devices = ipFiltersForm('Device communications', 'device communications', company.deviceIpFiltering, company.deviceIpFilters)
  const save = h('button', { type: 'submit', class: 'primary' }, 'Save IP filters')
  const form = h('form', {}, api.element, devices.element, save)
  form.addEventListener('submit', (e) => {
    e.preventDefault()
    const a = api.value()
    const d = devices.value()
    save.disabled = true
    ctx.api.put<Company>(`/api/v1/company/${encodeURIComponent(company.uid)}`, { ipFiltering: a.on, ipFilters: a.filters, deviceIpFiltering: d.on, deviceIpFilters: d.filters })
      .then((c) => { ctx.notify('The IP filters are saved.'); saved(c) })
      .catch((err: unknown) => { ctx.notify(err as Error) })
      .finally(() => { save.disabled = false })
  })
  return h('section', { class: 'card', 'aria-labelledby': 'filters-title' },
    h('h2', { id: 'filters-title' }, 'IP filters'),
    h('p', { class: 'hint' }, 'With a filter on, only the listed addresses are accepted. Make sure yours is among them before saving.'),
    form)
}

export async function companyPage (ctx: PageContext): Promise<Page> {
  const uid = ctx.session.company.uid
  const company = await ctx.api.get<Company>(`/api/v1/company/${encodeURIComponent(uid)}`)
  const heading = h('h1', {}, company.name)
  const picture = picturePanel(ctx, uid, company.picture !== null)
  const rename = (c: Company): void => { heading.textContent = c.name }
  replace(ctx.root, h('div', { class: 'company-page' },
    heading,
    h('div', { class: 'company-grid' }, detailsForm(ctx, company, rename), picture.element),
    filtersForm(ctx, company, rename),
    administratorsPanel(ctx, uid)))
  return { dispose: picture.dispose }
}
