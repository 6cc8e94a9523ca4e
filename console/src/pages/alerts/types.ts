// What the console reads of alert rules and alerts (docs/alerts.md): the AirVantage v2 shapes of GET /api/v2/alertrules
// and GET /api/v2/alerts, with only the fields the pages use.

export interface AlertOperand {
  attributeId?: { name: string } | null
  valueStr?: string | null
  valueNum?: number | null
  valuesStr?: string[] | null
}

export interface AlertCondition { operator: string, operands: AlertOperand[] }

/** A rule as the service answers it: a PUT sends it back whole, with only `active` changed. */
export interface AlertRule {
  uid: string
  name: string
  message: string | null
  stateful: boolean
  active: boolean
  conditions: AlertCondition[]
  [field: string]: unknown
}

/** One value that made an alert's conditions true. */
export interface AlertAttribute { id: { name: string }, value: { valueStr?: string | null, valueNum?: number | null } }

export interface Alert {
  uid: string
  rule: { uid: string, name: string, message: string | null }
  target: { uid: string, name: string | null }
  /** Epoch ms when the conditions became true, and when they stopped (null while open). */
  date: number
  closedDate: number | null
  state: 'OPEN' | 'CLOSED'
  acknowledged: boolean
  /** Who acknowledged it first: a user's uid, or an API client's id when it acts without a user. */
  acknowledgedBy: unknown
  attributes: AlertAttribute[]
}
