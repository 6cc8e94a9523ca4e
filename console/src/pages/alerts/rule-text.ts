// An alert rule in words, and the rule the console's form makes (docs/alerts.md#conditions-operators-and-attributes).
// No DOM here: the Alerts page and its tests share it.
import type { AlertCondition, AlertOperand, AlertRule } from './types.js'

/** The operators the form offers, with the sign a condition is written with. */
export const FORM_OPERATORS: Record<string, string> = { GT: '>', GTE: '≥', LT: '<', LTE: '≤', EQUALS: '=', NOT_EQUALS: '≠' }

const WORDS: Record<string, string> = { IN: 'is one of', CONTAINS: 'contains', GEO_CONTAINS: 'is inside' }

/** `DATA.engine.temp` → `engine.temp`; a system field stays as named. */
const attributeText = (name: string): string => name.startsWith('DATA.') ? name.slice('DATA.'.length) : name

function operandText (o: AlertOperand): string {
  if (o.attributeId != null) return attributeText(o.attributeId.name)
  if (o.valuesStr != null) return o.valuesStr.join(', ')
  if (o.valueNum != null) return String(o.valueNum)
  if (o.valueStr != null) return o.valueStr.startsWith('POLYGON') ? 'a polygon' : `"${o.valueStr}"`
  return '?'
}

/** One condition in a line: `engine.temp > 90`, `system.labels is one of north, south`, `no communication for 60 min`. */
export function conditionText (c: AlertCondition): string {
  if (c.operator === 'NO_COMMUNICATION_FOR') return `no communication for ${operandText(c.operands[0] ?? {})} min`
  const attribute = c.operands.find((o) => o.attributeId != null)
  const value = c.operands.find((o) => o.attributeId == null)
  const sign = FORM_OPERATORS[c.operator] ?? WORDS[c.operator] ?? c.operator
  return `${attribute === undefined ? '?' : operandText(attribute)} ${sign} ${value === undefined ? '?' : operandText(value)}`
}

/** Every condition, as all must hold. */
export const conditionsText = (conditions: readonly AlertCondition[]): string =>
  conditions.length === 0 ? 'No condition' : conditions.map(conditionText).join(' and ')

/** What the rule form holds, as typed. */
export interface RuleForm { name: string, dataId: string, operator: string, value: string, stateful: boolean, message: string }

/**
 * The body of POST /api/v2/alertrules for the form: one condition on a data id's last value. A value that reads as
 * a number is sent as valueNum, anything else as valueStr (the service compares `"true"` with a boolean). The
 * service checks the rest and names the field it refuses.
 */
export function ruleBody (f: RuleForm): Record<string, unknown> {
  const text = f.value.trim()
  const value = text !== '' && Number.isFinite(Number(text)) ? { valueNum: Number(text) } : { valueStr: text }
  return {
    name: f.name.trim(),
    message: f.message.trim() === '' ? null : f.message.trim(),
    stateful: f.stateful,
    active: true,
    conditions: [{ operator: f.operator, operands: [{ attributeId: { name: `DATA.${f.dataId.trim()}` } }, value] }]
  }
}

export type RuleFormField = keyof RuleForm

/**
 * The form's field an alert.rule.invalid names (its first parameter, docs/alerts.md#errors), so the dialog can point
 * at it: `conditions[0].operands[0].attributeId.name` is the data id, `conditions[0].operands[1]...` the value.
 */
export function ruleFormField (path: string): RuleFormField | null {
  if (path === 'name' || path === 'message' || path === 'stateful') return path
  if (/^conditions\[0\]\.operator$/.test(path)) return 'operator'
  if (/^conditions\[0\]\.operands\[0\]\.attributeId/.test(path)) return 'dataId'
  if (/^conditions\[0\]\.operands(\[1\].*)?$/.test(path)) return 'value'
  return null
}

/** The PUT body that turns a rule on or off: the rule whole (a PUT replaces it), only `active` changed. */
export function withActive (rule: AlertRule, active: boolean): Record<string, unknown> {
  const { id: _id, uid: _uid, ...rest } = rule
  return { ...rest, active }
}
