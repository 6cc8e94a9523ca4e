// The rollout options of a device operation's dialog, folded under "Rollout options" (most operations need none):
// pace, waves, wave success, abort on failures and the maintenance window (docs/operations.md#safe-rollouts).
import { h } from '../../lib/dom.js'
import { field } from '../../lib/form-dialog.js'
import { rolloutFields, type RolloutFields, type RolloutInput } from './rollout-options.js'
import './rollout-fieldset.css'

export interface RolloutFieldset {
  el: HTMLElement
  /** The fields to add to the body, or why they cannot be sent. */
  read: () => { fields: RolloutFields, error: string | null }
}

let counter = 0

/** The browser's own zone, and every zone it knows for the list (older browsers offer none: the field is free text). */
function zones (): { own: string, all: string[] } {
  const own = Intl.DateTimeFormat().resolvedOptions().timeZone
  const intl = Intl as { supportedValuesOf?: (key: string) => string[] }
  return { own, all: intl.supportedValuesOf?.('timeZone') ?? [own] }
}

export function rolloutFieldset (): RolloutFieldset {
  const zoneList = h('datalist', { id: `rollout-zones-${++counter}` })
  const { own, all } = zones()
  zoneList.append(...all.map((z) => h('option', { value: z })))
  const input = (attrs: Record<string, string>): HTMLInputElement => h('input', { type: 'text', autocomplete: 'off', ...attrs })
  const maxPerMinute = input({ inputmode: 'numeric', placeholder: 'no limit' })
  const waves = input({ placeholder: 'e.g. 1, 10, 50, 100' })
  const waveSuccess = input({ inputmode: 'decimal', placeholder: '95' })
  const failurePercent = input({ inputmode: 'decimal', placeholder: 'e.g. 20' })
  const minFinished = input({ inputmode: 'numeric', placeholder: 'e.g. 50' })
  const start = h('input', { type: 'time' })
  const end = h('input', { type: 'time' })
  const timeZone = input({ list: zoneList.id, value: own })
  const el = h('details', { class: 'rollout-options' },
    h('summary', {}, 'Rollout options'),
    h('p', { class: 'hint' }, 'Blank fields change nothing. Tasks already sent go on whatever these say.'),
    h('div', { class: 'rollout-grid' },
      field('At most per minute', maxPerMinute, 'Tasks that may leave in any minute'),
      field('Waves (%)', waves, 'Cumulative shares of the systems, e.g. 1, 10, 50, 100'),
      field('Wave success (%)', waveSuccess, 'Share of the tasks of the waves so far that must succeed before the next wave starts (95 when blank)'),
      field('Abort at failures (%)', failurePercent, 'Stop once this share of the ended tasks failed…'),
      field('Abort after finished', minFinished, '…counted once this many tasks have ended'),
      field('Window start', start, 'Tasks leave only inside the daily window'),
      field('Window end', end, 'An end before the start crosses midnight'),
      field('Time zone', timeZone, 'Of the window')),
    zoneList)
  const read = (): ReturnType<RolloutFieldset['read']> => {
    const typed: RolloutInput = {
      maxPerMinute: maxPerMinute.value,
      waves: waves.value,
      waveSuccessPercent: waveSuccess.value,
      abortFailurePercent: failurePercent.value,
      abortMinFinished: minFinished.value,
      windowStart: start.value,
      windowEnd: end.value,
      timeZone: timeZone.value
    }
    return rolloutFields(typed)
  }
  return { el, read }
}
