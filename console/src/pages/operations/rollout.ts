// An operation's safe rollout on its page (docs/operations.md#safe-rollouts): which wave is open and how far it
// reaches, the tasks sent, when the next one may leave, whether a user paused it, the rules it follows, and when it
// stopped by itself, why. Pause and Resume (POST /operations/{uid}/pause|resume) hold back or release the tasks not
// yet sent; those already sent go on.
import { h } from '../../lib/dom.js'
import { formatDate } from '../../lib/format.js'
import type { PageContext } from '../../page.js'
import type { Operation, Rollout } from './types.js'
import { plural, waveText } from './rollout-text.js'

/** The rules the rollout follows, each in a sentence. */
function rules (r: Rollout): string[] {
  const out: string[] = []
  if (r.maxPerMinute !== null) out.push(`At most ${plural(r.maxPerMinute, 'task')} a minute.`)
  if (r.waves !== null) {
    out.push(`Waves of ${r.waves.map((p) => `${p} %`).join(', ')} of the systems; each next wave starts once ${r.waveSuccessPercent ?? 95} % of the tasks of the waves before it succeeded.`)
  }
  if (r.abort !== null) out.push(`Stops once ${r.abort.failurePercent} % of the ended tasks failed, after ${plural(r.abort.minFinished, 'ended task')}.`)
  const w = r.maintenanceWindow
  if (w !== null) out.push(`Sends only between ${w.start} and ${w.end} (${w.timeZone}).`)
  return out
}

/** The rollout card: where it stands, then its rules. */
export function rolloutCard (op: Operation): HTMLElement | null {
  const r = op.rollout
  if (r === null || r === undefined) return null
  const item = (term: string, value: string): HTMLElement[] => [h('dt', {}, term), h('dd', {}, value)]
  const wave = waveText(r, op.total)
  const finished = op.state === 'FINISHED'
  return h('section', { class: 'card op-rollout', 'aria-labelledby': 'rollout-title' },
    h('h2', { id: 'rollout-title' }, 'Rollout'),
    h('dl', { class: 'details' },
      wave === null ? [] : item('Wave', wave),
      item('Sent', `${r.sent} of ${op.total}`),
      finished ? [] : item('Sending', r.paused ? 'Paused: no new task leaves until it is resumed' : 'Running'),
      r.nextAt === null || finished || r.paused ? [] : item('Next task at', formatDate(r.nextAt))),
    h('ul', { class: 'op-rollout-rules' }, ...rules(r).map((t) => h('li', {}, t))))
}

/** Pause while tasks may still leave, Resume once paused; null when the operation has finished. */
export function pauseButton (ctx: PageContext, op: Operation, done: (fresh: Operation) => void): HTMLElement | null {
  if (op.state === 'FINISHED') return null
  const paused = op.rollout?.paused === true
  const action = paused ? 'resume' : 'pause'
  const button = h('button', { type: 'button' }, paused ? 'Resume' : 'Pause')
  button.addEventListener('click', () => {
    button.disabled = true
    ctx.api.post<Operation>(`/api/v1/operations/${encodeURIComponent(op.uid)}/${action}`)
      .then((fresh) => {
        ctx.notify(paused ? 'The operation is sending its tasks again.' : 'The operation is paused: no new task leaves.')
        done(fresh)
      })
      .catch((err: unknown) => { button.disabled = false; ctx.notify(err as Error) })
  })
  return button
}
