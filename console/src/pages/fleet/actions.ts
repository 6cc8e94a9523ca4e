// The bulk actions on the selected systems: label, reboot, apply settings, retrieve data, install an application,
// delete. Each asks its parameters in a dialog (the device operations their rollout options too), creates the
// operation through the API and goes to the operation's page to follow it.
import { h } from '../../lib/dom.js'
import { checkbox, field, openFormDialog } from '../../lib/form-dialog.js'
import {
  deleteRequest, labelRequest, rebootRequest, retrieveRequest, SETTING_TYPES, settingsOf, settingsRequest, splitList,
  templateRequest, type SettingRow, type SettingType
} from './bulk.js'
import { named, plural, run, type Chosen, type Ctx } from './bulk-run.js'
import { applicationsOf, declaredSettings, settingTypeOf, type AppData, type DeclaredSetting } from './declared-settings.js'
import { installDialog } from './install-dialog.js'
import { rolloutFieldset } from './rollout-fieldset.js'

export type { Chosen } from './bulk-run.js'

export interface SelectionState {
  /** How many systems are chosen: the boxes ticked, or all those matching. */
  count: number
  /** Every system matching the filters is chosen (criteria), not the boxes of the page. */
  all: boolean
  /** When the whole page is ticked and more systems match: how many, to offer them all. */
  offerAll: number | null
}

export interface BulkBar { el: HTMLElement, setState: (state: SelectionState) => void }

function labelDialog (ctx: Ctx, c: Chosen): void {
  const add = h('input', { type: 'text', autocomplete: 'off' })
  const remove = h('input', { type: 'text', autocomplete: 'off' })
  openFormDialog({
    title: `Label ${named(c)}`,
    body: [field('Labels to add', add, 'Separated by commas or spaces'), field('Labels to remove', remove)],
    submitLabel: 'Label',
    submit: async () => {
      const a = splitList(add.value)
      const r = splitList(remove.value)
      if (a.length === 0 && r.length === 0) throw new Error('Give a label to add or to remove.')
      return await run(ctx, labelRequest(c.target, a, r))
    }
  })
}

function rebootDialog (ctx: Ctx, c: Chosen): void {
  const wake = checkbox('Ask the devices to connect now (SMS wake-up) when possible', false)
  const rollout = rolloutFieldset()
  openFormDialog({
    title: `Reboot ${named(c)}`,
    body: [h('p', {}, 'Each device reboots at its next connection.'), wake.el, rollout.el],
    submitLabel: 'Reboot',
    submit: async () => await run(ctx, rebootRequest(c.target, wake.input.checked), rollout)
  })
}

function retrieveDialog (ctx: Ctx, c: Chosen): void {
  const ids = h('input', { type: 'text', autocomplete: 'off', placeholder: 'e.g. _RSSI, machine.temperature' })
  const wake = checkbox('Ask the devices to connect now (SMS wake-up) when possible', false)
  const rollout = rolloutFieldset()
  openFormDialog({
    title: `Retrieve data from ${named(c)}`,
    body: [field('Data ids', ids, 'Separated by commas or spaces'), wake.el, rollout.el],
    submitLabel: 'Retrieve',
    submit: async () => {
      const dataIds = splitList(ids.value)
      if (dataIds.length === 0) throw new Error('Give at least one data id.')
      return await run(ctx, retrieveRequest(c.target, dataIds, wake.input.checked), rollout)
    }
  })
}

function settingRow (n: number, keys: HTMLDataListElement, declared: () => readonly DeclaredSetting[]): { el: HTMLElement, read: () => SettingRow } {
  const key = h('input', { type: 'text', autocomplete: 'off', list: keys.id, 'aria-label': `Setting ${n} key`, placeholder: 'key, e.g. config.reportPeriodS' })
  const value = h('input', { type: 'text', autocomplete: 'off', 'aria-label': `Setting ${n} value`, placeholder: 'value' })
  const type = h('select', { 'aria-label': `Setting ${n} type` }, ...SETTING_TYPES.map((t) => h('option', { value: t }, t === 'auto' ? 'auto type' : t)))
  // A declared key brings its type: a number typed for a string setting is then sent as text, as declared.
  key.addEventListener('change', () => {
    const d = declared().find((x) => x.key === key.value.trim())
    if (d !== undefined) type.value = settingTypeOf(d.type)
  })
  return { el: h('div', { class: 'setting-row' }, key, value, type), read: () => ({ key: key.value, value: value.value, type: type.value as SettingType }) }
}

interface Template { uid: string, name: string }

/** The chosen systems' application uids when the target lists them (null: every application may be concerned). */
async function chosenApplications (ctx: Ctx, c: Chosen): Promise<Set<string> | null> {
  if (!('uids' in c.target)) return null
  const found = await ctx.api.get<{ items: Array<{ applications?: Array<{ uid: string }> | null }> }>('/api/v1/systems', { uid: c.target.uids, fields: 'applications', size: c.target.uids.length })
  return new Set(found.items.flatMap((s) => (s.applications ?? []).map((a) => a.uid)))
}

/** Fills the template list and the declared keys once the service answers; the dialog is usable meanwhile. */
function offerChoices (ctx: Ctx, c: Chosen, template: HTMLSelectElement, keys: HTMLDataListElement, note: HTMLElement, set: (d: DeclaredSetting[]) => void): void {
  ctx.api.get<{ items: Template[] }>('/api/v1/templates', { fields: 'uid,name', size: 500 }).then((answer) => {
    template.append(...answer.items.map((t) => h('option', { value: t.uid }, t.name)))
  }, () => {})
  Promise.all([ctx.api.get<{ items: AppData[] }>('/api/v1/applications', { fields: 'uid,name,data', size: 500 }), chosenApplications(ctx, c)]).then(([apps, chosen]) => {
    const declared = declaredSettings(applicationsOf(apps.items, chosen))
    set(declared)
    keys.replaceChildren(...declared.map((d) => h('option', { value: d.key }, `${d.type ?? 'any type'}, ${d.application}`)))
    note.textContent = declared.length === 0
      ? 'The applications of these systems declare no setting: attach one that does (e.g. the generic firmware of their protocol).'
      : `Declared settings: ${declared.map((d) => d.key).join(', ')}.`
  }, () => { note.textContent = '' })
}

function settingsDialog (ctx: Ctx, c: Chosen): void {
  let declared: DeclaredSetting[] = []
  const keys = h('datalist', { id: `declared-settings-${Date.now()}` })
  const rows = [settingRow(1, keys, () => declared)]
  const list = h('div', { class: 'setting-rows' }, rows[0]?.el)
  const addRow = h('button', { type: 'button' }, 'Add a setting')
  addRow.addEventListener('click', () => {
    const row = settingRow(rows.length + 1, keys, () => declared)
    rows.push(row)
    list.append(row.el)
    row.el.querySelector('input')?.focus()
  })
  const template = h('select', {}, h('option', { value: '' }, 'None: the settings below'))
  const own = h('div', { class: 'setting-own' }, h('p', { class: 'hint' }, 'Auto type: true/false is a boolean, a number a number, anything else text.'), list, addRow)
  template.addEventListener('change', () => { own.hidden = template.value !== '' })
  const note = h('p', { class: 'hint', 'aria-live': 'polite' }, 'Loading the declared settings…')
  // A reboot is a change of its own, and a device off for a while: asked for, never implied.
  const reboot = checkbox('Reboot after the settings are applied', false)
  const wake = checkbox('Ask the devices to connect now (SMS wake-up) when possible', false)
  const rollout = rolloutFieldset()
  offerChoices(ctx, c, template, keys, note, (d) => { declared = d })
  openFormDialog({
    title: `Apply settings to ${named(c)}`,
    body: [field('Template', template), own, note, keys, reboot.el, wake.el, rollout.el],
    submitLabel: 'Apply settings',
    submit: async () => {
      if (template.value !== '') return await run(ctx, templateRequest(c.target, template.value, reboot.input.checked, wake.input.checked), rollout)
      const { settings, error } = settingsOf(rows.map((r) => r.read()))
      if (error !== null) throw new Error(error)
      if (settings.length === 0) throw new Error('Give at least one setting key, or choose a template.')
      return await run(ctx, settingsRequest(c.target, settings, reboot.input.checked, wake.input.checked), rollout)
    }
  })
}

function deleteDialog (ctx: Ctx, c: Chosen): void {
  const gateways = checkbox('Also delete their gateways', false)
  const subscriptions = checkbox('Also delete their subscriptions', false)
  // Deleting by criteria can reach far more than the page shows: the number is typed, not just clicked.
  const confirm = 'criteria' in c.target ? h('input', { type: 'text', inputmode: 'numeric', autocomplete: 'off' }) : null
  openFormDialog({
    title: `Delete ${named(c)}?`,
    body: [h('p', {}, `${named(c).replace(/^./, (x) => x.toUpperCase())} will be deleted for good. The operation stays in the history.`),
      gateways.el, subscriptions.el, confirm === null ? '' : field(`Type ${c.count} to confirm`, confirm)],
    submitLabel: `Delete ${plural(c.count)}`,
    danger: true,
    submit: async () => {
      if (confirm !== null && confirm.value.trim() !== String(c.count)) throw new Error(`Type ${c.count} to delete every system matching the filters.`)
      return await run(ctx, deleteRequest(c.target, gateways.input.checked, subscriptions.input.checked))
    }
  })
}

const ACTIONS: Array<[string, (ctx: Ctx, c: Chosen) => void]> = [
  ['Label…', labelDialog],
  ['Reboot…', rebootDialog],
  ['Apply settings…', settingsDialog],
  ['Retrieve data…', retrieveDialog],
  ['Install application…', installDialog],
  ['Delete…', deleteDialog]
]

/**
 * The bar above the table: what is selected, the actions (disabled while nothing is), and when the whole page is
 * ticked and more systems match, the offer to act on all of them.
 */
export function bulkBar (ctx: Ctx, chosen: () => Chosen | null, selectAll: (all: boolean) => void): BulkBar {
  const count = h('span', { class: 'bulk-count', 'aria-live': 'polite' }, 'No system selected')
  const all = h('button', { type: 'button', class: 'link-button', hidden: true })
  let allChosen = false
  all.addEventListener('click', () => { selectAll(!allChosen) })
  const buttons = ACTIONS.map(([label, open]) => h('button', {
    type: 'button',
    disabled: true,
    class: label.startsWith('Delete') ? 'danger-outline' : null,
    onclick: () => {
      const c = chosen()
      if (c !== null && c.count > 0) open(ctx, c)
    }
  }, label))
  const el = h('div', { class: 'bulk-bar', role: 'toolbar', 'aria-label': 'Actions on the selected systems' }, count, all, h('div', { class: 'bulk-buttons' }, buttons))
  return {
    el,
    setState (state) {
      allChosen = state.all
      count.textContent = state.count === 0 ? 'No system selected' : state.all ? `All ${plural(state.count)} matching the filters selected` : `${plural(state.count)} selected`
      all.hidden = !state.all && state.offerAll === null
      all.textContent = state.all ? 'Select this page only' : `Select all ${plural(state.offerAll ?? 0)} matching`
      for (const b of buttons) b.disabled = state.count === 0
    }
  }
}

/** The same actions on one system, from its page (deleting stays on the fleet page, behind its selection). */
export function systemActions (ctx: Ctx, uid: string): HTMLElement {
  const one: Chosen = { target: { uids: [uid] }, count: 1 }
  return h('div', { class: 'bulk-buttons', role: 'toolbar', 'aria-label': 'Actions on this system' },
    ACTIONS.filter(([label]) => !label.startsWith('Delete')).map(([label, open]) => h('button', { type: 'button', onclick: () => { open(ctx, one) } }, label)))
}
