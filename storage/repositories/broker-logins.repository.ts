import type { Queryable } from '../../core/ports/store.js'
import type { BrokerLogin, BrokerLoginsRepository } from '../../core/ports/broker.js'

interface Row { system_uid: string, identifier: string, password: string }

const toLogin = (r: Row): BrokerLogin => ({ systemUid: r.system_uid, identifier: r.identifier, password: r.password })

// The same rows the device login reads (systems.repository.ts deviceLogins): comm_identifiers and the system's
// communication.mqtt.password. An empty password logs nobody in (devices.service.ts), so it is no login here either.
const SELECT = `SELECT c.system_uid, c.identifier, s.communication -> 'mqtt' ->> 'password' AS password
  FROM comm_identifiers c JOIN systems s ON s.uid = c.system_uid
  WHERE coalesce(s.communication -> 'mqtt' ->> 'password', '') <> ''`

export function createBrokerLoginsRepository (q: Queryable): BrokerLoginsRepository {
  return {
    async ofSystems (systemUids) {
      if (systemUids.length === 0) return []
      const { rows } = await q.query<Row>(`${SELECT} AND c.system_uid = ANY($1::text[]) ORDER BY c.system_uid, c.identifier`, [[...new Set(systemUids)]])
      return rows.map(toLogin)
    },
    async page (after, systems) {
      // A page of systems (not of logins), so that no system's logins are split across two pages.
      const { rows: uids } = await q.query<{ uid: string }>('SELECT uid FROM systems WHERE uid > $1 ORDER BY uid LIMIT $2', [after, Math.trunc(systems)])
      const last = uids.at(-1)?.uid
      if (last === undefined) return { logins: [], last: undefined }
      const { rows } = await q.query<Row>(`${SELECT} AND c.system_uid > $1 AND c.system_uid <= $2 ORDER BY c.system_uid, c.identifier`, [after, last])
      return { logins: rows.map(toLogin), last }
    }
  }
}
