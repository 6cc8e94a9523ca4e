// The notification of raised alerts and the operations their actions started (core/ports/alert-notify.ts; migration
// 0040, decision 0032).
import type { Queryable } from '../../core/ports/store.js'
import type { AlertNotifyRepository, AlertToNotify } from '../../core/ports/alert-notify.js'
import type { AlertAttribute } from '../../core/domain/alert-rule.js'

interface Row {
  uid: string
  date: string
  rule_uid: string
  system_uid: string
  system_name: string
  company_uid: string
  attributes: AlertAttribute[]
  notify_pending: boolean
}

// The start is recorded unless this alert started this action already (the primary key), the action started on the
// system within its cooldown, or the rule started maxOperationsPerHour operations in the last hour. The caller has
// locked the rule's row in this transaction: this statement's snapshot, taken after the lock, sees every start a
// concurrent transaction of the same rule committed (READ COMMITTED), so two processes cannot both take the last slot.
const CLAIM = `WITH free AS (
    SELECT NOT EXISTS (SELECT 1 FROM alert_actions WHERE rule_uid = $2 AND action_index = $4 AND system_uid = $3 AND started_at > $6) AS cool,
      (SELECT count(*) FROM alert_actions WHERE rule_uid = $2 AND started_at > $7) < $8 AS room,
      EXISTS (SELECT 1 FROM alert_actions WHERE alert_uid = $1 AND action_index = $4) AS done),
  ins AS (
    INSERT INTO alert_actions (alert_uid, action_index, rule_uid, system_uid, started_at)
    SELECT $1, $4, $2, $3, $5 FROM free WHERE cool AND room AND NOT done
    ON CONFLICT DO NOTHING RETURNING 1)
  SELECT (SELECT count(*)::int FROM ins) AS claimed, cool, room, done FROM free`

export function createAlertNotifyRepository (q: Queryable): AlertNotifyRepository {
  return {
    async find (alertUid) {
      const { rows } = await q.query<Row>(`SELECT a.uid, a.date, a.rule_uid, a.system_uid, s.name AS system_name, a.company_uid,
          a.attributes, a.notify_pending
        FROM alerts a JOIN systems s ON s.uid = a.system_uid WHERE a.uid = $1`, [alertUid])
      const r = rows[0]
      if (r === undefined) return undefined
      const found: AlertToNotify = { uid: r.uid, date: Number(r.date), ruleUid: r.rule_uid, systemUid: r.system_uid, systemName: r.system_name, companyUid: r.company_uid, attributes: r.attributes, pending: r.notify_pending }
      return found
    },
    async clearPending (alertUid) {
      const { rowCount } = await q.query('UPDATE alerts SET notify_pending = false WHERE uid = $1 AND notify_pending', [alertUid])
      return rowCount === 1
    },
    async claimAction (c, limits) {
      await q.query('SELECT 1 FROM alert_rules WHERE uid = $1 FOR UPDATE', [c.ruleUid])
      const { rows } = await q.query<{ claimed: number, cool: boolean, room: boolean, done: boolean }>(CLAIM,
        [c.alertUid, c.ruleUid, c.systemUid, c.index, c.at, limits.cooldownSince, limits.hourSince, limits.maxPerHour])
      const r = rows[0]
      if (r === undefined || r.done) return 'done'
      if (r.claimed === 1) return 'claimed'
      if (!r.cool) return 'cooldown'
      // Room and cool but nothing inserted: the same alert's other run inserted it meanwhile.
      return r.room ? 'done' : 'limit'
    },
    async startedOperation (alertUid, index, operationUid) {
      await q.query('UPDATE alert_actions SET operation_uid = $3 WHERE alert_uid = $1 AND action_index = $2', [alertUid, index, operationUid])
    },
    async release (alertUid, index) {
      await q.query('DELETE FROM alert_actions WHERE alert_uid = $1 AND action_index = $2', [alertUid, index])
    }
  }
}
