// The system page's chart: any data id, raw or aggregated (interval and function chosen), over the last
// hour, day, week, month or a custom range; a raw chart of a range ending now takes the stream's new points.
import { timeChart } from '../../lib/chart.js'
import { h, replace } from '../../lib/dom.js'
import { formatDate, formatValue } from '../../lib/format.js'
import type { PageContext } from '../../page.js'
import {
  appendPoint, chartQuery, defaultInterval, drawable, FUNCTIONS, isLive, numeric, parseInterval, rangeOf, RANGES, seriesOf, shownSpan,
  UNITS, type PointsAnswer, type RangeName, type Series, type TimeRange
} from './series.js'

/** docs/usage.md: computed from usage records, so only aggregated. */
const USAGE_IDS = ['DATA_BYTES_TOTAL', 'DATA_BYTES_SENT', 'DATA_BYTES_RECEIVED', 'DATA_SESSION', 'DATA_DURATION', 'SMS_SENT', 'SMS_RECEIVED', 'VOICE_IN_DURATION', 'VOICE_OUT_DURATION', 'MSU']
const RANGE_TEXT: Record<RangeName, string> = { hour: 'Last hour', day: 'Last day', week: 'Last week', month: 'Last month', custom: 'Custom range' }
/** An aggregated chart of a range ending now is read again at most this often while points arrive. */
const REFRESH_MS = 10_000

export interface ChartPanel {
  el: HTMLElement
  /** Charts a data id (scrolling to the chart unless told not to: the first chart of the page). */
  show: (dataId: string, scroll?: boolean) => void
  /** The data ids offered in the data id field. */
  setIds: (ids: string[]) => void
  /** A live point of the stream. */
  point: (dataId: string, ts: number, v: unknown) => void
  destroy: () => void
}

const localInput = (ms: number): string => {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000)
  return d.toISOString().slice(0, 16)
}

/**
 * The charted data id goes into the address (`#/systems/<uid>?chart=<id>`) so that a link or a reload shows the same
 * chart; replaceState changes it without a hashchange, which would draw the page again.
 */
function keepInAddress (uid: string, dataId: string): void {
  const hash = `#/systems/${encodeURIComponent(uid)}?${new URLSearchParams({ chart: dataId }).toString()}`
  if (window.location.hash !== hash) window.history.replaceState(window.history.state, '', hash)
}

function labelled (text: string, control: HTMLElement, cls = 'control'): HTMLElement {
  return h('label', { class: cls }, h('span', {}, text), control)
}

/** The chart's settings: the data id, the range, raw or aggregated, and the aggregation's interval and function. */
function chartControls (uid: string) {
  const list = h('datalist', { id: `chart-ids-${uid}` })
  const dataId = h('input', { type: 'text', list: list.id, autocomplete: 'off', placeholder: 'e.g. machine.temperature' })
  // The last hour first: what the device is doing now, with the stream's points arriving at the right end.
  const range = h('select', {}, ...RANGES.map((r) => h('option', { value: r, selected: r === 'hour' }, RANGE_TEXT[r])))
  const from = h('input', { type: 'datetime-local', value: localInput(Date.now() - 86_400_000) })
  const to = h('input', { type: 'datetime-local', value: localInput(Date.now()) })
  const custom = h('div', { class: 'custom-range', hidden: true }, labelled('From', from), labelled('To', to))
  const mode = h('select', {}, h('option', { value: 'raw' }, 'Raw points'), h('option', { value: 'aggregated' }, 'Aggregated'))
  const count = h('input', { type: 'number', min: 1, max: 50, value: 1, class: 'interval-count' })
  const unit = h('select', {}, ...UNITS.map((u) => h('option', { value: u }, `${u}s`)))
  const fn = h('select', {}, ...FUNCTIONS.map((f) => h('option', { value: f }, f)))
  const aggregation = h('div', { class: 'aggregation', hidden: true }, labelled('Interval', count), labelled('Interval unit', unit), labelled('Function', fn))
  const form = h('form', { class: 'chart-controls', 'aria-label': 'Chart settings' },
    labelled('Data id', dataId), list, labelled('Time range', range), custom, labelled('Values', mode), aggregation,
    h('button', { type: 'submit', class: 'primary' }, 'Show'))
  /** The range chosen, as of now; null for a custom range that ends before it starts. */
  const chosenRange = (): TimeRange | null =>
    rangeOf(range.value as RangeName, Date.now(), { from: new Date(from.value).getTime(), to: new Date(to.value).getTime() })
  /** The custom range and the aggregation's fields show only when they apply. */
  const sync = (): void => {
    custom.hidden = range.value !== 'custom'
    aggregation.hidden = mode.value !== 'aggregated'
  }
  const setDefaultInterval = (): void => {
    const i = parseInterval(defaultInterval(chosenRange() ?? { from: 0, to: 86_400_000 }))
    if (i !== null) { count.value = String(i.n); unit.value = i.unit }
  }
  /** "mean per 6 hours". */
  const per = (): string => {
    const n = Number(count.value)
    return `${fn.value} per ${n === 1 ? '' : `${n} `}${unit.value}${n === 1 ? '' : 's'}`
  }
  /** Each change charts again; a new range also takes its default interval. */
  const onChange = (reload: () => void): void => {
    form.addEventListener('submit', (e) => { e.preventDefault(); reload() })
    range.addEventListener('change', () => { sync(); setDefaultInterval(); reload() })
    for (const c of [mode, unit, fn]) c.addEventListener('change', () => { sync(); reload() })
    for (const c of [dataId, count, from, to]) c.addEventListener('change', reload)
  }
  setDefaultInterval()
  return { form, list, dataId, range, mode, count, unit, fn, chosenRange, sync, per, onChange }
}
type ChartControls = ReturnType<typeof chartControls>

interface Shown { dataId: string, range: TimeRange, rangeName: RangeName, aggregated: boolean }

/** What the state line says of a chart drawn (text: a data id holding text, whose last values are listed). */
function stateText (shown: Shown, per: string, series: Series, text: boolean): string {
  const what = `${shown.dataId}, ${shown.aggregated ? per : 'raw'}, ${RANGE_TEXT[shown.rangeName].toLowerCase()}`
  if (series.xs.length === 0 || (!drawable(series) && !text)) return `No value of ${what}.`
  if (text) return `${shown.dataId} holds text, not numbers: its last values are listed.`
  return `${what}${!isLive(shown.rangeName) ? '' : shown.aggregated ? '; read again as points arrive' : '; new points appear as they arrive'}.`
}

/** The last values of a text data id, most recent first. */
const textList = (raw: ReadonlyArray<{ ts: number, v: unknown }>): HTMLElement =>
  h('ul', { class: 'text-values' }, ...raw.slice(0, 20).map((p) => h('li', {}, `${formatDate(p.ts)}: ${formatValue(p.v)}`)))

/**
 * The chart the settings ask for, or what is wrong with them (for the state line). A usage id is computed from usage
 * records, so it is charted aggregated, as a sum.
 */
function requested (c: ChartControls): (Shown & { aggregate: { interval: string, fn: string } | null }) | { problem: string } {
  const dataId = c.dataId.value.trim()
  if (dataId === '') return { problem: 'Choose a data id to chart it.' }
  if (USAGE_IDS.includes(dataId) && c.mode.value === 'raw') { c.mode.value = 'aggregated'; c.fn.value = 'sum'; c.sync() }
  const rangeName = c.range.value as RangeName
  const range = c.chosenRange()
  if (range === null) return { problem: 'The range must start before it ends.' }
  const interval = `${c.count.value}${c.unit.value}`
  if (c.mode.value === 'aggregated' && parseInterval(interval) === null) return { problem: 'The interval is 1 to 50 units.' }
  const aggregate = c.mode.value === 'aggregated' ? { interval, fn: c.fn.value } : null
  return { dataId, range, rangeName, aggregated: aggregate !== null, aggregate }
}

export function chartPanel (ctx: Pick<PageContext, 'api' | 'notify'>, uid: string, alive: () => boolean): ChartPanel {
  const c = chartControls(uid)
  const state = h('p', { class: 'chart-state', 'aria-live': 'polite' }, 'Choose a data id to chart it.')
  const chart = timeChart('the chosen data id')
  const textValues = h('div', {})
  const el = h('section', { class: 'card chart-card', 'aria-labelledby': 'system-chart' }, h('h2', { id: 'system-chart' }, 'Chart'), c.form, state, chart.el, textValues)

  let series: Series = { xs: [], ys: [] }
  /** The points as answered (most recent first), for a text data id, which is listed rather than drawn. */
  let raw: Array<{ ts: number, v: unknown }> = []
  let shown: Shown | null = null
  let loads = 0
  let refresh: ReturnType<typeof setTimeout> | null = null

  async function load (): Promise<void> {
    const want = requested(c)
    if ('problem' in want) { state.textContent = want.problem; return }
    const { dataId: id, range: r, rangeName, aggregate } = want
    const mine = ++loads
    state.textContent = `Loading ${id}…`
    el.setAttribute('aria-busy', 'true')
    const { path, query } = chartQuery({ uid, dataId: id, range: r, aggregate })
    try {
      const answer = await ctx.api.get<PointsAnswer>(path, query)
      if (!alive() || mine !== loads) return
      series = seriesOf(answer, uid, id)
      shown = { dataId: id, range: r, rangeName, aggregated: aggregate !== null }
      keepInAddress(uid, id)
      raw = answer[uid]?.[id] ?? []
      draw()
    } catch (err) {
      if (!alive() || mine !== loads) return
      state.textContent = 'The chart could not be loaded.'
      ctx.notify(err instanceof Error ? err : String(err), 'error')
    } finally {
      if (mine === loads) el.setAttribute('aria-busy', 'false')
    }
  }

  function draw (): void {
    if (shown === null) return
    const text = raw.some((p) => typeof p.v === 'string' && numeric(p.v) === null)
    chart.el.hidden = text && !drawable(series)
    const span = isLive(shown.rangeName) ? rangeOf(shown.rangeName, Date.now()) ?? shown.range : shown.range
    chart.setData(series.xs, series.ys, shown.aggregated ? shownSpan(span, series) : span, shown.dataId)
    replace(textValues)
    state.textContent = stateText(shown, c.per(), series, text)
    // A text data id with points: its last values are listed under the state line.
    if (text && series.xs.length > 0) replace(textValues, textList(raw))
  }

  const reload = (): void => { load().catch((err: unknown) => { ctx.notify(err instanceof Error ? err : String(err), 'error') }) }
  c.onChange(reload)

  return {
    el,
    show (id, scroll = true) {
      c.dataId.value = id
      reload()
      if (scroll) el.scrollIntoView({ behavior: 'smooth', block: 'start' })
    },
    setIds (ids) { replace(c.list, [...ids, ...USAGE_IDS].map((id) => h('option', { value: id }))) },
    point (id, ts, v) {
      if (shown === null || shown.dataId !== id || !isLive(shown.rangeName)) return
      if (shown.aggregated) {
        refresh ??= setTimeout(() => { refresh = null; reload() }, REFRESH_MS)
        return
      }
      const r = rangeOf(shown.rangeName, Date.now())
      series = appendPoint(series, ts, v, r?.from ?? 0)
      raw = [{ ts, v }, ...raw].slice(0, 20)
      draw()
    },
    destroy () {
      if (refresh !== null) clearTimeout(refresh)
      chart.destroy()
    }
  }
}
