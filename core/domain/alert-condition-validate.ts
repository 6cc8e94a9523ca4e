// The conditions of an alert rule as a client sends them (docs/alerts.md#operators), checked and made the stored
// shape: each operand reduced to its one kind (AirVantage clients send every kind, the unused ones null).
import { FleetError } from '../errors.js'
import type { AlertCondition, AlertOperand, AlertOperator } from './alert-rule.js'
import { parseWktPolygon } from './geo-polygon.js'

export const invalid = (field: string, why: string): FleetError => new FleetError('alert.rule.invalid', [field, why])

const BINARY = ['EQUALS', 'NOT_EQUALS', 'GT', 'GTE', 'LT', 'LTE', 'CONTAINS'] as const
const OPERATORS: readonly AlertOperator[] = [...BINARY, 'IN', 'GEO_CONTAINS', 'NO_COMMUNICATION_FOR']

const SYSTEM_ATTRIBUTES = new Set(['system.id', 'system.name', 'system.commStatus', 'system.lifeCycleState', 'system.labels',
  'system.comm.protocol', 'system.lastCommDate'])
/** `DATA.<data id>`: a data id is a path of the application model, no spaces. */
const DATA_ATTRIBUTE = /^DATA\.[^\s]{1,255}$/

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

type Kind = 'attributeId' | 'valueStr' | 'valueNum' | 'valuesStr'
const KINDS: readonly Kind[] = ['attributeId', 'valueStr', 'valueNum', 'valuesStr']

/** One operand: exactly one non-null kind, well formed. */
function operand (raw: unknown, at: string): AlertOperand {
  if (!isRecord(raw)) throw invalid(at, 'an object with one of attributeId, valueStr, valueNum, valuesStr')
  const kinds = KINDS.filter((k) => raw[k] !== null && raw[k] !== undefined)
  if (kinds.length !== 1) throw invalid(at, 'exactly one of attributeId, valueStr, valueNum, valuesStr')
  const v = raw[kinds[0] as Kind]
  switch (kinds[0]) {
    case 'attributeId': {
      if (!isRecord(v) || typeof v.name !== 'string') throw invalid(`${at}.attributeId.name`, 'an attribute name')
      if (!SYSTEM_ATTRIBUTES.has(v.name) && !DATA_ATTRIBUTE.test(v.name)) throw invalid(`${at}.attributeId.name`, `unknown attribute ${v.name.slice(0, 100)}`)
      for (const k of ['targetId', 'filter'] as const) {
        if (v[k] !== undefined && v[k] !== null && typeof v[k] !== 'string') throw invalid(`${at}.attributeId.${k}`, 'a string')
      }
      return { attributeId: { name: v.name, ...(typeof v.targetId === 'string' ? { targetId: v.targetId } : {}), ...(typeof v.filter === 'string' ? { filter: v.filter } : {}) } }
    }
    case 'valueStr':
      if (typeof v !== 'string') throw invalid(`${at}.valueStr`, 'a string')
      return { valueStr: v }
    case 'valueNum':
      if (typeof v !== 'number' || !Number.isFinite(v)) throw invalid(`${at}.valueNum`, 'a number')
      return { valueNum: v }
    default:
      if (!Array.isArray(v) || v.length === 0 || !v.every((s) => typeof s === 'string')) throw invalid(`${at}.valuesStr`, 'a non-empty array of strings')
      return { valuesStr: v as string[] }
  }
}

const kindOf = (o: AlertOperand): Kind => Object.keys(o)[0] as Kind

/** Operands an operator takes: one attribute and one value of the kinds it compares with. */
function checkShape (operator: AlertOperator, operands: AlertOperand[], at: string): void {
  const kinds = operands.map(kindOf)
  const count = (k: Kind): number => kinds.filter((x) => x === k).length
  const expect = (ok: boolean, why: string): void => { if (!ok) throw invalid(`${at}.operands`, why) }
  if (operator === 'NO_COMMUNICATION_FOR') {
    expect(count('valueNum') === 1 && count('attributeId') <= 1 && kinds.length === count('valueNum') + count('attributeId'), 'NO_COMMUNICATION_FOR takes one valueNum (minutes), optionally an attributeId')
    const minutes = operands.find((o): o is { valueNum: number } => 'valueNum' in o)?.valueNum ?? 0
    if (minutes <= 0) throw invalid(`${at}.operands[${kinds.indexOf('valueNum')}].valueNum`, 'a positive number of minutes')
    return
  }
  expect(kinds.length === 2 && count('attributeId') === 1, `${operator} takes one attributeId and one value`)
  if (operator === 'IN') return expect(count('valuesStr') === 1, 'IN compares with valuesStr')
  if (operator === 'GEO_CONTAINS') {
    expect(count('valueStr') === 1, 'GEO_CONTAINS compares with a valueStr (a WKT POLYGON)')
    const i = kinds.indexOf('valueStr')
    const wkt = (operands[i] as { valueStr: string }).valueStr
    if (parseWktPolygon(wkt) === undefined) throw invalid(`${at}.operands[${i}].valueStr`, 'a WKT POLYGON((lon lat, ...)) with closed rings of 4 points or more')
    return
  }
  expect(count('valueStr') + count('valueNum') === 1, `${operator} compares with a valueStr or a valueNum`)
}

/** The rule's conditions, all of which must hold: at least one. @throws alert.rule.invalid naming the field */
export function validConditions (raw: unknown): AlertCondition[] {
  if (!Array.isArray(raw) || raw.length === 0) throw invalid('conditions', 'at least one condition')
  return raw.map((c, i): AlertCondition => {
    const at = `conditions[${i}]`
    if (!isRecord(c)) throw invalid(at, 'an object with operator and operands')
    const operator = c.operator
    if (typeof operator !== 'string' || !OPERATORS.includes(operator as AlertOperator)) throw invalid(`${at}.operator`, `one of ${OPERATORS.join(', ')}`)
    if (!Array.isArray(c.operands)) throw invalid(`${at}.operands`, 'an array of operands')
    const operands = c.operands.map((o, j) => operand(o, `${at}.operands[${j}]`))
    checkShape(operator as AlertOperator, operands, at)
    return { operator: operator as AlertOperator, operands }
  })
}
