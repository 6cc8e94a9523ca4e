// What the operations pages show of an operation (docs/operations.md#bulk-operations): its kind and state in words, and
// its progress bar with the task counters, kept up to date by the stream's `operation` events.
import { h } from '../../lib/dom.js'

export type { AbortedBy, Counter, Operation, Rollout } from './types.js'
import type { Counter, Operation } from './types.js'

export interface OperationEvent { event: 'operation', uid: string, type: string, state: string, counters: Counter[] }

export const OPERATION_TYPE_TEXT: Record<string, string> = {
  SYSTEM_LABEL: 'Label',
  SYSTEM_TRANSFER: 'Transfer',
  SYSTEM_SWAP_SIM: 'Swap SIM',
  SYSTEM_REGISTER: 'Register',
  SYSTEM_IMPORT: 'Import',
  SYSTEM_EDIT: 'Bulk edit',
  SYSTEM_DELETE: 'Delete',
  SYSTEM_RETRIEVE_DATA: 'Retrieve data',
  SYSTEM_APPLY_SETTINGS: 'Apply settings',
  SYSTEM_REBOOT: 'Reboot',
  SYSTEM_RESET: 'Reset to factory settings',
  SYSTEM_WAKEUP: 'Wake up',
  SYSTEM_EXPORT_DATA_HISTORY: 'Export data history',
  SYSTEM_IMPORT_USAGES: 'Import usage',
  SYSTEM_INSTALL_APPLICATION: 'Install application',
  SYSTEM_UNINSTALL_APPLICATION: 'Uninstall application',
  SYSTEM_START_APPLICATION: 'Start application',
  SYSTEM_STOP_APPLICATION: 'Stop application',
  APPLICATION_RELEASE: 'Release application',
  APPLICATION_PUBLISH: 'Publish application'
}

export const OPERATION_STATE_TEXT: Record<string, string> = { SCHEDULED: 'Scheduled', IN_PROGRESS: 'In progress', FINISHED: 'Finished' }

export const TASK_STATE_TEXT: Record<string, string> = {
  PENDING: 'Pending',
  IN_PROGRESS: 'In progress',
  SUCCESS: 'Succeeded',
  FAILURE: 'Failed',
  BEING_CANCELLED: 'Being cancelled',
  CANCELLED: 'Cancelled'
}

export const typeText = (t: string): string => OPERATION_TYPE_TEXT[t] ?? t
export const stateText = (s: string): string => OPERATION_STATE_TEXT[s] ?? s

/** Whether the operation's tasks may still be cancelled. */
export const cancellable = (op: Pick<Operation, 'state'>): boolean => op.state !== 'FINISHED'

const countOf = (counters: readonly Counter[], state: string): number => counters.find((c) => c.state === state)?.count ?? 0

/** Tasks that have ended (succeeded, failed or cancelled). */
export function ended (counters: readonly Counter[]): number {
  return countOf(counters, 'SUCCESS') + countOf(counters, 'FAILURE') + countOf(counters, 'CANCELLED')
}

export interface Progress { element: HTMLElement, update: (state: string, counters: readonly Counter[], total: number) => void }

/** A progress bar (tasks ended of all) with the counters beside it in words; `label` names it for screen readers. */
export function progress (label: string): Progress {
  const bar = h('progress', { max: 1, value: 0, 'aria-label': label })
  const text = h('span', { class: 'op-progress-text' })
  const counts = h('span', { class: 'op-counters' })
  const element = h('div', { class: 'op-progress' }, h('div', { class: 'op-progress-line' }, bar, text), counts)
  return {
    element,
    update (state, counters, total) {
      const done = ended(counters)
      bar.max = Math.max(total, 1)
      bar.value = state === 'FINISHED' ? bar.max : done
      bar.setAttribute('aria-valuetext', `${done} of ${total} tasks ended`)
      text.textContent = `${done} / ${total}`
      counts.replaceChildren(...counters.filter((c) => c.count > 0).map((c) =>
        h('span', { class: `op-count op-count-${c.state.toLowerCase()}` }, `${TASK_STATE_TEXT[c.state] ?? c.state} ${c.count}`)))
    }
  }
}
