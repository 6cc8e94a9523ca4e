// Install an application on the chosen systems (docs/packages.md#installs): one of the company's published
// applications, the rollout options (waves, pace, abort, maintenance window) and the SMS wake-up.
import { h } from '../../lib/dom.js'
import { checkbox, field, openFormDialog } from '../../lib/form-dialog.js'
import { named, run, type Chosen, type Ctx } from './bulk-run.js'
import { installable, installRequest, type InstallableApp } from './install.js'
import { rolloutFieldset } from './rollout-fieldset.js'

const FIELDS = ['uid', 'name', 'type', 'revision', 'state', 'applicationManager']

/** Fills the choice once the service answers; says so when no application can be installed yet. */
function offerApplications (ctx: Ctx, select: HTMLSelectElement, note: HTMLElement): void {
  ctx.api.get<{ items: InstallableApp[] }>('/api/v1/applications', { fields: FIELDS, size: 500 }).then((answer) => {
    const apps = installable(answer.items)
    select.replaceChildren(...apps.map((a) => h('option', { value: a.uid }, `${a.name} ${a.revision} (${a.type})`)))
    select.disabled = apps.length === 0
    note.textContent = apps.length === 0
      ? 'No published application to install: release a package and publish it on the Applications page.'
      : ''
  }, (err: unknown) => {
    note.textContent = `The applications could not be loaded: ${(err as Error).message}`
  })
}

export function installDialog (ctx: Ctx, c: Chosen): void {
  const select = h('select', { disabled: true }, h('option', { value: '' }, 'Loading the applications…'))
  const note = h('p', { class: 'hint', 'aria-live': 'polite' })
  const wake = checkbox('Ask the devices to connect now (SMS wake-up) when possible', false)
  const rollout = rolloutFieldset()
  offerApplications(ctx, select, note)
  openFormDialog({
    title: `Install an application on ${named(c)}`,
    body: [
      field('Application', select, 'A published application of the company; its update path decides how each device gets it'),
      note,
      wake.el,
      rollout.el
    ],
    submitLabel: 'Install',
    submit: async () => {
      if (select.value === '') throw new Error('Choose the application to install.')
      return await run(ctx, installRequest(c.target, select.value, wake.input.checked), rollout)
    }
  })
}
