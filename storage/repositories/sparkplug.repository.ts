// The Sparkplug B host's store (core/ports/sparkplug.ts): no table of its own, the node state lives with the
// connection (ingest/sparkplug/edge-nodes.ts).
import type { Queryable } from '../../core/ports/store.js'
import type { SparkplugRepository } from '../../core/ports/sparkplug.js'

export function createSparkplugRepository (q: Queryable): SparkplugRepository {
  return {
    async nodeDied (systemUid, at) {
      await q.query(
        `UPDATE systems SET comm_status = 'ERROR', data = jsonb_set(data, '{lastCommFailureDate}', to_jsonb($2::int8))
         WHERE uid = $1`, [systemUid, at])
    }
  }
}
