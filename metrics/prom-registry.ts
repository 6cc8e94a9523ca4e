// The metrics port of core/metrics.ts on prom-client. One registry per service instance (tests start several in one
// process), with Node's process metrics (CPU, heap, event loop lag, handles) beside the service's own.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { GaugeSample, Labels, MetricsRegistry } from '../core/metrics.js'

// Durations from 1 ms to 10 s: an API call on a warm store takes a few ms, a bulk write or a shed request's wait more.
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

// prom-client wants every declared label: the port lets a caller leave one out, exported as ''.
function full<L extends string> (names: readonly L[], labels: Labels<L> | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  for (const n of names) out[n] = labels?.[n] ?? ''
  return out
}

export interface PromRegistryOptions {
  /** Errors of a gauge's collect (the store down during a scrape): the gauge is left out of that scrape. */
  onCollectError?: (name: string, err: unknown) => void
}

export function createPromRegistry (opts: PromRegistryOptions = {}): MetricsRegistry {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'fleet_' })
  // A counter or histogram asked for again (an API built twice on one context) is the one already registered.
  function existing<M> (name: string, kind: abstract new (...args: never[]) => M): M | undefined {
    const m = registry.getSingleMetric(name)
    return m instanceof kind ? m : undefined
  }
  return {
    counter (def) {
      const names = def.labels ?? []
      const c = existing(def.name, Counter) ?? new Counter({ name: def.name, help: def.help, labelNames: [...names], registers: [registry] })
      return { inc: (labels, by = 1) => { c.inc(full(names, labels), by) } }
    },
    histogram (def) {
      const names = def.labels ?? []
      const h = existing(def.name, Histogram) ?? new Histogram({ name: def.name, help: def.help, labelNames: [...names], buckets: [...(def.buckets ?? DURATION_BUCKETS)], registers: [registry] })
      return { observe: (labels, value) => { h.observe(full(names, labels), value) } }
    },
    gauge (def) {
      const names = def.labels ?? []
      // Read at scrape time, so the figure is the current one and nothing polls between scrapes. A gauge defined
      // again (a part rebuilt on the same registry) reads from its latest definition.
      registry.removeSingleMetric(def.name)
      new Gauge({ // eslint-disable-line no-new -- registering is the point: the registry keeps it
        name: def.name,
        help: def.help,
        labelNames: [...names],
        registers: [registry],
        async collect () {
          this.reset()
          let samples: Array<GaugeSample<string>>
          try {
            samples = await def.collect()
          } catch (err) {
            opts.onCollectError?.(def.name, err)
            return
          }
          const gauge = this as Gauge
          for (const s of samples) gauge.set(full(names, s.labels), s.value)
        }
      })
    },
    async scrape () {
      return { contentType: registry.contentType, body: await registry.metrics() }
    }
  }
}
