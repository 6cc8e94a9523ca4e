import type { Queryable } from '../../core/ports/store.js'
import { FleetError } from '../../core/errors.js'
import type { SystemRow, SystemsRepository } from '../../core/ports/systems.js'
import type { DeviceSystem, System, SystemSort, SystemOption } from '../../core/domain/system.js'
import { initialSystemData } from '../../core/domain/system-data.js'
import type { IpFilters } from '../../core/domain/company.js'
import { criteriaConditions, criteriaJoins, joinsSql, Params, type CriteriaJoins } from './system-criteria.sql.js'
import { toGateway, type GatewayRow } from './gateways.repository.js'
import { toSubscription, type SubscriptionRow } from './subscriptions.repository.js'
import { MONTH_BYTES_SQL, USAGE_STATUS_SQL } from './data-usage.sql.js'

interface Row {
  uid: string
  company_uid: string
  name: string
  type: string | null
  life_cycle_state: System['lifeCycleState']
  state: System['state']
  activity_state: System['activityState']
  creation_date: number
  activation_date: number | null
  last_state_change_date: number
  last_comm_date: number | null
  comm_status: System['commStatus']
  last_sync_date: number | null
  sync_status: string
  labels: string[]
  metadata: Record<string, string>
  communication: System['communication']
  data: Record<string, unknown> | null
  heartbeat: unknown
  status_report: unknown
  reports: unknown[]
  last_applied_template: string | null
  last_config_name: string | null
  month_bytes_total: number
  month_bytes_time: number | null
  usage_status: string
  gw: GatewayRow | null
  sub: SubscriptionRow | null
  offer: { uid: string, company_uid: string, name: string, limit_bytes: number | null, types: string[] } | null
  apps: System['applications'] | null
}

// One statement loads a page of systems with their parts (no N+1): gateway, subscription and offer as JSON
// objects, applications aggregated per system. json rather than jsonb: it is only sent, never queried, and
// skipping the binary form is cheaper.
// The state device traffic changes (lastCommDate, commStatus, System data) is the row of system_state
// (storage/migrations/0024_system_state.sql); a system without one has never communicated.
const SELECT = `SELECT s.*, st.last_comm_date, coalesce(st.comm_status, 'UNDEFINED') AS comm_status, st.data,
  row_to_json(g) AS gw, row_to_json(b) AS sub, row_to_json(o) AS offer,
  (SELECT json_agg(json_build_object('uid', a.uid, 'name', a.name, 'revision', a.revision, 'type', a.type,
     'category', a.category) ORDER BY a.type, a.name)
   FROM system_applications sa JOIN applications a ON a.uid = sa.application_uid WHERE sa.system_uid = s.uid) AS apps
FROM systems s LEFT JOIN system_state st ON st.system_uid = s.uid
  LEFT JOIN gateways g ON g.uid = s.gateway_uid LEFT JOIN subscriptions b ON b.uid = s.subscription_uid
  LEFT JOIN offers o ON o.uid = s.offer_uid`

function toSystem (r: Row): System {
  return {
    uid: r.uid,
    companyUid: r.company_uid,
    name: r.name,
    type: r.type,
    lifeCycleState: r.life_cycle_state,
    state: r.state,
    activityState: r.activity_state,
    creationDate: Number(r.creation_date),
    activationDate: r.activation_date === null ? null : Number(r.activation_date),
    lastStateChangeDate: Number(r.last_state_change_date),
    lastCommDate: r.last_comm_date === null ? null : Number(r.last_comm_date),
    commStatus: r.comm_status,
    lastSyncDate: r.last_sync_date === null ? null : Number(r.last_sync_date),
    syncStatus: r.sync_status,
    labels: r.labels,
    gateway: r.gw === null ? null : toGateway(r.gw),
    subscription: r.sub === null ? null : toSubscription(r.sub),
    applications: r.apps ?? [],
    metadata: r.metadata,
    communication: r.communication,
    // Every field of System data, those never written (a system created behind the repositories' back) as at creation.
    data: { ...initialSystemData(), ...(r.data ?? {}), ...(r.last_applied_template === null ? {} : { lastTemplateName: r.last_applied_template }) },
    heartbeat: r.heartbeat,
    statusReport: r.status_report,
    reports: r.reports,
    offer: r.offer === null
      ? null
      : { uid: r.offer.uid, companyUid: r.offer.company_uid, name: r.offer.name, limit: r.offer.limit_bytes === null ? null : Number(r.offer.limit_bytes), types: r.offer.types },
    lastAppliedTemplate: r.last_applied_template,
    lastConfigName: r.last_config_name,
    monthBytesTotal: Number(r.month_bytes_total),
    monthBytesTime: r.month_bytes_time === null ? null : Number(r.month_bytes_time),
    usageStatus: r.usage_status
  }
}

// fleet-api.md §Find systems: the sortable attributes, their SQL expressions and the join they read. Nulls come
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

/** ORDER BY of a find. The default is the creation date (fleet-api.md §Find systems), newest first; the uid breaks
 *  ties so that paging is stable. */
function orderSql (sort: Parameters<SystemsRepository['find']>[2]): string {
  if (sort.length === 0) return 's.creation_date DESC, s.uid'
  return [...sort.map((x) => {
    const c = SORT_SQL[x.field]
    return `${c.sql} ${x.dir === 'desc' ? 'DESC' : 'ASC'}${c.nullable ? ' NULLS LAST' : ''}`
  }), 's.uid'].join(', ')
}

const COLUMNS: Record<string, string> = {
  uid: 'uid',
  companyUid: 'company_uid',
  name: 'name',
  type: 'type',
  lifeCycleState: 'life_cycle_state',
  state: 'state',
  activityState: 'activity_state',
  creationDate: 'creation_date',
  activationDate: 'activation_date',
  lastStateChangeDate: 'last_state_change_date',
  lastSyncDate: 'last_sync_date',
  syncStatus: 'sync_status',
  labels: 'labels',
  gatewayUid: 'gateway_uid',
  subscriptionUid: 'subscription_uid',
  metadata: 'metadata',
  communication: 'communication',
  heartbeat: 'heartbeat',
  statusReport: 'status_report',
  reports: 'reports',
  offerUid: 'offer_uid',
  lastAppliedTemplate: 'last_applied_template',
  lastConfigName: 'last_config_name',
  monthBytesTotal: 'month_bytes_total',
  monthBytesTime: 'month_bytes_time',
  usageStatus: 'usage_status'
}
const JSON_COLUMNS = new Set(['metadata', 'communication', 'heartbeat', 'status_report', 'reports'])
/** The fields of a SystemRow kept in system_state. */
const STATE_COLUMNS = { lastCommDate: 'last_comm_date', commStatus: 'comm_status', data: 'data' } as const

/** Writes the system_state fields of a row or patch (creating the row when it has none). */
async function writeState (q: Queryable, uid: string, fields: Partial<Pick<SystemRow, keyof typeof STATE_COLUMNS>>): Promise<void> {
  const set = (Object.keys(STATE_COLUMNS) as Array<keyof typeof STATE_COLUMNS>).filter((k) => fields[k] !== undefined)
  if (set.length === 0) return
  const params: unknown[] = [uid, ...set.map((k) => k === 'data' ? JSON.stringify(fields[k]) : fields[k])]
  const cols = set.map((k) => STATE_COLUMNS[k])
  const values = set.map((k, i) => `$${i + 2}${k === 'data' ? '::jsonb' : ''}`)
  await q.query(`INSERT INTO system_state AS st (system_uid, ${cols.join(', ')}) VALUES ($1, ${values.join(', ')})
    ON CONFLICT (system_uid) DO UPDATE SET ${cols.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}`, params)
}

function value (column: string, v: unknown): [unknown, string] {
  if (JSON_COLUMNS.has(column)) return [v === null || v === undefined ? null : JSON.stringify(v), '::jsonb']
  if (column === 'labels') return [v, '::text[]']
  return [v, '']
}

/** Tables of device traffic without a foreign key to systems: deleted with the system here. */
const TRAFFIC_TABLES = ['data_points', 'data_rollups', 'data_rollups_daily', 'data_rollup_deltas', 'device_messages', 'device_acks'] as const

export function createSystemsRepository (q: Queryable): SystemsRepository {
  function where (companyUid: string, criteria: Parameters<SystemsRepository['find']>[1]): { sql: string, p: Params } {
    const p = new Params()
    const conditions = [`s.company_uid = ${p.add(companyUid)}`, ...criteriaConditions(criteria, p)]
    return { sql: conditions.join(' AND '), p }
  }

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
    async lockCompany (companyUid) {
      await q.query('SELECT uid FROM companies WHERE uid = $1 FOR UPDATE', [companyUid])
    },
    async insert (row) {
      const cols: string[] = []
      const marks: string[] = []
      const params: unknown[] = []
      for (const [key, column] of Object.entries(COLUMNS)) {
        const [v, cast] = value(column, (row as unknown as Record<string, unknown>)[key])
        params.push(v)
        cols.push(column)
        marks.push(`$${params.length}${cast}`)
      }
      await q.query(`INSERT INTO systems (${cols.join(', ')}) VALUES (${marks.join(', ')})`, params)
      await writeState(q, row.uid, { lastCommDate: row.lastCommDate ?? undefined, commStatus: row.commStatus, data: row.data })
    },
    async update (uid, patch) {
      const sets: string[] = []
      const params: unknown[] = [uid]
      for (const [key, v] of Object.entries(patch)) {
        const column = COLUMNS[key]
        if (column === undefined || v === undefined || column === 'uid') continue
        const [val, cast] = value(column, v)
        params.push(val)
        sets.push(`${column} = $${params.length}${cast}`)
      }
      if (sets.length > 0) await q.query(`UPDATE systems SET ${sets.join(', ')} WHERE uid = $1`, params)
      await writeState(q, uid, patch)
    },
    async delete (uid) {
      // The rows of device traffic have no foreign key to their system (0005_telemetry.sql, 0025_message_keys.sql).
      for (const table of TRAFFIC_TABLES) await q.query(`DELETE FROM ${table} WHERE system_uid = $1`, [uid])
      await q.query('DELETE FROM systems WHERE uid = $1', [uid])
    },
    async setApplications (systemUid, applicationUids) {
      await q.query('DELETE FROM system_applications WHERE system_uid = $1', [systemUid])
      if (applicationUids.length > 0) {
        await q.query(`INSERT INTO system_applications (system_uid, application_uid)
          SELECT $1, u FROM unnest($2::text[]) AS u`, [systemUid, applicationUids])
      }
    },
    async recordSync (uids, sync) {
      if (uids.length === 0) return
      // data.lastTemplateName is last_applied_template (toSystem): System data stays the ingest's alone to write, so
      // that an answer's transaction never waits on the rows a data flush holds (and the reverse: a deadlock).
      if (sync.status === 'ERROR') await q.query("UPDATE systems SET sync_status = 'ERROR' WHERE uid = ANY($1::text[])", [uids])
      else {
        await q.query(`UPDATE systems SET sync_status = 'OK', last_sync_date = $2, last_applied_template = $3, last_config_name = $3
          WHERE uid = ANY($1::text[])`, [uids, sync.at, sync.template])
      }
    },
    async relabel (companyUid, uid, add, remove) {
      const res = await q.query(
        `UPDATE systems SET labels = (SELECT coalesce(array_agg(DISTINCT l ORDER BY l), '{}') FROM unnest(array_cat(labels, $3::text[])) AS l
           WHERE NOT (l = ANY($4::text[]))) WHERE company_uid = $1 AND uid = $2`, [companyUid, uid, add, remove])
      return res.rowCount > 0
    },
    async relabelMany (companyUid, uids, add, remove) {
      const { rows } = await q.query<{ uid: string }>(
        `UPDATE systems SET labels = (SELECT coalesce(array_agg(DISTINCT l ORDER BY l), '{}') FROM unnest(array_cat(labels, $3::text[])) AS l
           WHERE NOT (l = ANY($4::text[]))) WHERE company_uid = $1 AND uid = ANY($2::text[]) RETURNING uid`, [companyUid, uids, add, remove])
      return rows.map((r) => r.uid)
    },
    async deleteMany (companyUid, uids) {
      // As delete(): the rows of the systems' traffic, then the systems (their other rows follow by ON DELETE CASCADE).
      for (const table of TRAFFIC_TABLES) {
        await q.query(`DELETE FROM ${table} WHERE system_uid IN (SELECT uid FROM systems WHERE company_uid = $1 AND uid = ANY($2::text[]))`, [companyUid, uids])
      }
      const { rows } = await q.query<{ uid: string, gateway_uid: string | null, subscription_uid: string | null }>(
        'DELETE FROM systems WHERE company_uid = $1 AND uid = ANY($2::text[]) RETURNING uid, gateway_uid, subscription_uid', [companyUid, uids])
      return rows.map((r) => ({ uid: r.uid, gatewayUid: r.gateway_uid, subscriptionUid: r.subscription_uid }))
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
    },
    async setOptions (systemUid, optionUids) {
      await q.query('DELETE FROM system_options WHERE system_uid = $1', [systemUid])
      if (optionUids.length > 0) {
        await q.query(`INSERT INTO system_options (system_uid, option_uid, active)
          SELECT $1, u, true FROM unnest($2::text[]) AS u`, [systemUid, optionUids])
      }
    },
    async setCommIdentifiers (systemUid, identifiers) {
      await q.query('DELETE FROM comm_identifiers WHERE system_uid = $1', [systemUid])
      if (identifiers.length > 0) {
        try {
          await q.query(`INSERT INTO comm_identifiers (identifier, system_uid)
            SELECT DISTINCT u, $1 FROM unnest($2::text[]) AS u`, [systemUid, identifiers])
        } catch (err) {
          // Two companies binding one login at once: the later waits on the key, then finds it taken (set C).
          if ((err as { code?: unknown }).code === '23505') throw new FleetError('system.communication.identifier.already.used', identifiers)
          throw err
        }
      }
    },
    async commIdentifierOwner (identifiers, except) {
      const { rows } = await q.query<{ system_uid: string }>(
        'SELECT system_uid FROM comm_identifiers WHERE identifier = ANY($1::text[]) AND system_uid IS DISTINCT FROM $2 LIMIT 1',
        [identifiers, except])
      return rows[0]?.system_uid
    },
    async systemByCommIdentifier (identifier) {
      const { rows } = await q.query<{ system_uid: string, company_uid: string }>(
        `SELECT c.system_uid, s.company_uid FROM comm_identifiers c JOIN systems s ON s.uid = c.system_uid
         WHERE c.identifier = $1`, [identifier])
      return rows[0] === undefined ? undefined : { systemUid: rows[0].system_uid, companyUid: rows[0].company_uid }
    },
    async commIdentifiersOf (systemUids) {
      if (systemUids.length === 0) return []
      const { rows } = await q.query<{ system_uid: string, identifier: string }>(
        'SELECT system_uid, identifier FROM comm_identifiers WHERE system_uid = ANY($1::text[])', [[...new Set(systemUids)]])
      return rows.map((r) => ({ systemUid: r.system_uid, identifier: r.identifier }))
    },
    async deviceLogins (identifiers) {
      if (identifiers.length === 0) return []
      const { rows } = await q.query<{ identifier: string, system_uid: string, company_uid: string, communication: System['communication'], device_ip_filtering: boolean, device_ip_filters: IpFilters }>(
        `SELECT c.identifier, s.uid AS system_uid, s.company_uid, s.communication, co.device_ip_filtering, co.device_ip_filters
         FROM comm_identifiers c JOIN systems s ON s.uid = c.system_uid JOIN companies co ON co.uid = s.company_uid
         WHERE c.identifier = ANY($1::text[])`, [[...new Set(identifiers)]])
      return rows.map((r) => ({
        identifier: r.identifier, systemUid: r.system_uid, companyUid: r.company_uid, communication: r.communication, deviceIpFiltering: r.device_ip_filtering, deviceIpFilters: r.device_ip_filters
      }))
    },
    async transfer (uid, to) {
      const { rows } = await q.query<{ gateway_uid: string | null, subscription_uid: string | null }>(
        'UPDATE systems SET company_uid = $2, offer_uid = $3 WHERE uid = $1 RETURNING gateway_uid, subscription_uid', [uid, to.companyUid, to.offerUid])
      const moved = rows[0]
      if (moved === undefined) return
      // The destination's unique identifiers (one gateway per IMEI, one subscription per ICCID in a company).
      const unique = async (code: 'gateway.not.unique.identifiers' | 'subscription.not.unique.identifiers', sql: string, params: unknown[]): Promise<void> => {
        try { await q.query(sql, params) } catch (err) {
          if ((err as { code?: unknown }).code === '23505') throw new FleetError(code, [String(params[0])])
          throw err
        }
      }
      if (moved.gateway_uid !== null) {
        await unique('gateway.not.unique.identifiers', 'UPDATE gateways SET company_uid = $2, transfer_to = NULL WHERE uid = $1', [moved.gateway_uid, to.companyUid])
      }
      if (moved.subscription_uid !== null) {
        await unique('subscription.not.unique.identifiers', 'UPDATE subscriptions SET company_uid = $2, operator_account_uid = $3 WHERE uid = $1',
          [moved.subscription_uid, to.companyUid, to.operatorAccountUid])
      }
      await q.query(`DELETE FROM system_options WHERE system_uid = $1
        AND option_uid IN (SELECT uid FROM options WHERE company_uid IS NOT NULL AND company_uid <> $2)`, [uid, to.companyUid])
    }
  }
}
