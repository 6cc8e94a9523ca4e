// The tasks of one operation (docs/operations.md#bulk-operations: GET /operations/{uid}/tasks): one row per system with
// its state and, for a failed task, why: a sentence with the service's own message, or the device's words for its
// ERROR (lib/errors.ts), with the code beside it.
import { h, replace } from '../../lib/dom.js'
import { taskErrorText } from '../../lib/errors.js'
import { formatDate } from '../../lib/format.js'
import type { PageContext } from '../../page.js'
import { TASK_STATE_TEXT } from './view.js'

interface Task {
  uid: string
  system: { uid: string, name: string | null } | null
  state: string
  startDate: number | null
  endDate: number | null
  error: { code: string, message: string } | null
  line?: number
}
interface ListAnswer<T> { items: T[], count: number }

const SIZE = 50

export interface TasksPanel { element: HTMLElement, reload: () => void }

export function tasksPanel (ctx: PageContext, operationUid: string): TasksPanel {
  let offset = 0
  const state = h('select', { 'aria-label': 'Task state' },
    h('option', { value: '' }, 'Every state'),
    ...Object.entries(TASK_STATE_TEXT).map(([v, t]) => h('option', { value: v }, t)))
  const body = h('div', {}, h('p', { class: 'loading', role: 'status' }, 'Loading tasks…'))
  let loading = false
  // A reload asked for while one is on its way runs after it (its answer may predate what was asked for).
  let again = false

  const row = (t: Task): HTMLElement => h('tr', {},
    h('td', {}, t.system === null ? (t.line === undefined ? '—' : `CSV line ${t.line}`) : h('a', { href: `#/systems/${encodeURIComponent(t.system.uid)}` }, t.system.name ?? t.system.uid)),
    h('td', {}, TASK_STATE_TEXT[t.state] ?? t.state),
    h('td', {}, t.startDate === null ? '' : formatDate(t.startDate)),
    h('td', {}, t.endDate === null ? '' : formatDate(t.endDate)),
    h('td', { class: 'task-error' }, t.error === null ? '' : [taskErrorText(t.error.code, t.error.message), ' ', h('code', {}, t.error.code)]))

  const reload = (): void => {
    if (loading) { again = true; return }
    loading = true
    ctx.api.get<ListAnswer<Task>>(`/api/v1/operations/${encodeURIComponent(operationUid)}/tasks`, { states: state.value || undefined, offset, size: SIZE })
      .then((answer) => {
        if (answer.items.length === 0) {
          replace(body, h('p', { class: 'empty' }, state.value === '' ? 'This operation has no task yet.' : 'No task is in this state.'))
          return
        }
        const last = Math.min(offset + answer.items.length, answer.count)
        replace(body,
          h('div', { class: 'table-wrap' }, h('table', { class: 'data', 'aria-label': 'Tasks' },
            h('thead', {}, h('tr', {}, ...['System', 'State', 'Started', 'Ended', 'Error'].map((t) => h('th', { scope: 'col' }, t)))),
            h('tbody', {}, ...answer.items.map(row)))),
          h('nav', { class: 'pager', 'aria-label': 'Pages of tasks' },
            h('span', {}, `${offset + 1}–${last} of ${answer.count}`),
            h('button', { type: 'button', disabled: offset === 0, onclick: () => { offset = Math.max(0, offset - SIZE); reload() } }, 'Previous page'),
            h('button', { type: 'button', disabled: last >= answer.count, onclick: () => { offset += SIZE; reload() } }, 'Next page')))
      })
      .catch((err: unknown) => { ctx.notify(err as Error) })
      .finally(() => {
        loading = false
        if (again) { again = false; reload() }
      })
  }
  state.addEventListener('change', () => { offset = 0; reload() })
  reload()
  return { element: h('section', { 'aria-labelledby': 'tasks-title' }, h('div', { class: 'page-header' }, h('h2', { id: 'tasks-title' }, 'Tasks'), state), body), reload }
}
