// The alerts' port (docs/alerts.md#alerts): the alerts the rules raised and each rule's state per system, as the API
// reads them, and an alert's acknowledgement. The evaluation writes them (decision 0032); this port only reads them,
// always within one company.
import type { Page } from '../paging.js'
import type { AlertAttribute } from '../domain/alert-rule.js'

export type AlertStatus = 'OPEN' | 'CLOSED'

/** An alert as the API answers it (AirVantage's v2 shape). */
export interface AlertView {
  uid: string
  rule: { uid: string, name: string, message: string | null }
  target: { uid: string, name: string }
  date: number
  /** When a stateful rule's conditions stopped holding; a stateless rule's alert is closed when raised. */
  closedDate: number | null
  state: AlertStatus
  acknowledged: boolean
  /** Who acknowledged it first: a user's uid, or an API client's id when it acts without a user. */
  acknowledgedBy: string | null
  /** The values that made the conditions true. */
  attributes: AlertAttribute[]
}

/** The filters of GET /api/v2/alerts; every one given must hold. */
export interface AlertFilter {
  alertIds?: readonly string[]
  ruleIds?: readonly string[]
  targetIds?: readonly string[]
  state?: AlertStatus
  acknowledged?: boolean
  /** Alerts raised strictly after this time (epoch ms). */
  dateAfter?: number
  /** Alerts raised strictly before this time (epoch ms). */
  dateBefore?: number
}

/** A rule's last answer for one system. */
export interface AlertStateView {
  rule: { uid: string, name: string }
  target: { uid: string, name: string }
  state: boolean
  /** When the state last changed. */
  date: number
}

export interface AlertStateFilter {
  ruleIds?: readonly string[]
  targetIds?: readonly string[]
}

export interface AlertsRepository {
  /** The company's alerts that pass the filter, newest first. */
  find (companyUid: string, filter: AlertFilter, page: Page): Promise<AlertView[]>
  /** The states of the company's rules, the latest change first. */
  states (companyUid: string, filter: AlertStateFilter, page: Page): Promise<AlertStateView[]>
  /**
   * Marks the company's alert acknowledged by `by`, unless it is already (the first acknowledgement stays).
   * @returns false: no such alert in the company
   */
  acknowledge (companyUid: string, uid: string, by: string): Promise<boolean>
}
