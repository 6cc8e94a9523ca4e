// The metrics port (docs/monitoring.md): the counters, histograms and gauges the services report to. Declared here
// so that core/ never imports a metrics library; bin/ passes in the Prometheus implementation (metrics/prom-registry.ts)
// and tests or one-shot commands may use noMetrics.

/** Label values by label name; a label left out is exported as an empty string. */
export type Labels<L extends string> = Partial<Record<L, string>>

export interface Counter<L extends string = never> {
  inc (labels?: Labels<L>, by?: number): void
}

export interface Histogram<L extends string = never> {
  /** Records one observation (seconds for durations, a count for sizes). */
  observe (labels: Labels<L>, value: number): void
}

export interface GaugeSample<L extends string = never> { labels?: Labels<L>, value: number }

export interface MetricDef<L extends string> {
  /** Prometheus name: snake case, `fleet_` prefix, unit suffix (`_seconds`, `_total`). */
  name: string
  help: string
  labels?: readonly L[]
}

export interface MetricsRegistry {
  counter<L extends string = never>(def: MetricDef<L>): Counter<L>
  /** buckets: upper bounds, ascending; absent: durations from 1 ms to 10 s. */
  histogram<L extends string = never>(def: MetricDef<L> & { buckets?: readonly number[] }): Histogram<L>
  /** A gauge read when the metrics are scraped: collect answers its current samples (it may ask the store). */
  gauge<L extends string = never>(def: MetricDef<L> & { collect: () => Array<GaugeSample<L>> | Promise<Array<GaugeSample<L>>> }): void
  /** The exposition text of every metric, and its content type. */
  scrape (): Promise<{ contentType: string, body: string }>
}

/** A registry that records nothing (one-shot commands, unit tests). */
export const noMetrics: MetricsRegistry = {
  counter: () => ({ inc () {} }),
  histogram: () => ({ observe () {} }),
  gauge () {},
  scrape: async () => ({ contentType: 'text/plain; version=0.0.4', body: '' })
}
