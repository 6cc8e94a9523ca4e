// The Sparkplug B host's store (sparkplug.port.ts): no table of its own, the node state lives with the
// connection (ingest/sparkplug/edge-nodes.ts).
import type { Queryable } from '../../core/ports/store.js'
import type { SparkplugRepository } from './sparkplug.port.js'

export function createSparkplugRepository (q: Queryable): SparkplugRepository {
  return {
    async nodeDied (systemUid, at) {
      // The state row of system_state (0024_system_state.sql), created when the system has none.
      await q.query(
        `INSERT INTO system_state AS st (system_uid, comm_status, data)
         SELECT uid, 'ERROR', jsonb_build_object('lastCommFailureDate', $2::int8) FROM systems WHERE uid = $1
         ON CONFLICT (system_uid) DO UPDATE SET comm_status = 'ERROR',
           data = jsonb_set(st.data, '{lastCommFailureDate}', EXCLUDED.data -> 'lastCommFailureDate')`, [systemUid, at])
    }
  }
}
