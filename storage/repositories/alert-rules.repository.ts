// Alert rules, the data ids they name, and their hooks (core/ports/alert-rules.ts; migration 0038, decision 0031).
import type { Queryable } from '../../core/ports/store.js'
import type { AlertHook, AlertRulesRepository, AlertRuleWrite, StoredAlertRule } from '../../core/ports/alert-rules.js'
import type { AlertAction, AlertCondition } from '../../core/domain/alert-rule.js'

interface Row {
  uid: string
  company_uid: string
  owner_uid: string | null
  name: string
  message: string | null
  stateful: boolean
  active: boolean
  emails: string[]
  notif_mode: string | null
  conditions: AlertCondition[]
  metadata: Record<string, unknown> | null
  read_only: boolean
  actions: AlertAction[]
  max_operations_per_hour: number
  created_at: string
  updated_at: string
}

const COLUMNS = `r.uid, r.company_uid, r.owner_uid, r.name, r.message, r.stateful, r.active, r.emails, r.notif_mode, r.conditions,
  r.metadata, r.read_only, r.actions, r.max_operations_per_hour, r.created_at, r.updated_at`

function stored (r: Row): StoredAlertRule {
  return {
    rule: {
      id: r.uid,
      uid: r.uid,
      targetType: 'SYSTEM',
      name: r.name,
      message: r.message,
      stateful: r.stateful,
      active: r.active,
      emails: r.emails,
      notifMode: r.notif_mode,
      conditions: r.conditions,
      metadata: r.metadata,
      readOnly: r.read_only,
      actions: r.actions,
      maxOperationsPerHour: r.max_operations_per_hour
    },
    companyUid: r.company_uid,
    ownerUid: r.owner_uid,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at)
  }
}

/** The rule's columns $3..$14 in the order INSERT and UPDATE name them. */
function ruleParams (w: AlertRuleWrite): unknown[] {
  const r = w.rule
  return [r.name, r.message, r.stateful, r.active, JSON.stringify(r.emails), r.notifMode, JSON.stringify(r.conditions),
    r.metadata === null ? null : JSON.stringify(r.metadata), r.readOnly, JSON.stringify(r.actions), r.maxOperationsPerHour, w.periodic]
}

const pinned = (w: AlertRuleWrite): string[] | null => w.systemUids === null ? null : [...w.systemUids]

// One statement each, so that a rule and its data ids are written together even outside a transaction: the rule,
// then its data ids and the systems it is pinned to from the rule's own row (none when the rule was not written).
const INSERT = `WITH r AS (
    INSERT INTO alert_rules (uid, company_uid, name, message, stateful, active, emails, notif_mode, conditions, metadata,
      read_only, actions, max_operations_per_hour, periodic, owner_uid, created_at, updated_at)
    SELECT $1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9::jsonb, $10::jsonb, $11, $12::jsonb, $13, $14, $15, $16, $16
    WHERE (SELECT count(*) FROM alert_rules WHERE company_uid = $2) < $18
    RETURNING uid, company_uid),
  d AS (INSERT INTO alert_rule_data_ids (company_uid, data_id, rule_uid, system_uids) SELECT r.company_uid, x, r.uid, $19::text[]
    FROM r, unnest($17::text[]) x),
  p AS (INSERT INTO alert_rule_systems (system_uid, rule_uid, company_uid) SELECT DISTINCT x, r.uid, r.company_uid
    FROM r, unnest($19::text[]) x)
  SELECT count(*)::int AS n FROM r`

// The data ids the rule no longer names go, the new ones come; the ones it keeps stay, with the systems the rule is
// pinned to now (a delete and an insert of one key in one statement would collide); its pins (alert_rule_systems,
// migration 0041) likewise.
const UPDATE = `WITH r AS (
    UPDATE alert_rules SET name = $3, message = $4, stateful = $5, active = $6, emails = $7::jsonb, notif_mode = $8,
      conditions = $9::jsonb, metadata = $10::jsonb, read_only = $11, actions = $12::jsonb, max_operations_per_hour = $13,
      periodic = $14, updated_at = $15
    WHERE uid = $1 AND company_uid = $2 RETURNING uid, company_uid),
  gone AS (DELETE FROM alert_rule_data_ids WHERE rule_uid IN (SELECT uid FROM r) AND NOT (data_id = ANY($16::text[]))),
  d AS (INSERT INTO alert_rule_data_ids (company_uid, data_id, rule_uid, system_uids) SELECT r.company_uid, x, r.uid, $17::text[]
    FROM r, unnest($16::text[]) x
    ON CONFLICT (company_uid, data_id, rule_uid) DO UPDATE SET system_uids = excluded.system_uids),
  unpinned AS (DELETE FROM alert_rule_systems WHERE rule_uid IN (SELECT uid FROM r) AND NOT (system_uid = ANY(coalesce($17::text[], '{}')))),
  p AS (INSERT INTO alert_rule_systems (system_uid, rule_uid, company_uid) SELECT DISTINCT x, r.uid, r.company_uid
    FROM r, unnest($17::text[]) x ON CONFLICT (system_uid, rule_uid) DO NOTHING)
  SELECT count(*)::int AS n FROM r`

export function createAlertRulesRepository (q: Queryable): AlertRulesRepository {
  async function select (where: string, params: unknown[]): Promise<StoredAlertRule[]> {
    const { rows } = await q.query<Row>(`SELECT ${COLUMNS} FROM alert_rules r WHERE ${where} ORDER BY r.created_at, r.uid`, params)
    return rows.map(stored)
  }

  return {
    async insertWithin (w, limit) {
      const { rows } = await q.query<{ n: number }>(INSERT, [w.rule.uid, w.companyUid, ...ruleParams(w), w.ownerUid, w.at, [...w.dataIds], limit, pinned(w)])
      return rows[0]?.n === 1
    },
    async get (companyUid, uid) { return (await select('r.company_uid = $1 AND r.uid = $2', [companyUid, uid]))[0] },
    async list (companyUid) { return await select('r.company_uid = $1', [companyUid]) },
    async update (w) {
      const { rows } = await q.query<{ n: number }>(UPDATE, [w.rule.uid, w.companyUid, ...ruleParams(w), w.at, [...w.dataIds], pinned(w)])
      return rows[0]?.n === 1
    },
    async delete (companyUid, uid) {
      const { rowCount } = await q.query('DELETE FROM alert_rules WHERE uid = $1 AND company_uid = $2', [uid, companyUid])
      return rowCount === 1
    },
    async count (companyUid) {
      const { rows } = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM alert_rules WHERE company_uid = $1', [companyUid])
      return rows[0]?.n ?? 0
    },
    async rulesForDataIds (companyUid, dataIds) {
      if (dataIds.length === 0) return []
      return await select(`r.active AND r.uid IN (SELECT d.rule_uid FROM alert_rule_data_ids d
        WHERE d.company_uid = $1 AND d.data_id = ANY($2::text[]))`, [companyUid, [...dataIds]])
    },
    async rulesWithoutData (companyUid) {
      return companyUid === undefined
        ? await select('r.periodic AND r.active', [])
        : await select('r.periodic AND r.active AND r.company_uid = $1', [companyUid])
    },
    async insertHook (h) {
      await q.query('INSERT INTO alert_rule_hooks (uid, rule_uid, callback, created_at) VALUES ($1, $2, $3, $4)', [h.uid, h.ruleUid, h.callback, h.createdAt])
    },
    async hooks (ruleUid) {
      const { rows } = await q.query<{ uid: string, rule_uid: string, callback: string, created_at: string }>(
        'SELECT uid, rule_uid, callback, created_at FROM alert_rule_hooks WHERE rule_uid = $1 ORDER BY created_at, uid', [ruleUid])
      return rows.map((r): AlertHook => ({ uid: r.uid, ruleUid: r.rule_uid, callback: r.callback, createdAt: Number(r.created_at) }))
    },
    async deleteHook (ruleUid, uid) {
      const { rowCount } = await q.query('DELETE FROM alert_rule_hooks WHERE uid = $1 AND rule_uid = $2', [uid, ruleUid])
      return rowCount === 1
    }
  }
}
