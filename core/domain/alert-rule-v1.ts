// AirVantage's v1 alert rules, as airvantage.js sends them to /api/v1/alerts/rules, read onto the one kind of rule
// the service keeps (the v2 rule, docs/alerts.md#v1-rules). A v1 condition `{eventProperty, eventPropertyKey,
// operator, value}` is the v2 condition `{operator, operands: [attribute, value]}`; the v1 rule's description is the
// v2 message and its recipients.emails the v2 emails. The mapping goes both ways, so every v2 rule has a v1 view.
import type { AlertCondition, AlertOperand, AlertRule } from './alert-rule.js'
import { invalid, isRecord } from './alert-condition-validate.js'

/** A v1 condition: the property of the event (`eventPropertyKey` a data id for `data`), an operator, a value. */
export interface AlertConditionV1 {
  eventProperty: string | null
  eventPropertyKey: string | null
  operator: string
  value: string | number | string[] | null
}

export interface AlertRuleV1 {
  uid: string
  name: string
  description: string | null
  active: boolean
  stateful: boolean
  conditions: AlertConditionV1[]
  recipients: { emails: string[] }
}

// v1 property names that are not v2 attribute names; any other property is taken as a v2 attribute name.
const PROTOCOL_V1 = 'communication.protocol'
const PROTOCOL_V2 = 'system.comm.protocol'
const DATA_V1 = 'data'
const DATA_PREFIX = 'DATA.'

const given = (v: unknown): boolean => v !== undefined && v !== null

function attributeOf (raw: Record<string, unknown>, at: string): AlertOperand | null {
  const property = raw.eventProperty
  if (!given(property)) return null
  if (typeof property !== 'string') throw invalid(`${at}.eventProperty`, 'a property name')
  if (property === PROTOCOL_V1) return { attributeId: { name: PROTOCOL_V2 } }
  if (property !== DATA_V1) return { attributeId: { name: property } }
  const key = raw.eventPropertyKey
  if (typeof key !== 'string' || key === '') throw invalid(`${at}.eventPropertyKey`, 'the data id, with eventProperty data')
  return { attributeId: { name: `${DATA_PREFIX}${key}` } }
}

function valueOf (v: unknown, at: string): AlertOperand | null {
  if (!given(v)) return null
  if (typeof v === 'number') return { valueNum: v }
  if (typeof v === 'string') return { valueStr: v }
  if (Array.isArray(v)) return { valuesStr: v as string[] }
  throw invalid(`${at}.value`, 'a string, a number or an array of strings')
}

/** A v1 condition as a v2 one: what it names, then its value (either may be absent: NO_COMMUNICATION_FOR has no property). */
function conditionOf (raw: unknown, i: number): unknown {
  const at = `conditions[${i}]`
  if (!isRecord(raw)) throw invalid(at, 'an object with eventProperty, eventPropertyKey, operator, value')
  const operands = [attributeOf(raw, at), valueOf(raw.value, at)].filter((o) => o !== null)
  return { operator: raw.operator, operands }
}

/**
 * The v2 body a v1 body stands for, over `base` (an edit changes only what it names; a creation starts from nothing).
 * The result is checked as any v2 body is (core/domain/alert-rule-validate.ts).
 * @throws alert.rule.invalid: a v1 field of the wrong kind (named as sent)
 */
export function v2BodyOf (body: unknown, base: Partial<AlertRule> = {}): Record<string, unknown> {
  const v1 = isRecord(body) ? body : {}
  const out: Record<string, unknown> = { ...base }
  if (given(v1.name)) out.name = v1.name
  if (given(v1.description)) out.message = v1.description
  if (given(v1.active)) out.active = v1.active
  if (given(v1.stateful)) out.stateful = v1.stateful
  if (given(v1.recipients)) {
    if (!isRecord(v1.recipients)) throw invalid('recipients', 'an object with emails')
    out.emails = v1.recipients.emails
  }
  if (given(v1.conditions)) {
    if (!Array.isArray(v1.conditions)) throw invalid('conditions', 'an array of conditions')
    out.conditions = v1.conditions.map(conditionOf)
  }
  return out
}

function conditionV1 (c: AlertCondition): AlertConditionV1 {
  const out: AlertConditionV1 = { eventProperty: null, eventPropertyKey: null, operator: c.operator, value: null }
  for (const o of c.operands) {
    if ('attributeId' in o) {
      const name = o.attributeId.name
      if (name === PROTOCOL_V2) out.eventProperty = PROTOCOL_V1
      else if (name.startsWith(DATA_PREFIX)) [out.eventProperty, out.eventPropertyKey] = [DATA_V1, name.slice(DATA_PREFIX.length)]
      else out.eventProperty = name
    } else if ('valueStr' in o) out.value = o.valueStr
    else if ('valueNum' in o) out.value = o.valueNum
    else out.value = [...o.valuesStr]
  }
  return out
}

/** The v1 view of a rule (v2 fields with no v1 counterpart, such as actions, are left out). */
export function v1ViewOf (rule: AlertRule): AlertRuleV1 {
  return {
    uid: rule.uid,
    name: rule.name,
    description: rule.message,
    active: rule.active,
    stateful: rule.stateful,
    conditions: rule.conditions.map(conditionV1),
    recipients: { emails: [...rule.emails] }
  }
}
