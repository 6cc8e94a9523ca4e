// The evaluator of alert rules' conditions (docs/alerts.md): given what is known of one system (AlertFacts), whether
// a rule's conditions hold and which values made them, which data ids a rule reads, whether time alone can change
// its answer, and what a change of answer does to the rule's alert. Pure: no store, no clock (facts.now is the time).
// It never throws on any facts or any condition; a condition it cannot read does not hold.
//
// Semantics, as the docs may quote them (the comparisons themselves: core/domain/alert-operators.ts; polygons:
// core/domain/geo-polygon.ts):
// - A rule holds when every one of its conditions holds (AND). A rule without conditions holds nothing.
// - Attributes: `DATA.<id>` the last value of data id <id> (a usage data id: this month's total), `system.id` (its
//   uid), `system.name`, `system.commStatus`, `system.lifeCycleState`, `system.lastCommDate` (ms since 1970, null
//   before the first communication), and two lists: `system.labels` and `system.comm.protocol` (the protocols of its
//   last communications). Any other name reads nothing, and its condition does not hold.
// - EQUALS, NOT_EQUALS, GT, GTE, LT, LTE, IN, CONTAINS take exactly two operands, compared in the order written
//   (`attribute GT 5`, or `5 LT attribute`).
// - GEO_CONTAINS: an attribute and a valueStr polygon (WKT). The position is the attribute's value ("lon,lat" or
//   "lon lat"); for `DATA._LON_LAT` with no value, the system's latitude and longitude (which _LATITUDE and
//   _LONGITUDE report). No position, or a text that is not a polygon: the condition does not hold.
// - NO_COMMUNICATION_FOR: a valueNum N (minutes, 0 or more; a decimal valueStr is read too) holds when the system
//   never communicated, or last did strictly before now - N minutes (exactly N minutes ago does not hold yet, as for
//   commStatus). It reads no data, only time: needsPeriodicCheck says so.
// - `attributes` lists, once per attribute name in the order first read, every attribute value the conditions read
//   that is not missing: numbers as valueNum, strings as valueStr, booleans as valueStr "true"/"false", lists as their
//   elements joined by ",", a GEO_CONTAINS position as "lon,lat". It is what an alert keeps as the values that made
//   it true.
import type { AlertAttribute, AlertCondition, AlertFacts, AlertOperand, AlertValue } from './alert-rule.js'
import { compareTerms, isPresent, numericOf, type AlertTerm, type ComparisonOperator } from './alert-operators.js'
import { parseLonLat, parseWktPolygon, polygonContains, type GeoPoint, type GeoPolygon } from './geo-polygon.js'

const DATA_PREFIX = 'DATA.'
const LON_LAT = '_LON_LAT'
/** The data ids whose points move the position a `DATA._LON_LAT` condition falls back on. */
const POSITION_DATA_IDS = [LON_LAT, '_LATITUDE', '_LONGITUDE']
const MINUTE_MS = 60_000

/** The outcome of a rule for one system: whether it holds, and the values its conditions read. */
export interface RuleEvaluation { holds: boolean, attributes: AlertAttribute[] }

interface ConditionOutcome { holds: boolean, read: AlertAttribute[] }

// Operands come from stored JSON: each is checked for its shape rather than trusted.
function attributeNameOf (operand: AlertOperand | null | undefined): string | undefined {
  const id = (operand as { attributeId?: { name?: unknown } | null } | null | undefined)?.attributeId
  return typeof id?.name === 'string' ? id.name : undefined
}

const dataIdOf = (name: string): string | undefined =>
  name.startsWith(DATA_PREFIX) && name.length > DATA_PREFIX.length ? name.slice(DATA_PREFIX.length) : undefined

function readAttribute (name: string, facts: AlertFacts): AlertTerm | undefined {
  const dataId = dataIdOf(name)
  if (dataId !== undefined) return { list: false, value: facts.data.get(dataId) ?? null }
  const s = facts.system
  switch (name) {
    case 'system.id': return { list: false, value: s.uid }
    case 'system.name': return { list: false, value: s.name }
    case 'system.commStatus': return { list: false, value: s.commStatus }
    case 'system.lifeCycleState': return { list: false, value: s.lifeCycleState }
    case 'system.lastCommDate': return { list: false, value: s.lastCommDate }
    case 'system.labels': return { list: true, values: s.labels }
    case 'system.comm.protocol': return { list: true, values: s.commProtocols }
    default: return undefined
  }
}

function termOf (operand: AlertOperand | null | undefined, facts: AlertFacts): AlertTerm | undefined {
  const name = attributeNameOf(operand)
  if (name !== undefined) return readAttribute(name, facts)
  const o = (operand ?? {}) as { valueStr?: unknown, valueNum?: unknown, valuesStr?: unknown }
  if (typeof o.valueStr === 'string') return { list: false, value: o.valueStr }
  if (typeof o.valueNum === 'number') return { list: false, value: o.valueNum }
  if (Array.isArray(o.valuesStr)) return { list: true, values: o.valuesStr.filter((v) => typeof v === 'string') }
  return undefined
}

function attributeOf (name: string, term: AlertTerm): AlertAttribute | undefined {
  if (term.list) return { id: { name }, value: { valueStr: term.values.filter(isPresent).map(String).join(',') } }
  const v = term.value
  if (!isPresent(v)) return undefined
  return { id: { name }, value: typeof v === 'number' ? { valueNum: v } : { valueStr: String(v) } }
}

function compare (op: ComparisonOperator, operands: readonly AlertOperand[], facts: AlertFacts): ConditionOutcome {
  if (operands.length !== 2) return { holds: false, read: [] }
  const read: AlertAttribute[] = []
  const terms: AlertTerm[] = []
  for (const operand of operands) {
    const term = termOf(operand, facts)
    if (term === undefined) return { holds: false, read }
    const name = attributeNameOf(operand)
    const attribute = name === undefined ? undefined : attributeOf(name, term)
    if (attribute !== undefined) read.push(attribute)
    terms.push(term)
  }
  const [left, right] = terms as [AlertTerm, AlertTerm]
  return { holds: compareTerms(op, left, right), read }
}

// Rules are evaluated again at each point; a polygon is parsed once per text (bounded, so that rules edited over
// months cannot grow it without end).
const POLYGONS = new Map<string, GeoPolygon | null>()
const POLYGONS_KEPT = 512

function polygonOf (wkt: string): GeoPolygon | undefined {
  let polygon = POLYGONS.get(wkt)
  if (polygon === undefined) {
    if (POLYGONS.size >= POLYGONS_KEPT) POLYGONS.clear()
    polygon = parseWktPolygon(wkt) ?? null
    POLYGONS.set(wkt, polygon)
  }
  return polygon ?? undefined
}

function positionOf (name: string, facts: AlertFacts): { point: GeoPoint, text: string } | undefined {
  const dataId = dataIdOf(name)
  if (dataId === undefined) return undefined
  const value: AlertValue | undefined = facts.data.get(dataId)
  if (isPresent(value)) {
    const point = typeof value === 'string' ? parseLonLat(value) : undefined
    return point === undefined ? undefined : { point, text: value as string }
  }
  const { latitude: lat, longitude: lon } = facts.system
  if (dataId !== LON_LAT || lat === null || lon === null || !Number.isFinite(lat) || !Number.isFinite(lon)) return undefined
  return { point: { lon, lat }, text: `${lon},${lat}` }
}

function geoContains (operands: readonly AlertOperand[], facts: AlertFacts): ConditionOutcome {
  const name = operands.map(attributeNameOf).find((n) => n !== undefined)
  const wkt = operands.map((o) => (o as { valueStr?: unknown } | null)?.valueStr).find((v) => typeof v === 'string')
  const position = name === undefined ? undefined : positionOf(name, facts)
  if (name === undefined || position === undefined) return { holds: false, read: [] }
  const read = [{ id: { name }, value: { valueStr: position.text } }]
  const polygon = typeof wkt === 'string' ? polygonOf(wkt) : undefined
  return { holds: polygon !== undefined && polygonContains(polygon, position.point), read }
}

function minutesOf (operands: readonly AlertOperand[]): number | undefined {
  for (const operand of operands) {
    const o = (operand ?? {}) as { valueStr?: unknown, valueNum?: unknown }
    const v = typeof o.valueNum === 'number' ? o.valueNum : typeof o.valueStr === 'string' ? numericOf(o.valueStr) : undefined
    if (v !== undefined) return Number.isFinite(v) && v >= 0 ? v : undefined
  }
  return undefined
}

function noCommunicationFor (operands: readonly AlertOperand[], facts: AlertFacts): ConditionOutcome {
  const minutes = minutesOf(operands)
  const last = facts.system.lastCommDate
  const read = last === null ? [] : [{ id: { name: 'system.lastCommDate' }, value: { valueNum: last } }]
  if (minutes === undefined) return { holds: false, read }
  return { holds: last === null || last < facts.now - minutes * MINUTE_MS, read }
}

function evaluateCondition (condition: AlertCondition, facts: AlertFacts): ConditionOutcome {
  const operands = Array.isArray(condition?.operands) ? condition.operands : []
  switch (condition?.operator) {
    case 'GEO_CONTAINS': return geoContains(operands, facts)
    case 'NO_COMMUNICATION_FOR': return noCommunicationFor(operands, facts)
    case 'EQUALS': case 'NOT_EQUALS': case 'GT': case 'GTE': case 'LT': case 'LTE': case 'IN': case 'CONTAINS':
      return compare(condition.operator, operands, facts)
    default: return { holds: false, read: [] }
  }
}

/** Whether all the conditions hold for the system the facts describe, and the attribute values they read. */
export function evaluateRule (conditions: readonly AlertCondition[], facts: AlertFacts): RuleEvaluation {
  const attributes: AlertAttribute[] = []
  const seen = new Set<string>()
  let holds = conditions.length > 0
  // Every condition is read, even after one fails, so that the values listed do not depend on the conditions' order.
  for (const condition of conditions) {
    const outcome = evaluateCondition(condition, facts)
    holds &&= outcome.holds
    for (const attribute of outcome.read) {
      if (seen.has(attribute.id.name)) continue
      seen.add(attribute.id.name)
      attributes.push(attribute)
    }
  }
  return { holds, attributes }
}

const attributeNamesOf = (conditions: readonly AlertCondition[]): string[] =>
  conditions.flatMap((c) => (Array.isArray(c?.operands) ? c.operands : []).map(attributeNameOf))
    .filter((n): n is string => n !== undefined)

/**
 * The data ids whose new points may change the rule's answer (the index the store keeps), each once: those its
 * `DATA.<id>` attributes name, and for a GEO_CONTAINS on `DATA._LON_LAT` also _LATITUDE and _LONGITUDE, as the
 * position falls back on them.
 */
export function dataIdsOf (conditions: readonly AlertCondition[]): string[] {
  const ids = new Set<string>()
  for (const name of attributeNamesOf(conditions)) {
    const id = dataIdOf(name)
    if (id !== undefined) ids.add(id)
  }
  const geo = conditions.some((c) => c?.operator === 'GEO_CONTAINS' &&
    (Array.isArray(c.operands) ? c.operands : []).some((o) => attributeNameOf(o) === DATA_PREFIX + LON_LAT))
  if (geo) for (const id of POSITION_DATA_IDS) ids.add(id)
  return [...ids]
}

/**
 * Whether the rule reads a field of its system besides the uid (name, states, labels, protocols, last communication,
 * or the position a GEO_CONTAINS falls back on): the ingest reads a system's row only for such rules.
 */
export function readsSystemFields (conditions: readonly AlertCondition[]): boolean {
  return conditions.some((c) => c?.operator === 'NO_COMMUNICATION_FOR' || c?.operator === 'GEO_CONTAINS') ||
    attributeNamesOf(conditions).some((n) => n.startsWith('system.') && n !== 'system.id')
}

/** Whether the rule's answer can change with no point arriving (silence, commStatus), so a periodic job checks it. */
export function needsPeriodicCheck (conditions: readonly AlertCondition[]): boolean {
  return conditions.some((c) => c?.operator === 'NO_COMMUNICATION_FOR') ||
    attributeNamesOf(conditions).some((n) => n === 'system.commStatus' || n === 'system.lastCommDate')
}

/**
 * What a new answer of a rule for one system does to its alert, given the previous answer (undefined: never
 * evaluated for it). The conventions' words: a stateful rule "makes one alert when they become true and closes it
 * when they become false"; a stateless one "makes an alert each time its conditions become true". So both open on
 * becoming true (a first answer that is true counts), neither opens again while the answer stays true, and only a
 * stateful rule closes. A stateless rule's state must still be kept, to tell "becomes true" from "is still true".
 */
export function transition (previous: boolean | undefined, now: boolean, stateful: boolean): 'open' | 'close' | 'none' {
  if (now) return previous === true ? 'none' : 'open'
  return stateful && previous === true ? 'close' : 'none'
}
