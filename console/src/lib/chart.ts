// A time chart with uPlot ("charts of any data id"): one series, x in epoch seconds, sized to its box and
// resized with it. The wrapper is an image with a text summary (uPlot draws on a canvas, which says nothing to a
// screen reader) and carries the point count in data-points, which the browser tests read.
import UPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import { h } from './dom.js'
import { formatDate, formatValue } from './format.js'
import './chart.css'

export interface TimeChart {
  el: HTMLElement
  /**
   * x in epoch seconds ascending; `range` (epoch ms) is the span shown, the points' own span when absent; `name`
   * is what the chart shows (the data id), for its text summary.
   */
  setData: (xs: number[], ys: Array<number | null>, range?: { from: number, to: number }, name?: string) => void
  destroy: () => void
}

const ACCENT = '#2b6cb0'
const HEIGHT = 260

export function timeChart (initialName: string): TimeChart {
  let label = initialName
  const el = h('figure', { class: 'time-chart', role: 'img', 'aria-label': 'Chart', 'data-points': 0 })
  const plotBox = h('div', { class: 'time-chart-plot' })
  const caption = h('figcaption', { class: 'time-chart-caption' })
  el.append(plotBox, caption)
  let xs: number[] = []
  let ys: Array<number | null> = []
  let plot: UPlot | null = null
  let span: { from: number, to: number } | undefined

  const opts = (width: number): UPlot.Options => ({
    width,
    height: HEIGHT,
    // The x axis shows the range asked for, so a single point does not stretch over years.
    scales: { x: { time: true, range: (_u, min, max) => span === undefined ? [min, max] : [span.from / 1000, span.to / 1000] } },
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
    series: [
      {},
      { label, stroke: ACCENT, width: 2, fill: 'rgba(43, 108, 176, 0.08)', spanGaps: false, points: { show: xs.length < 80, size: 5 } }
    ],
    axes: [{ stroke: '#4a5568', grid: { stroke: '#edf2f7' } }, { stroke: '#4a5568', grid: { stroke: '#edf2f7' }, size: 60 }]
  })

  // Only points with a value are drawn (an empty bucket of an aggregation is a gap), so only those are counted.
  const summarise = (): void => {
    const drawn = ys.filter((y) => y !== null).length
    el.dataset.points = String(drawn)
    let last = ys.length - 1
    while (last >= 0 && ys[last] === null) last--
    caption.textContent = last < 0
      ? 'No point in this range.'
      : `${drawn} point${drawn === 1 ? '' : 's'}; last value ${formatValue(ys[last] ?? null)} at ${formatDate((xs[last] ?? 0) * 1000)}`
    el.setAttribute('aria-label', `Chart of ${label}: ${caption.textContent}`)
  }

  // Built once the box has a width (the chart is created before it is in the page).
  const resize = new ResizeObserver(() => {
    const width = Math.max(200, Math.floor(plotBox.clientWidth))
    if (plot === null) plot = new UPlot(opts(width), [xs, ys], plotBox)
    else if (plot.width !== width) plot.setSize({ width, height: HEIGHT })
  })
  resize.observe(plotBox)

  return {
    el,
    setData (nextXs, nextYs, range, name) {
      label = name ?? label
      xs = nextXs
      ys = nextYs
      span = range
      // The span shown, for the browser tests (whether every point lies on the chart).
      el.dataset.from = String(range?.from ?? '')
      el.dataset.to = String(range?.to ?? '')
      plot?.setData([xs, ys])
      summarise()
    },
    destroy () {
      resize.disconnect()
      plot?.destroy()
      plot = null
    }
  }
}
