// One set of IP filters of the company (docs/api.md#users-and-companies: ipFiltering/ipFilters for API calls,
// deviceIpFiltering/deviceIpFilters for devices): on or off, one range (both ends) and single addresses.
import { h } from '../../lib/dom.js'
import type { IpFilters } from '../../../../core/domain/company.js'

export interface IpFiltersForm { element: HTMLElement, value: () => { on: boolean, filters: IpFilters } }

/** `what` completes "Only accept … from these addresses". */
export function ipFiltersForm (title: string, what: string, on: boolean, filters: IpFilters): IpFiltersForm {
  const enabled = h('input', { type: 'checkbox', checked: on })
  const start = h('input', { type: 'text', inputmode: 'decimal', value: filters.startIPAddress ?? '', autocomplete: 'off' })
  const end = h('input', { type: 'text', inputmode: 'decimal', value: filters.endIPAddress ?? '', autocomplete: 'off' })
  const list = h('textarea', { rows: 3, autocomplete: 'off' }, filters.ipAddresses.join('\n'))
  const element = h('fieldset', {},
    h('legend', {}, title),
    h('label', { class: 'inline' }, enabled, `Only accept ${what} from these addresses`),
    h('div', { class: 'form-row' },
      h('label', {}, 'Range start', start),
      h('label', {}, 'Range end', end),
      h('label', {}, 'Single addresses (one a line)', list)))
  const text = (input: HTMLInputElement): string | null => input.value.trim() === '' ? null : input.value.trim()
  return {
    element,
    value: () => ({
      on: enabled.checked,
      filters: { startIPAddress: text(start), endIPAddress: text(end), ipAddresses: list.value.split(/[\s,]+/).filter((a) => a !== '') }
    })
  }
}
