// The systems' writes: a system's row and state, its applications and options, labels, apply settings' marks,
// deletions (with the device traffic that has no foreign key to it) and the transfer to another company.
import type { Queryable } from '../../../core/ports/store.js'
import { FleetError } from '../../../core/errors.js'
import type { SystemRow, SystemsRepository } from '../../../core/ports/systems.js'

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

/** SystemsRepository.insert: every column of the row, then its system_state fields. */
async function insertRow (q: Queryable, row: SystemRow): Promise<void> {
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
}

/** SystemsRepository.transfer: the system, its gateway and its subscription move to the other company. */
async function transfer (q: Queryable, uid: string, to: Parameters<SystemsRepository['transfer']>[1]): Promise<void> {
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

export type SystemWrites = Pick<SystemsRepository, 'lockCompany' | 'insert' | 'update' | 'delete' | 'setApplications' | 'recordSync' | 'relabel' | 'relabelMany' | 'deleteMany' | 'setOptions' | 'transfer'>

export function createSystemWrites (q: Queryable): SystemWrites {
  return {
    async lockCompany (companyUid) {
      await q.query('SELECT uid FROM companies WHERE uid = $1 FOR UPDATE', [companyUid])
    },
    async insert (row) { await insertRow(q, row) },
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
    async setOptions (systemUid, optionUids) {
      await q.query('DELETE FROM system_options WHERE system_uid = $1', [systemUid])
      if (optionUids.length > 0) {
        await q.query(`INSERT INTO system_options (system_uid, option_uid, active)
          SELECT $1, u, true FROM unnest($2::text[]) AS u`, [systemUid, optionUids])
      }
    },
    async transfer (uid, to) { await transfer(q, uid, to) }
  }
}
