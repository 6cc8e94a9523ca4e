// The comparison operators of alert conditions (docs/alerts.md) over the values a condition reads: pure, never
// throwing. core/domain/alert-conditions.ts reads the operands; this file decides what each operator answers.
//
// Semantics, as the docs may quote them:
// - A term is one value (a data point's last value, a system field, a valueStr or valueNum) or a list (the system's
//   labels, its communication protocols, a valuesStr).
// - A missing value (no data point yet, a null field, a number that is NaN) makes every operator false, NOT_EQUALS
//   included: "temperature NOT_EQUALS 20" says nothing of a system that never sent a temperature, as AirVantage users
//   expect an alert only on a value that was reported. A list is never missing: an empty list is a value.
// - Two values are equal when both are numeric and equal as numbers (a number, or a string that is a decimal
//   literal, spaces around it allowed: valueStr "12" equals 12.0, "1e3" equals 1000, and so "2.10" equals "2.1",
//   as GTE and LTE would also say; "0x10", "Infinity" and "1.2.3" are not numeric); else, when one is a boolean,
//   when the other is that boolean or the string "true"/"false" in any case; else when their strings are exactly
//   the same (case and spaces count; a boolean never equals a number).
// - EQUALS, NOT_EQUALS: of two values, as above. With a list on one side, EQUALS holds when the value is an element
//   of the list and NOT_EQUALS when it is not (a system without labels is NOT_EQUALS any label). Two lists: false.
// - GT, GTE, LT, LTE: only when both values are numeric, as JavaScript compares numbers; false for any other value
//   (strings are not ordered) and for lists.
// - IN: the value equals an element of the list (valuesStr); a list on the left (labels) holds when any of its
//   elements is in the right-hand list; a single value on the right acts as a list of one.
// - CONTAINS: a string contains the other value's text (a number as JavaScript writes it; "" is in every string);
//   a list contains the value as an element (equality as above). A number or a boolean contains nothing.
import type { AlertOperator, AlertValue } from './alert-rule.js'
import { decimalOf } from './geo-polygon.js'

/** What one operand of a condition reads: one value, or a list of them. */
export type AlertTerm =
  | { list: false, value: AlertValue }
  | { list: true, values: readonly AlertValue[] }

/** The comparison operators: all but GEO_CONTAINS and NO_COMMUNICATION_FOR, which read no second value. */
export type ComparisonOperator = Exclude<AlertOperator, 'GEO_CONTAINS' | 'NO_COMMUNICATION_FOR'>

type Present = string | number | boolean

/** A value that counts (NaN is no measurement, so it counts as missing). */
export const isPresent = (v: AlertValue | undefined): v is Present =>
  v !== null && v !== undefined && !(typeof v === 'number' && Number.isNaN(v))

/** The number a value is, when it is one: a number, or a string that is a decimal literal. */
export function numericOf (v: Present): number | undefined {
  if (typeof v === 'number') return v
  return typeof v === 'string' ? decimalOf(v) : undefined
}

function booleanOf (v: Present): boolean | undefined {
  if (typeof v === 'boolean') return v
  if (typeof v !== 'string') return undefined
  const word = v.toLowerCase()
  return word === 'true' ? true : word === 'false' ? false : undefined
}

/** Whether two present values are equal (numbers, then booleans, then exact strings). */
export function sameValue (a: Present, b: Present): boolean {
  const na = numericOf(a)
  const nb = numericOf(b)
  if (na !== undefined && nb !== undefined) return na === nb
  if (typeof a === 'boolean' || typeof b === 'boolean') {
    const ba = booleanOf(a)
    return ba !== undefined && ba === booleanOf(b)
  }
  return typeof a !== 'boolean' && typeof b !== 'boolean' && String(a) === String(b)
}

const isMember = (v: Present, list: readonly AlertValue[]): boolean =>
  list.some((e) => isPresent(e) && sameValue(v, e))

function ordered (op: 'GT' | 'GTE' | 'LT' | 'LTE', a: Present, b: Present): boolean {
  const na = numericOf(a)
  const nb = numericOf(b)
  if (na === undefined || nb === undefined) return false
  switch (op) {
    case 'GT': return na > nb
    case 'GTE': return na >= nb
    case 'LT': return na < nb
    case 'LTE': return na <= nb
  }
}

function contains (left: AlertTerm, right: AlertTerm): boolean {
  if (right.list || !isPresent(right.value)) return false
  if (left.list) return isMember(right.value, left.values)
  if (typeof left.value !== 'string' || typeof right.value === 'boolean') return false
  return left.value.includes(String(right.value))
}

function isIn (left: AlertTerm, right: AlertTerm): boolean {
  const among = right.list ? right.values : [right.value]
  if (left.list) return left.values.some((v) => isPresent(v) && isMember(v, among))
  return isPresent(left.value) && isMember(left.value, among)
}

// A value's membership of a list, for EQUALS and NOT_EQUALS; undefined when there is no value to look for.
const membership = (term: AlertTerm, list: readonly AlertValue[]): boolean | undefined =>
  term.list || !isPresent(term.value) ? undefined : isMember(term.value, list)

// EQUALS and NOT_EQUALS: undefined when there is nothing to compare (a missing value, two lists).
function equality (left: AlertTerm, right: AlertTerm): boolean | undefined {
  if (left.list) return membership(right, left.values)
  if (right.list) return membership(left, right.values)
  return isPresent(left.value) && isPresent(right.value) ? sameValue(left.value, right.value) : undefined
}

/** Whether `left op right` holds (see the rules at the top of this file). */
export function compareTerms (op: ComparisonOperator, left: AlertTerm, right: AlertTerm): boolean {
  switch (op) {
    case 'EQUALS': return equality(left, right) === true
    case 'NOT_EQUALS': return equality(left, right) === false
    case 'IN': return isIn(left, right)
    case 'CONTAINS': return contains(left, right)
    case 'GT': case 'GTE': case 'LT': case 'LTE':
      return !left.list && !right.list && isPresent(left.value) && isPresent(right.value) &&
        ordered(op, left.value, right.value)
  }
}
