// Alert rules in the AirVantage v2 shape (docs/alerts.md): what a client sends and reads back, and what the evaluator
// (core/domain/alert-conditions.ts) is given of a system to decide whether a rule's conditions hold for it.

export type AlertOperator =
  | 'EQUALS' | 'NOT_EQUALS' | 'GT' | 'GTE' | 'LT' | 'LTE' | 'IN' | 'CONTAINS' | 'GEO_CONTAINS' | 'NO_COMMUNICATION_FOR'

/** One operand: an attribute of the system, or a value to compare it with. */
export type AlertOperand =
  | { attributeId: { name: string, targetId?: string | null, filter?: string | null } }
  | { valueStr: string }
  | { valueNum: number }
  | { valuesStr: string[] }

export interface AlertCondition {
  operator: AlertOperator
  operands: AlertOperand[]
}

/** What the service adds to AirVantage's rule: operations it starts on the alert's system. */
export interface AlertAction {
  operation: 'REBOOT' | 'RETRIEVE_DATA' | 'APPLY_SETTINGS' | 'INSTALL_APPLICATION'
  parameters?: Record<string, unknown>
  /** At most one operation per system within this many minutes. */
  cooldownMinutes?: number
}

/** A rule as the API answers it (`id` and `uid` are the same). */
export interface AlertRule {
  id: string
  uid: string
  targetType: 'SYSTEM'
  name: string
  message: string | null
  stateful: boolean
  active: boolean
  emails: string[]
  notifMode: string | null
  conditions: AlertCondition[]
  metadata: Record<string, unknown> | null
  readOnly: boolean
  actions: AlertAction[]
  /** At most this many operations started by the rule in an hour, all systems together (default 60). */
  maxOperationsPerHour: number
}

/** A value as a condition sees it: a data point's value, or a system field's. */
export type AlertValue = string | number | boolean | null

/**
 * What the evaluator knows of one system when it checks a rule: the last values of the data ids the rule names,
 * the system's fields, and the time. A data id absent from `data` has no value (a condition on it does not hold).
 */
export interface AlertFacts {
  now: number
  system: {
    uid: string
    name: string
    commStatus: string
    lifeCycleState: string
    labels: readonly string[]
    /** The protocols of its last communications ('MQTT', 'REST'...). */
    commProtocols: readonly string[]
    lastCommDate: number | null
    latitude: number | null
    longitude: number | null
  }
  /** Last value of each data id the rule names (`DATA.<id>` attributes; usage data ids: this month's total). */
  data: ReadonlyMap<string, AlertValue>
}

/** An attribute value that made an alert true (kept on the alert: AirVantage's `attributes`). */
export interface AlertAttribute {
  id: { name: string }
  value: { valueStr: string } | { valueNum: number }
}
