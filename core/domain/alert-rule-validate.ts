// An alert rule as a client sends it, checked and given its defaults (docs/alerts.md#rules). Real AirVantage clients
// send null for what they leave out, and fields of their own: null is taken as absent, unknown fields are ignored.
import type { AlertAction, AlertRule } from './alert-rule.js'
import { invalid, isRecord, validConditions } from './alert-condition-validate.js'

const OPERATIONS: ReadonlyArray<AlertAction['operation']> = ['REBOOT', 'RETRIEVE_DATA', 'APPLY_SETTINGS', 'INSTALL_APPLICATION']
// One @, something on each side, a dot in the domain: what a mail server could take, not a full RFC 5322 parser.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
export const MAX_OPERATIONS_PER_HOUR = 10_000
const DEFAULT_OPERATIONS_PER_HOUR = 60
const MAX_TEXT = 1000

const given = (v: unknown): boolean => v !== undefined && v !== null

function bool (body: Record<string, unknown>, field: string, fallback: boolean): boolean {
  const v = body[field]
  if (!given(v)) return fallback
  if (typeof v !== 'boolean') throw invalid(field, 'true or false')
  return v
}

function text (body: Record<string, unknown>, field: string): string | null {
  const v = body[field]
  if (!given(v)) return null
  if (typeof v !== 'string') throw invalid(field, 'a string')
  if (v.length > MAX_TEXT) throw invalid(field, `at most ${MAX_TEXT} characters`)
  return v
}

function emails (v: unknown): string[] {
  if (!given(v)) return []
  if (!Array.isArray(v)) throw invalid('emails', 'an array of e-mail addresses')
  v.forEach((e, i) => { if (typeof e !== 'string' || e.length > 254 || !EMAIL.test(e)) throw invalid(`emails[${i}]`, 'an e-mail address') })
  return v as string[]
}

function action (raw: unknown, i: number): AlertAction {
  const at = `actions[${i}]`
  if (!isRecord(raw)) throw invalid(at, 'an object with operation, parameters, cooldownMinutes')
  const operation = raw.operation as AlertAction['operation']
  if (!OPERATIONS.includes(operation)) throw invalid(`${at}.operation`, `one of ${OPERATIONS.join(', ')}`)
  const out: AlertAction = { operation }
  if (given(raw.parameters)) {
    if (!isRecord(raw.parameters)) throw invalid(`${at}.parameters`, 'an object')
    out.parameters = raw.parameters
  }
  if (given(raw.cooldownMinutes)) {
    if (!Number.isSafeInteger(raw.cooldownMinutes) || (raw.cooldownMinutes as number) < 0) throw invalid(`${at}.cooldownMinutes`, 'a whole number of minutes, 0 or more')
    out.cooldownMinutes = raw.cooldownMinutes as number
  }
  return out
}

function actions (v: unknown): AlertAction[] {
  if (!given(v)) return []
  if (!Array.isArray(v)) throw invalid('actions', 'an array of actions')
  return v.map(action)
}

function operationsPerHour (v: unknown): number {
  if (!given(v)) return DEFAULT_OPERATIONS_PER_HOUR
  if (!Number.isSafeInteger(v) || (v as number) < 1 || (v as number) > MAX_OPERATIONS_PER_HOUR) throw invalid('maxOperationsPerHour', `a whole number from 1 to ${MAX_OPERATIONS_PER_HOUR}`)
  return v as number
}

/**
 * The rule a body describes, under the uid given (a body's id or uid is ignored: the path or a new uid names it).
 * @throws alert.rule.invalid with the field named first (`name`, `conditions[0].operator`, `emails[1]`...), then why
 */
export function validAlertRule (body: unknown, uid: string): AlertRule {
  if (!isRecord(body)) throw invalid('body', 'a JSON object')
  const name = text(body, 'name')
  if (name === null || name.trim() === '') throw invalid('name', 'a name')
  if (given(body.targetType) && body.targetType !== 'SYSTEM') throw invalid('targetType', 'SYSTEM')
  if (given(body.metadata) && !isRecord(body.metadata)) throw invalid('metadata', 'an object')
  return {
    id: uid,
    uid,
    targetType: 'SYSTEM',
    name,
    message: text(body, 'message'),
    stateful: bool(body, 'stateful', true),
    active: bool(body, 'active', true),
    emails: emails(body.emails),
    notifMode: text(body, 'notifMode'),
    conditions: validConditions(body.conditions),
    metadata: given(body.metadata) ? body.metadata as Record<string, unknown> : null,
    readOnly: bool(body, 'readOnly', false),
    actions: actions(body.actions),
    maxOperationsPerHour: operationsPerHour(body.maxOperationsPerHour)
  }
}
