// The systems an alert rule is pinned to (decision 0032): a condition `system.id EQUALS x` or `system.id IN [...]`
// makes the rule false for every other system, so the store finds the rule only by those systems' points. Pure, and
// conservative: where the evaluator might still match another system, the rule is not pinned.
import type { AlertCondition, AlertOperand } from './alert-rule.js'
import { numericOf } from './alert-operators.js'

const SYSTEM_ID = 'system.id'

const isSystemId = (o: AlertOperand | null | undefined): boolean =>
  (o as { attributeId?: { name?: unknown } | null } | null | undefined)?.attributeId?.name === SYSTEM_ID

// A value compared with system.id: uids are compared as numbers when both sides are decimal texts
// (core/domain/alert-operators.ts), so a decimal value could equal a uid written otherwise; such a value pins nothing.
function exactTexts (values: readonly unknown[]): string[] | undefined {
  if (!values.every((v) => typeof v === 'string' && numericOf(v) === undefined)) return undefined
  return values as string[]
}

/**
 * The uids one condition allows, or undefined when it does not pin the rule. EQUALS and IN mean the same here, in
 * either order: system.id is one of the values (a valueStr, or the elements of a valuesStr).
 */
function pinOf (c: AlertCondition): string[] | undefined {
  const operands = Array.isArray(c?.operands) ? c.operands : []
  if ((c?.operator !== 'EQUALS' && c?.operator !== 'IN') || operands.length !== 2 || !operands.some(isSystemId)) return undefined
  const other = (operands.find((o) => !isSystemId(o)) ?? {}) as { valueStr?: unknown, valuesStr?: unknown }
  if (typeof other.valueStr === 'string') return exactTexts([other.valueStr])
  return Array.isArray(other.valuesStr) ? exactTexts(other.valuesStr) : undefined
}

/**
 * The uids of the only systems for which the rule's conditions can hold, each once, sorted; null when any system of
 * the company can. Several pinning conditions (all must hold) leave the systems they all name: possibly none.
 */
export function pinnedSystemsOf (conditions: readonly AlertCondition[]): string[] | null {
  let pinned: Set<string> | undefined
  for (const c of Array.isArray(conditions) ? conditions : []) {
    const uids = pinOf(c)
    if (uids === undefined) continue
    pinned = pinned === undefined ? new Set(uids) : new Set(uids.filter((u) => pinned?.has(u) === true))
  }
  return pinned === undefined ? null : [...pinned].sort()
}
