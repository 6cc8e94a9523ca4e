// The ingest pipeline's metrics (docs/monitoring.md): what was stored or refused, and how the group commit keeps up.
import type { MetricsRegistry } from '../../metrics.js'

export function ingestMetrics (metrics: MetricsRegistry, pending: () => number, pendingBytes: () => number) {
  metrics.gauge({ name: 'fleet_ingest_buffer_depth', help: 'Device messages waiting for their commit (queued or being written)', collect: () => [{ value: pending() }] })
  metrics.gauge({ name: 'fleet_ingest_buffer_bytes', help: 'Approximate bytes of the device messages waiting for their commit (bound: INGEST_BUFFER_BYTES)', collect: () => [{ value: pendingBytes() }] })
  return {
    accepted: metrics.counter<'protocol'>({ name: 'fleet_ingest_messages_accepted_total', help: 'Device messages committed, by protocol', labels: ['protocol'] }),
    refused: metrics.counter<'protocol' | 'reason'>({ name: 'fleet_ingest_messages_refused_total', help: 'Device payloads refused before storage, by protocol and reason', labels: ['protocol', 'reason'] }),
    failed: metrics.counter<'protocol'>({ name: 'fleet_ingest_messages_failed_total', help: 'Device messages the store did not take (not acknowledged; the device sends again)', labels: ['protocol'] }),
    batchSize: metrics.histogram({ name: 'fleet_ingest_batch_size', help: 'Device messages per group-commit transaction', buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000] }),
    commitSeconds: metrics.histogram({ name: 'fleet_ingest_commit_duration_seconds', help: 'Time to write one group-commit batch' })
  }
}

export type IngestMetrics = ReturnType<typeof ingestMetrics>
