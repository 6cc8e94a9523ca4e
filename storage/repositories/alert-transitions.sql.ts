// The transitions of alert rules (decision 0032): one statement writes the new answers, raises and closes the alerts.
import type { Queryable } from '../../core/ports/store.js'
import type { AlertAnswer, AlertTransitions } from '../../core/ports/alert-evaluation.js'
import { textArray } from '../sql-arrays.js'

// - live, sys: the rules and systems still there, locked against a delete until the commit (a rule or system deleted
//   meanwhile is skipped instead of failing the device's batch on a foreign key); a system only with its rule's company.
// - up: the conditional upsert. A row whose state already is the answer is neither written nor returned; of two
//   transactions writing one pair at once, the second waits on the row and then sees the first's answer, so a change
//   of answer is returned to one of them only. Pairs go in key order, so that two writers never wait on each other.
// - raised: an alert for each answer that became true (a new pair or a changed one): OPEN for a stateful rule,
//   CLOSED at once for a stateless one, as nothing will close it. The open alerts' unique index turns a second OPEN
//   alert (which the states already prevent) into nothing rather than an error.
// - closed: the OPEN alert of each pair whose answer became false (a stateless rule has none).
const TRANSITIONS = `WITH v AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::boolean[], $4::text[], $5::text[]) AS v(rule_uid, system_uid, holds, alert_uid, attributes)),
  live AS (SELECT uid, company_uid, stateful FROM alert_rules WHERE uid IN (SELECT rule_uid FROM v) ORDER BY uid FOR KEY SHARE),
  sys AS (SELECT uid, company_uid FROM systems WHERE uid IN (SELECT system_uid FROM v) ORDER BY uid FOR KEY SHARE),
  up AS (
    INSERT INTO alert_states AS a (rule_uid, system_uid, state, changed_at)
    SELECT v.rule_uid, v.system_uid, v.holds, $6 FROM v
      JOIN live ON live.uid = v.rule_uid JOIN sys ON sys.uid = v.system_uid AND sys.company_uid = live.company_uid
    ORDER BY v.rule_uid, v.system_uid
    ON CONFLICT (rule_uid, system_uid) DO UPDATE SET state = excluded.state, changed_at = excluded.changed_at
      WHERE a.state IS DISTINCT FROM excluded.state
    RETURNING a.rule_uid, a.system_uid, a.state),
  raised AS (
    INSERT INTO alerts (uid, rule_uid, system_uid, company_uid, date, closed_date, state, attributes, notify_pending)
    SELECT v.alert_uid, up.rule_uid, up.system_uid, live.company_uid, $6, CASE WHEN live.stateful THEN NULL ELSE $6::int8 END,
      CASE WHEN live.stateful THEN 'OPEN' ELSE 'CLOSED' END, v.attributes::jsonb, true
    FROM up JOIN v ON v.rule_uid = up.rule_uid AND v.system_uid = up.system_uid JOIN live ON live.uid = up.rule_uid
    WHERE up.state
    ON CONFLICT (rule_uid, system_uid) WHERE state = 'OPEN' DO NOTHING
    RETURNING uid),
  closed AS (
    UPDATE alerts al SET state = 'CLOSED', closed_date = $6 FROM up
    WHERE NOT up.state AND al.rule_uid = up.rule_uid AND al.system_uid = up.system_uid AND al.state = 'OPEN'
    RETURNING al.uid)
  SELECT uid, true AS raised FROM raised UNION ALL SELECT uid, false FROM closed`

/** Writes the answers (AlertEvaluationRepository.transitions). */
export async function writeTransitions (q: Queryable, answers: readonly AlertAnswer[], at: number): Promise<AlertTransitions> {
  if (answers.length === 0) return { raised: [], closed: [] }
  const { rows } = await q.query<{ uid: string, raised: boolean }>(TRANSITIONS, [
    textArray(answers.map((a) => a.ruleUid)), textArray(answers.map((a) => a.systemUid)),
    `{${answers.map((a) => a.holds ? 't' : 'f').join(',')}}`, textArray(answers.map((a) => a.alertUid)),
    textArray(answers.map((a) => JSON.stringify(a.attributes))), at])
  return { raised: rows.filter((r) => r.raised).map((r) => r.uid), closed: rows.filter((r) => !r.raised).map((r) => r.uid) }
}
