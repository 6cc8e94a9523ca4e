// The alerts and alert states the evaluation wrote, as the API reads them (core/ports/alerts.ts; migration 0038).
// Every statement is bounded by the company: an alert by its own company_uid, a state by its rule's company.
import type { Queryable } from '../../core/ports/store.js'
import type { AlertFilter, AlertStateFilter, AlertStateView, AlertStatus, AlertsRepository, AlertView } from '../../core/ports/alerts.js'
import type { AlertAttribute } from '../../core/domain/alert-rule.js'
import type { Page } from '../../core/paging.js'

interface AlertRow {
  uid: string
  rule_uid: string
  rule_name: string
  rule_message: string | null
  system_uid: string
  system_name: string
  date: string
  closed_date: string | null
  state: AlertStatus
  acknowledged: boolean
  acknowledged_by: string | null
  attributes: AlertAttribute[]
}

interface StateRow { rule_uid: string, rule_name: string, system_uid: string, system_name: string, state: boolean, changed_at: string }

const view = (r: AlertRow): AlertView => ({
  uid: r.uid,
  rule: { uid: r.rule_uid, name: r.rule_name, message: r.rule_message },
  target: { uid: r.system_uid, name: r.system_name },
  date: Number(r.date),
  closedDate: r.closed_date === null ? null : Number(r.closed_date),
  state: r.state,
  acknowledged: r.acknowledged,
  acknowledgedBy: r.acknowledged_by,
  attributes: r.attributes
})

/** A WHERE clause built from the filters given: only those appear, so each query is planned for what it asks. */
class Where {
  readonly parts: string[] = []
  constructor (readonly params: unknown[]) {}
  add (sql: (p: string) => string, value: unknown): void {
    if (value === undefined) return
    this.params.push(Array.isArray(value) ? [...value] : value)
    this.parts.push(sql(`$${this.params.length}`))
  }

  /** The conditions, then the order, then the page's bounds (pushed last, after every filter's value). */
  sql (order: string, page: Page): string {
    this.params.push(page.size, page.offset)
    const n = this.params.length
    return `WHERE ${this.parts.join(' AND ')} ORDER BY ${order} LIMIT $${n - 1} OFFSET $${n}`
  }
}

export function createAlertsRepository (q: Queryable): AlertsRepository {
  return {
    async find (companyUid, f: AlertFilter, page) {
      const w = new Where([companyUid])
      w.parts.push('a.company_uid = $1')
      w.add((p) => `a.uid = ANY(${p}::text[])`, f.alertIds)
      w.add((p) => `a.rule_uid = ANY(${p}::text[])`, f.ruleIds)
      w.add((p) => `a.system_uid = ANY(${p}::text[])`, f.targetIds)
      w.add((p) => `a.state = ${p}`, f.state)
      w.add((p) => `a.acknowledged = ${p}`, f.acknowledged)
      w.add((p) => `a.date > ${p}`, f.dateAfter)
      w.add((p) => `a.date < ${p}`, f.dateBefore)
      const { rows } = await q.query<AlertRow>(`SELECT a.uid, a.rule_uid, r.name AS rule_name, r.message AS rule_message,
          a.system_uid, s.name AS system_name, a.date, a.closed_date, a.state, a.acknowledged, a.acknowledged_by, a.attributes
        FROM alerts a JOIN alert_rules r ON r.uid = a.rule_uid JOIN systems s ON s.uid = a.system_uid
        ${w.sql('a.date DESC, a.uid DESC', page)}`, w.params)
      return rows.map(view)
    },

    async states (companyUid, f: AlertStateFilter, page): Promise<AlertStateView[]> {
      const w = new Where([companyUid])
      w.parts.push('r.company_uid = $1')
      w.add((p) => `st.rule_uid = ANY(${p}::text[])`, f.ruleIds)
      w.add((p) => `st.system_uid = ANY(${p}::text[])`, f.targetIds)
      const { rows } = await q.query<StateRow>(`SELECT st.rule_uid, r.name AS rule_name, st.system_uid, s.name AS system_name,
          st.state, st.changed_at
        FROM alert_states st JOIN alert_rules r ON r.uid = st.rule_uid JOIN systems s ON s.uid = st.system_uid
        ${w.sql('st.changed_at DESC, st.rule_uid, st.system_uid', page)}`, w.params)
      return rows.map((r) => ({
        rule: { uid: r.rule_uid, name: r.rule_name },
        target: { uid: r.system_uid, name: r.system_name },
        state: r.state,
        date: Number(r.changed_at)
      }))
    },

    // The first acknowledgement stays: a second one (by anyone) changes nothing, so the call can be repeated.
    async acknowledge (companyUid, uid, by) {
      const { rowCount } = await q.query(`UPDATE alerts SET acknowledged = true,
          acknowledged_by = CASE WHEN acknowledged THEN acknowledged_by ELSE $3 END
        WHERE uid = $1 AND company_uid = $2`, [uid, companyUid, by])
      return rowCount === 1
    }
  }
}
