// The Sparkplug B host's store (sparkplug.port.ts): no table of its own, the node state lives with the
// connection (ingest/sparkplug/edge-nodes.ts).
import type { Queryable } from '../../core/ports/store.js'
import type { SparkplugRepository } from './sparkplug.port.js'
import { ON_DEAD_NODE } from '../../core/domain/comm-status.js'
import { markCommFailures } from '../comm-failures.sql.js'

export function createSparkplugRepository (q: Queryable): SparkplugRepository {
  return {
    async nodeDied (systemUid, at) {
      // docs/devices.md: a dead node is a missed communication at once (core/domain/comm-status.ts: ON_DEAD_NODE).
      await markCommFailures(q, [{ systemUid, status: ON_DEAD_NODE, at }])
    }
  }
}
