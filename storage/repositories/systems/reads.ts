// The systems' reads: one system or many by uid, the finds by criteria with their sorts and pages, what device
// operations read, and the systems holding a gateway or a subscription.
import type { Queryable } from '../../../core/ports/store.js'
import type { SystemsRepository } from '../../../core/ports/systems.js'
import type { DeviceSystem, System, SystemOption, SystemSort } from '../../../core/domain/system.js'
import { criteriaConditions, criteriaJoins, joinsSql, Params, type CriteriaJoins } from '../system-criteria.sql.js'
import { MONTH_BYTES_SQL, USAGE_STATUS_SQL } from '../data-usage.sql.js'
import { SELECT, toSystem, type Row } from './system-row.sql.js'

// docs/api.md#systems: the sortable attributes, their SQL expressions and the join they read. Nulls come
// last both ways; a column that is never null has no NULLS clause, so that one btree index serves both directions
// (storage/migrations/0003_find_indexes.sql).
interface SortColumn { sql: string, nullable: boolean, join?: keyof CriteriaJoins }
const SORT_SQL: Record<SystemSort, SortColumn> = {
  name: { sql: 'lower(s.name)', nullable: false },
  creationDate: { sql: 's.creation_date', nullable: false },
  activationDate: { sql: 's.activation_date', nullable: true },
  lastStateChangeDate: { sql: 's.last_state_change_date', nullable: false },
  lastCommDate: { sql: 'st.last_comm_date', nullable: true, join: 'state' },
  serialNumber: { sql: 'g.serial_number', nullable: true, join: 'gateway' },
  imei: { sql: 'g.imei', nullable: true, join: 'gateway' },
  identifier: { sql: 'b.identifier', nullable: true, join: 'subscription' },
  ipAddress: { sql: 'b.ip_address', nullable: true, join: 'subscription' },
  requestedIp: { sql: 'b.requested_ip', nullable: true, join: 'subscription' },
  'data.rssi': { sql: "(st.data ->> 'rssi')::float8", nullable: true, join: 'state' },
  'data.ecio': { sql: "(st.data ->> 'ecio')::float8", nullable: true, join: 'state' },
  'data.rsrp': { sql: "(st.data ->> 'rsrp')::float8", nullable: true, join: 'state' },
  'data.rsrq': { sql: "(st.data ->> 'rsrq')::float8", nullable: true, join: 'state' },
  'data.bytesSent': { sql: "(st.data ->> 'bytesSent')::float8", nullable: true, join: 'state' },
  'data.bytesReceived': { sql: "(st.data ->> 'bytesReceived')::float8", nullable: true, join: 'state' },
  'data.monthBytesTotal': { sql: 's.month_bytes_total', nullable: false },
  'dataUsage.bytesTotal': { sql: MONTH_BYTES_SQL, nullable: false },
  'dataUsage.status': { sql: USAGE_STATUS_SQL, nullable: false }
}

/** ORDER BY of a find. The default is the creation date (docs/api.md#systems), newest first; the uid breaks
 *  ties so that paging is stable. */
function orderSql (sort: Parameters<SystemsRepository['find']>[2]): string {
  if (sort.length === 0) return 's.creation_date DESC, s.uid'
  return [...sort.map((x) => {
    const c = SORT_SQL[x.field]
    return `${c.sql} ${x.dir === 'desc' ? 'DESC' : 'ASC'}${c.nullable ? ' NULLS LAST' : ''}`
  }), 's.uid'].join(', ')
}

function where (companyUid: string, criteria: Parameters<SystemsRepository['find']>[1]): { sql: string, p: Params } {
  const p = new Params()
  const conditions = [`s.company_uid = ${p.add(companyUid)}`, ...criteriaConditions(criteria, p)]
  return { sql: conditions.join(' AND '), p }
}

export type SystemReads = Pick<SystemsRepository, 'findByUid' | 'findByUids' | 'deviceSystems' | 'find' | 'findUids' | 'refs' | 'count' | 'byGateway' | 'bySubscription' | 'options'>

export function createSystemReads (q: Queryable): SystemReads {
  return {
    async findByUid (companyUid, uid) {
      const { rows } = await q.query<Row>(`${SELECT} WHERE s.company_uid = $1 AND s.uid = $2`, [companyUid, uid])
      return rows[0] === undefined ? undefined : toSystem(rows[0])
    },
    async findByUids (companyUid, uids) {
      if (uids.length === 0) return []
      const { rows } = await q.query<Row>(`${SELECT} WHERE s.company_uid = $1 AND s.uid = ANY($2::text[])`, [companyUid, [...new Set(uids)]])
      return rows.map(toSystem)
    },
    async deviceSystems (companyUid, uids) {
      if (uids.length === 0) return []
      const { rows } = await q.query<{ uid: string, name: string, communication: System['communication'], serial_number: string | null, imei: string | null, gateway_uid: string | null }>(
        `SELECT s.uid, s.name, s.communication, s.gateway_uid, g.serial_number, g.imei FROM systems s LEFT JOIN gateways g ON g.uid = s.gateway_uid
         WHERE s.company_uid = $1 AND s.uid = ANY($2::text[])`, [companyUid, [...new Set(uids)]])
      return rows.map((r): DeviceSystem => ({
        uid: r.uid, name: r.name, communication: r.communication, gateway: r.gateway_uid === null ? null : { serialNumber: r.serial_number, imei: r.imei }
      }))
    },
    async find (companyUid, criteria, sort, page) {
      const { sql, p } = where(companyUid, criteria)
      const order = orderSql(sort)
      const joins = criteriaJoins(criteria)
      for (const x of sort) { const j = SORT_SQL[x.field].join; if (j !== undefined) joins[j] = true }
      // The page is chosen on bare rows (with only the joins that filters and sort read), then only its rows are
      // loaded with their parts in the same statement: a deep offset skips index entries, not assembled systems.
      const { rows } = await q.query<Row>(`${SELECT} WHERE s.uid IN (SELECT s.uid FROM systems s${joinsSql(joins)}
        WHERE ${sql} ORDER BY ${order} LIMIT ${page.size} OFFSET ${page.offset}) ORDER BY ${order}`, p.values)
      const items = rows.map(toSystem)
      // A partial page tells the total by itself; only a full page, or an empty one past the end, needs a count.
      if (items.length < page.size && (items.length > 0 || page.offset === 0)) return { count: page.offset + items.length, items }
      const total = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM systems s${joinsSql(criteriaJoins(criteria))}
        WHERE ${sql}`, p.values)
      return { count: total.rows[0]?.n ?? 0, items }
    },
    async findUids (companyUid, criteria, limit) {
      const { sql, p } = where(companyUid, criteria)
      const { rows } = await q.query<{ uid: string }>(`SELECT s.uid FROM systems s${joinsSql(criteriaJoins(criteria))}
        WHERE ${sql} ORDER BY s.creation_date, s.uid LIMIT ${Math.trunc(limit)}`, p.values)
      return rows.map((r) => r.uid)
    },
    async refs (companyUid, criteria, limit) {
      const { sql, p } = where(companyUid, criteria)
      const { rows } = await q.query<{ uid: string, name: string }>(`SELECT s.uid, s.name FROM systems s${joinsSql(criteriaJoins(criteria))}
        WHERE ${sql} ORDER BY s.creation_date, s.uid LIMIT ${Math.trunc(limit)}`, p.values)
      return rows
    },
    async count (companyUid) {
      const { rows } = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM systems WHERE company_uid = $1', [companyUid])
      return rows[0]?.n ?? 0
    },
    async byGateway (gatewayUid) {
      const { rows } = await q.query<{ uid: string }>('SELECT uid FROM systems WHERE gateway_uid = $1', [gatewayUid])
      return rows[0]?.uid
    },
    async bySubscription (subscriptionUid) {
      const { rows } = await q.query<{ uid: string }>('SELECT uid FROM systems WHERE subscription_uid = $1', [subscriptionUid])
      return rows[0]?.uid
    },
    async options (systemUid) {
      const { rows } = await q.query<{ type: string, uid: string, name: string, config: string | null }>(
        `SELECT o.type, o.uid, o.name, o.config FROM system_options so JOIN options o ON o.uid = so.option_uid
         WHERE so.system_uid = $1 AND so.active ORDER BY o.type, o.name`, [systemUid])
      return rows.map((r): SystemOption => r.config === null ? { type: r.type, uid: r.uid, name: r.name } : { type: r.type, uid: r.uid, name: r.name, config: r.config })
    }
  }
}
