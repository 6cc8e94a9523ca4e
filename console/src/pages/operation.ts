// One operation (`#/operations/<uid>`): what it is, its live progress (the stream's `operation` events),
// its safe rollout (waves, pause and resume, why it stopped), its tasks with the reason of each failure, Cancel while
// it runs, and the file of an export once it has finished.
import { h, replace } from '../lib/dom.js'
import { formatDate } from '../lib/format.js'
import { openFormDialog } from '../lib/form-dialog.js'
import type { Page, PageContext } from '../page.js'
import { cancellable, progress, stateText, typeText, type Operation, type OperationEvent } from './operations/view.js'
import { tasksPanel } from './operations/tasks.js'
import { pauseButton, rolloutCard } from './operations/rollout.js'
import { abortText } from './operations/rollout-text.js'
import './operations/operations.css'

/** Tasks are read again at most this often while the operation moves. */
const TASKS_EVERY_MS = 2000
const EXPORT = 'SYSTEM_EXPORT_DATA_HISTORY'

async function download (ctx: PageContext, op: Operation): Promise<void> {
  const blob = await ctx.api.blob(`/api/v1/operations/${encodeURIComponent(op.uid)}/file`)
  const url = URL.createObjectURL(blob)
  const a = h('a', { href: url, download: `export-${op.uid}.csv` })
  document.body.append(a)
  a.click()
  a.remove()
  setTimeout(() => { URL.revokeObjectURL(url) }, 10_000)
}

/** The application an install, uninstall, start, stop or publish names (its parameters: docs/packages.md#installs). */
function applicationItem (op: Operation, item: (term: string, value: string | Node) => HTMLElement[]): HTMLElement[] {
  const p = op.parameters
  if (typeof p.application !== 'string') return []
  const name = typeof p.applicationName === 'string' ? `${p.applicationName} ${String(p.applicationRevision ?? '')}`.trim() : p.application
  return item('Application', h('a', { href: `#/applications/${encodeURIComponent(p.application)}` }, name))
}

function details (op: Operation): HTMLElement {
  const item = (term: string, value: string | Node): HTMLElement[] => [h('dt', {}, term), h('dd', {}, value)]
  return h('dl', { class: 'details' },
    item('State', h('span', { class: 'op-state' }, stateText(op.state))),
    item('Created', formatDate(op.createdAt)),
    op.scheduledTime === null ? [] : item('Scheduled for', formatDate(op.scheduledTime)),
    op.startDate === null ? [] : item('Started', formatDate(op.startDate)),
    op.endDate === null ? [] : item('Ended', formatDate(op.endDate)),
    op.cancelDate === null ? [] : item('Cancelled', formatDate(op.cancelDate)),
    item('Timeout', formatDate(op.timeoutDate)),
    item('Systems', String(op.total)),
    applicationItem(op, item),
    op.user === null ? [] : item('By', op.user.email ?? op.user.uid))
}

export async function operationPage (ctx: PageContext): Promise<Page> {
  const uid = ctx.params.uid ?? ''
  let op = await ctx.api.get<Operation>(`/api/v1/operations/${encodeURIComponent(uid)}`)
  const bar = progress('Progress')
  const tasks = tasksPanel(ctx, uid)
  const actions = h('div', { class: 'toolbar' })
  const info = h('div', {})
  const aborted = h('div', {})
  const rollout = h('div', {})

  const render = (): void => {
    bar.update(op.state, op.counters, op.total)
    replace(info, details(op))
    replace(aborted, op.abortedBy === null ? null : h('p', { class: 'card op-aborted', role: 'note' }, abortText(op.abortedBy)))
    replace(rollout, rolloutCard(op))
    const cancel = h('button', { type: 'button', class: 'danger' }, 'Cancel operation')
    cancel.addEventListener('click', () => {
      openFormDialog({
        title: 'Cancel this operation?',
        body: [h('p', {}, 'Tasks that have not finished are cancelled; those already done stay done.')],
        submitLabel: 'Cancel operation',
        danger: true,
        submit: async () => {
          op = await ctx.api.post<Operation>(`/api/v1/operations/${encodeURIComponent(uid)}/cancel`)
          render()
          tasks.reload()
          ctx.notify('The operation is being cancelled.')
          return true
        }
      })
    })
    const file = h('button', { type: 'button', class: 'primary' }, 'Download the export')
    file.addEventListener('click', () => { download(ctx, op).catch((err: unknown) => { ctx.notify(err as Error) }) })
    const pause = pauseButton(ctx, op, (fresh) => { op = fresh; render() })
    replace(actions, pause, cancellable(op) ? cancel : null, op.operationType === EXPORT && op.state === 'FINISHED' ? file : null)
  }

  let timer: ReturnType<typeof setTimeout> | undefined
  const refresh = (): void => {
    ctx.api.get<Operation>(`/api/v1/operations/${encodeURIComponent(uid)}`).then((fresh) => { op = fresh; render() }).catch(() => { render() })
  }
  const unsubscribe = ctx.stream.subscribe<OperationEvent>({ operations: { uids: [uid] } }, (e) => {
    if (e.event !== 'operation' || e.uid !== uid) return
    const changed = e.state !== op.state
    op = { ...op, state: e.state, counters: e.counters }
    bar.update(op.state, op.counters, op.total)
    if (changed) {
      // Dates and the abort come with the operation itself; the tasks are read again at once, so that a FINISHED
      // operation never shows beside tasks still in progress.
      refresh()
      clearTimeout(timer)
      timer = undefined
      tasks.reload()
      return
    }
    // Counters move with every task: the task list follows at most every TASKS_EVERY_MS, and so does a rollout's
    // standing (its wave, the tasks sent, the next time), which the operation itself carries.
    timer ??= setTimeout(() => {
      timer = undefined
      tasks.reload()
      if (op.rollout != null) refresh()
    }, TASKS_EVERY_MS)
  })

  render()
  replace(ctx.root, h('div', { class: 'op-detail' },
    h('p', {}, h('a', { href: '#/operations' }, '← All operations')),
    h('div', { class: 'page-header' }, h('h1', {}, typeText(op.operationType)), actions),
    bar.element, aborted, h('div', { class: 'card' }, info), rollout, tasks.element))
  return { dispose: () => { unsubscribe(); clearTimeout(timer) } }
}
