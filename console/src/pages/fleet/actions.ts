// The bulk actions on the selected systems (issue 15): label, reboot, apply settings, retrieve data, delete. Each asks
// its parameters in a dialog, creates the operation through the API and goes to the operation's page to follow it.
import { h } from '../../lib/dom.js'
import { checkbox, field, openFormDialog } from '../../lib/form-dialog.js'
import type { PageContext } from '../../page.js'
import {
  deleteRequest, labelRequest, MAX_SELECTED, rebootRequest, retrieveRequest, SETTING_TYPES, settingsOf, settingsRequest,
  splitList, type BulkRequest, type SettingRow, type SettingType
} from './bulk.js'

type Ctx = Pick<PageContext, 'api' | 'navigate'>

export interface BulkBar { el: HTMLElement, setSelection: (uids: string[]) => void }

const plural = (n: number): string => `${n} system${n === 1 ? '' : 's'}`

async function run (ctx: Ctx, req: BulkRequest): Promise<boolean> {
  const answer = await ctx.api.post<{ operation: string }>(req.path, req.body)
  ctx.navigate(`/operations/${encodeURIComponent(answer.operation)}`)
  return true
}

function labelDialog (ctx: Ctx, uids: string[]): void {
  const add = h('input', { type: 'text', autocomplete: 'off' })
  const remove = h('input', { type: 'text', autocomplete: 'off' })
  openFormDialog({
    title: `Label ${plural(uids.length)}`,
    body: [field('Labels to add', add, 'Separated by commas or spaces'), field('Labels to remove', remove)],
    submitLabel: 'Label',
    submit: async () => {
      const a = splitList(add.value)
      const r = splitList(remove.value)
      if (a.length === 0 && r.length === 0) throw new Error('Give a label to add or to remove.')
      return await run(ctx, labelRequest(uids, a, r))
    }
  })
}

function rebootDialog (ctx: Ctx, uids: string[]): void {
  const wake = checkbox('Ask the devices to connect now (SMS wake-up) when possible', false)
  openFormDialog({
    title: `Reboot ${plural(uids.length)}`,
    body: [h('p', {}, 'Each device reboots at its next connection.'), wake.el],
    submitLabel: 'Reboot',
    submit: async () => await run(ctx, rebootRequest(uids, wake.input.checked))
  })
}

function retrieveDialog (ctx: Ctx, uids: string[]): void {
  const ids = h('input', { type: 'text', autocomplete: 'off', placeholder: 'e.g. _RSSI, machine.temperature' })
  const wake = checkbox('Ask the devices to connect now (SMS wake-up) when possible', false)
  openFormDialog({
    title: `Retrieve data from ${plural(uids.length)}`,
    body: [field('Data ids', ids, 'Separated by commas or spaces'), wake.el],
    submitLabel: 'Retrieve',
    submit: async () => {
      const dataIds = splitList(ids.value)
      if (dataIds.length === 0) throw new Error('Give at least one data id.')
      return await run(ctx, retrieveRequest(uids, dataIds, wake.input.checked))
    }
  })
}

function settingRow (n: number): { el: HTMLElement, read: () => SettingRow } {
  const key = h('input', { type: 'text', autocomplete: 'off', 'aria-label': `Setting ${n} key`, placeholder: 'key, e.g. config.period' })
  const value = h('input', { type: 'text', autocomplete: 'off', 'aria-label': `Setting ${n} value`, placeholder: 'value' })
  const type = h('select', { 'aria-label': `Setting ${n} type` }, ...SETTING_TYPES.map((t) => h('option', { value: t }, t === 'auto' ? 'auto type' : t)))
  return { el: h('div', { class: 'setting-row' }, key, value, type), read: () => ({ key: key.value, value: value.value, type: type.value as SettingType }) }
}

function settingsDialog (ctx: Ctx, uids: string[]): void {
  const rows = [settingRow(1)]
  const list = h('div', { class: 'setting-rows' }, rows[0]?.el)
  const addRow = h('button', { type: 'button' }, 'Add a setting')
  addRow.addEventListener('click', () => {
    const row = settingRow(rows.length + 1)
    rows.push(row)
    list.append(row.el)
    row.el.querySelector('input')?.focus()
  })
  const reboot = checkbox('Reboot after the settings are applied', true)
  const wake = checkbox('Ask the devices to connect now (SMS wake-up) when possible', false)
  openFormDialog({
    title: `Apply settings to ${plural(uids.length)}`,
    body: [h('p', { class: 'hint' }, 'Auto type: true/false is a boolean, a number a number, anything else text.'), list, addRow, reboot.el, wake.el],
    submitLabel: 'Apply settings',
    submit: async () => {
      const { settings, error } = settingsOf(rows.map((r) => r.read()))
      if (error !== null) throw new Error(error)
      if (settings.length === 0) throw new Error('Give at least one setting key.')
      return await run(ctx, settingsRequest(uids, settings, reboot.input.checked, wake.input.checked))
    }
  })
}

function deleteDialog (ctx: Ctx, uids: string[]): void {
  const gateways = checkbox('Also delete their gateways', false)
  const subscriptions = checkbox('Also delete their subscriptions', false)
  openFormDialog({
    title: `Delete ${plural(uids.length)}?`,
    body: [h('p', {}, `The ${plural(uids.length)} will be deleted for good. The operation stays in the history.`), gateways.el, subscriptions.el],
    submitLabel: `Delete ${plural(uids.length)}`,
    danger: true,
    submit: async () => await run(ctx, deleteRequest(uids, gateways.input.checked, subscriptions.input.checked))
  })
}

const ACTIONS: Array<[string, (ctx: Ctx, uids: string[]) => void]> = [
  ['Label…', labelDialog],
  ['Reboot…', rebootDialog],
  ['Apply settings…', settingsDialog],
  ['Retrieve data…', retrieveDialog],
  ['Delete…', deleteDialog]
]

/** The bar above the table: how many are selected and the actions, disabled while none is. */
export function bulkBar (ctx: Ctx, selection: () => string[]): BulkBar {
  const count = h('span', { class: 'bulk-count', 'aria-live': 'polite' }, 'No system selected')
  const buttons = ACTIONS.map(([label, open]) => h('button', {
    type: 'button',
    disabled: true,
    class: label.startsWith('Delete') ? 'danger-outline' : null,
    onclick: () => {
      const uids = selection().slice(0, MAX_SELECTED)
      if (uids.length > 0) open(ctx, uids)
    }
  }, label))
  const el = h('div', { class: 'bulk-bar', role: 'toolbar', 'aria-label': 'Actions on the selected systems' }, count, h('div', { class: 'bulk-buttons' }, buttons))
  return {
    el,
    setSelection (uids) {
      count.textContent = uids.length === 0 ? 'No system selected' : `${plural(uids.length)} selected`
      for (const b of buttons) b.disabled = uids.length === 0
    }
  }
}
