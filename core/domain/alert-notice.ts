// What an alert tells the outside (docs/alerts.md#hooks, #e-mails, #actions): the body POSTed to the rule's hooks, the
// e-mail to its addresses, and the operation request an action makes. Pure: the deliveries are the alert.notify job's
// (core/services/alerts/alert-notify.ts).
import type { AlertAction, AlertAttribute } from './alert-rule.js'
import type { OperationType } from './operation.js'

/** What the notices need of a raised alert: itself, its rule and its system. */
export interface AlertNotice {
  uid: string
  date: number
  ruleUid: string
  ruleName: string
  message: string | null
  systemUid: string
  systemName: string
  attributes: readonly AlertAttribute[]
}

/** The body POSTed to each hook (spec "Alert rules": AirVantage's event, its content keys dotted). */
export interface AlertTriggeredEvent {
  name: 'event.alert.rule.triggered'
  date: number
  content: { 'alert.uid': string, 'rule.uid': string, 'target.uid': string }
}

export function alertTriggeredEvent (a: Pick<AlertNotice, 'uid' | 'date' | 'ruleUid' | 'systemUid'>): AlertTriggeredEvent {
  return { name: 'event.alert.rule.triggered', date: a.date, content: { 'alert.uid': a.uid, 'rule.uid': a.ruleUid, 'target.uid': a.systemUid } }
}

const valueOf = (a: AlertAttribute): string => 'valueNum' in a.value ? String(a.value.valueNum) : a.value.valueStr

/** The e-mail to one of the rule's addresses: the rule's name and message, the system, and the values that raised it. */
export function alertMail (a: AlertNotice, to: string): { to: string, subject: string, text: string } {
  const values = a.attributes.map((x) => `  ${x.id.name}: ${valueOf(x)}`)
  const text = [
    a.message ?? `The rule "${a.ruleName}" raised an alert.`,
    '',
    `Rule: ${a.ruleName} (${a.ruleUid})`,
    `System: ${a.systemName} (${a.systemUid})`,
    `Date: ${new Date(a.date).toISOString()}`,
    `Alert: ${a.uid}`,
    ...(values.length === 0 ? [] : ['Values:', ...values]),
    ''
  ].join('\n')
  return { to, subject: `Alert: ${a.ruleName} on ${a.systemName}`, text }
}

/** The operation type of each action (the bulk operation of docs/operations.md it starts). */
export const ACTION_OPERATIONS: Readonly<Record<AlertAction['operation'], OperationType>> = {
  REBOOT: 'SYSTEM_REBOOT',
  RETRIEVE_DATA: 'SYSTEM_RETRIEVE_DATA',
  APPLY_SETTINGS: 'SYSTEM_APPLY_SETTINGS',
  INSTALL_APPLICATION: 'SYSTEM_INSTALL_APPLICATION'
}

/**
 * The request body of the action's operation: its parameters, on the alert's system alone (a `systems` among the
 * parameters is replaced: an action never reaches beyond the system that raised the alert).
 */
export function actionBody (action: AlertAction, systemUid: string): Record<string, unknown> {
  return { ...action.parameters, systems: { uids: [systemUid] } }
}

export const HOUR_MS = 3_600_000

/** The limits an action's start is decided by (docs/alerts.md#actions), as instants before `now`. */
export interface ActionLimits {
  /** A start of this action on this system after this instant forbids another (cooldownMinutes; 0: now, none). */
  cooldownSince: number
  /** Starts of the rule after this instant count against `maxPerHour`. */
  hourSince: number
  maxPerHour: number
}

export function actionLimits (action: AlertAction, maxOperationsPerHour: number, now: number): ActionLimits {
  const cooldownMs = Math.max(0, action.cooldownMinutes ?? 0) * 60_000
  return { cooldownSince: now - cooldownMs, hourSince: now - HOUR_MS, maxPerHour: maxOperationsPerHour }
}
