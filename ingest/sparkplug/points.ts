// A BIRTH's or DATA's metrics → data points (docs/protocols/sparkplug.md). Metric name → data id as edge-nodes.ts says;
// a metric sent by alias takes the name and datatype its BIRTH declared; the point's time is the metric's
// timestamp, else the payload's, else the reception. `bdSeq` is session bookkeeping, not data. A metric whose type
// has no scalar form (DataSet, Template, arrays...) is declared but not stored. Pure: the node is only read.
import type { DataPoint } from '../../core/domain/device-message.js'
import { metricValue, MAX_NAME_LENGTH, type SparkplugPayload } from '../../protocols/sparkplug/index.js'
import { dataIdOf, metricKey, type EdgeNode, type KnownMetric } from './edge-nodes.js'

export interface Converted {
  points: DataPoint[]
  /** What a BIRTH declares: by name, and by alias when it gives one. */
  declared: Array<{ metric: KnownMetric, alias?: string }>
  /** Metrics that could not be resolved (an unknown alias, no name): the host asks for a rebirth. */
  unresolved: number
}

/** Text no column can hold (PostgreSQL text has no NUL) or longer than a data id may be. */
const badText = (s: string): boolean => s.includes('\u0000')

/**
 * @param node the node's state; for a BIRTH only its aliases of earlier BIRTHs of the session are read
 * @returns the points, or a refusal reason (nothing of the payload is stored then)
 */
export function convert (payload: SparkplugPayload, node: Pick<EdgeNode, 'aliases' | 'metrics'> | undefined, device: string | undefined, birth: boolean, receivedAt: number): Converted | { refused: string } {
  const out: Converted = { points: [], declared: [], unresolved: 0 }
  for (const m of payload.metrics) {
    let known: KnownMetric | undefined
    if (m.name !== undefined && m.name !== '') {
      if (badText(m.name) || [...m.name].length > MAX_NAME_LENGTH) return { refused: 'metric.name.invalid' }
      known = node?.metrics.get(metricKey(device, m.name))
      const datatype = m.datatype ?? known?.datatype
      if (datatype === undefined) { out.unresolved++; continue }
      known = { name: m.name, datatype, ...(device === undefined ? {} : { device }) }
    } else if (m.alias !== undefined) {
      known = node?.aliases.get(m.alias)
      // An alias names a metric of the device (or node) it was declared for only.
      if (known !== undefined && known.device !== device) known = undefined
    }
    if (known === undefined) { out.unresolved++; continue }
    if (birth) out.declared.push(m.alias === undefined ? { metric: known } : { metric: known, alias: m.alias })
    if (device === undefined && known.name === 'bdSeq') continue
    const value = metricValue(m, known.datatype)
    if (value === 'unsupported') continue
    if (typeof value === 'string' && badText(value)) return { refused: 'metric.value.invalid' }
    const dataId = dataIdOf(device, known.name)
    if ([...dataId].length > MAX_NAME_LENGTH) return { refused: 'metric.name.invalid' }
    out.points.push({ dataId, ts: m.timestamp ?? payload.timestamp ?? receivedAt, value })
  }
  return out
}
