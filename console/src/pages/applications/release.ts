// Release a package from the applications page (docs/packages.md#release-and-publish): the ZIP is sent as the raw
// body of POST /operations/applications/release, and the operation it answers is followed to its end: what it
// released, or why it failed in words (the task's error code as a sentence, with the service's message naming the
// entry and line to fix).
import { h, replace } from '../../lib/dom.js'
import { taskErrorText } from '../../lib/errors.js'
import type { PageContext } from '../../page.js'
import { followOperation, type Following } from './follow.js'

interface ReleasedModel { name: string, type: string, revision: string }

const releasedText = (models: readonly ReleasedModel[]): string =>
  models.length === 0 ? 'The package is released.' : `Released: ${models.map((m) => `${m.name} ${m.revision} (${m.type})`).join(', ')}.`

export interface ReleasePanel { element: HTMLElement, dispose: () => void }

/** The release form; `released` runs once applications were created (the list shows them). */
export function releasePanel (ctx: PageContext, released: () => void): ReleasePanel {
  const file = h('input', { type: 'file', accept: '.zip,application/zip', required: true })
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Release')
  const status = h('p', { class: 'release-status', role: 'status' })
  const failure = h('p', { class: 'release-failure', role: 'alert' })
  const form = h('form', { class: 'toolbar release-form' },
    h('label', {}, 'Package (ZIP)', file), submit)
  let following: Following | undefined

  const fail = (text: string, code?: string): void => {
    replace(status)
    replace(failure, `The release failed: ${text}`, code === undefined ? null : [' ', h('code', {}, code)])
  }
  const follow = (operation: string, name: string): void => {
    const link = h('a', { href: `#/operations/${encodeURIComponent(operation)}` }, 'its operation')
    replace(status, `Releasing ${name}… (follow `, link, ')')
    following = followOperation(ctx, operation)
    following.done.then((outcome) => {
      if (outcome.state === 'SUCCESS') {
        const models = (outcome.op.parameters.applications ?? []) as ReleasedModel[]
        replace(status, releasedText(models))
        released()
        return
      }
      const error = outcome.error ?? { code: 'operation.unknown', message: '' }
      fail(taskErrorText(error.code, error.message), error.code)
    }).catch((err: unknown) => { fail((err as Error).message) }).finally(() => { submit.disabled = false })
  }

  form.addEventListener('submit', (e) => {
    e.preventDefault()
    const chosen = file.files?.[0]
    if (chosen === undefined) { fail('choose the ZIP file to release.'); return }
    submit.disabled = true
    replace(failure)
    replace(status, `Sending ${chosen.name}…`)
    ctx.api.post<{ operation: string }>('/api/v1/operations/applications/release', chosen).then((answer) => {
      form.reset()
      follow(answer.operation, chosen.name)
    }, (err: unknown) => {
      submit.disabled = false
      fail((err as Error).message)
    })
  })

  const element = h('section', { class: 'card', 'aria-labelledby': 'release-title' },
    h('h2', { id: 'release-title' }, 'Release a package'),
    h('p', { class: 'hint' }, 'A ZIP with one application model (*.app) or more and the binaries they name. Each model becomes a released application; publish it to install it on systems.'),
    form, status, failure)
  return { element, dispose: () => { following?.stop() } }
}
