// What a live stream client may send (GET /api/v1/stream; docs/stream.md): JSON text messages,
// each one command. Parsed here, without I/O, so that any input is either a command or a FleetError with the API's
// codes (docs/api.md#using-the-api), never an exception of another kind (test/unit/stream/commands.test.ts fuzzes it).
import { FleetError } from '../../errors.js'
import { ACTIVITY_STATES, COMM_STATUSES, LIFE_CYCLE_STATES, SYNC_STATUSES, SYSTEM_STATES } from '../../domain/system.js'
import { DATE_BOUNDS } from '../../domain/system-criteria.js'
import { criteriaFromQuery, type SystemFindQuery } from '../systems/find.js'

/** docs/api.md#limits: a selection names at most 100 distinct uids. */
export const MAX_UIDS = 100
export const MAX_DATA_IDS = 100
/** A uid or a label is never longer than a path segment (api/plugins/error-handler.ts MAX_PATH_PARAM_LENGTH). */
const MAX_NAME = 100
const MAX_TEXT = 1000
/** The client's own name of a subscription, echoed in the answers. */
const MAX_REF = 100

/** Which systems a subscription follows (docs/api.md#systems for the criteria). */
export type SystemsTarget =
  | { by: 'uids', uids: string[] }
  | { by: 'label', label: string }
  | { by: 'criteria', criteria: SystemFindQuery }

export type OperationsTarget = { by: 'uids', uids: string[] } | { by: 'all' }

export type StreamCommand =
  | { action: 'subscribe', ref: string | null, systems: SystemsTarget, dataIds: string[] | null }
  | { action: 'subscribe', ref: string | null, operations: OperationsTarget }
  | { action: 'unsubscribe', ref: string | null, subscription: string }

type Obj = Record<string, unknown>

const invalid = (where: string, how: string): FleetError => new FleetError('request.invalid', [where, how])

function isObject (v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** Only these keys: an unknown one (a typo, `company`) would otherwise be ignored and widen what is followed. */
function onlyKeys (where: string, o: Obj, keys: readonly string[]): void {
  for (const k of Object.keys(o)) if (!keys.includes(k)) throw invalid(`${where}${where === '' ? '' : '.'}${k}`, `unknown key; keys: ${keys.join(', ')}`)
}

/** Text as the store takes it: no NUL byte (docs/api.md#using-the-api: refused with request.invalid), a bounded length.
 */
function text (where: string, v: unknown, max: number): string {
  if (typeof v !== 'string' || v === '') throw invalid(where, 'must be a non-empty string')
  if (v.length > max) throw invalid(where, `at most ${max} characters`)
  if (v.includes('\u0000')) throw invalid(where, 'must not contain a NUL character')
  return v
}

function texts (where: string, v: unknown, max: number, maxLength: number): string[] {
  if (!Array.isArray(v)) throw invalid(where, 'must be an array of strings')
  if (v.length > max) throw invalid(where, `at most ${max} entries`)
  return v.map((x, i) => text(`${where}[${i}]`, x, maxLength))
}

const ENUMS: Record<string, readonly string[]> = {
  states: SYSTEM_STATES,
  lifeCycleStates: LIFE_CYCLE_STATES,
  activityStates: ACTIVITY_STATES,
  commStatus: COMM_STATUSES,
  syncStatus: SYNC_STATUSES,
  usageStatus: ['WITHIN_PLAN', 'NEARING_PLAN', 'EXCEEDING_PLAN']
}
const LISTS = ['uid', 'labels', 'states', 'lifeCycleStates', 'activityStates', 'metadata', 'commStatus', 'syncStatus', 'application', 'gateway', 'subscription', 'data', 'options', 'notOptions']
const STRINGS = ['name', 'lastAppliedTemplate', 'lastConfigName', 'type', 'usageStatus', 'offer', 'notOffer']
export const CRITERIA_KEYS: readonly string[] = [...LISTS, ...STRINGS, ...DATE_BOUNDS]
/** What a timestamp may be (docs/api.md#using-the-api: beyond ±8.64·10^18 is refused). */
const MAX_TIME = 8.64e18

/**
 * The filters of GET /api/v1/systems, written as a JSON object of the same names and values (lists as arrays or
 * comma-separated text, map parameters as `key:value` text, timestamps as numbers); paging, sort, fields and
 * `company` are not filters and are refused. Enum values answer unknown.enum.value as the query does.
 */
function criteria (where: string, v: unknown): SystemFindQuery {
  if (!isObject(v)) throw invalid(where, 'must be an object of GET /api/v1/systems filters')
  onlyKeys(where, v, CRITERIA_KEYS)
  const out: Obj = {}
  for (const [k, value] of Object.entries(v)) {
    const at = `${where}.${k}`
    if ((DATE_BOUNDS as readonly string[]).includes(k)) {
      if (typeof value !== 'number' || !Number.isInteger(value) || Math.abs(value) > MAX_TIME) throw invalid(at, 'must be an integer timestamp (ms)')
      out[k] = value
      continue
    }
    const values = LISTS.includes(k) ? (Array.isArray(value) ? texts(at, value, MAX_UIDS * 10, MAX_TEXT) : text(at, value, MAX_TEXT)) : text(at, value, MAX_TEXT)
    const allowed = ENUMS[k]
    if (allowed !== undefined) {
      for (const one of (Array.isArray(values) ? values : [values]).flatMap((s) => s.split(','))) {
        if (!allowed.includes(one.trim())) throw new FleetError('unknown.enum.value', [at, `must be one of ${allowed.join(', ')}`])
      }
    }
    out[k] = values
  }
  // The map parameters' keys and `key:value` syntax, as GET /api/v1/systems checks them (request.invalid).
  criteriaFromQuery(out as SystemFindQuery)
  return out as SystemFindQuery
}

/** docs/operations.md#bulk-operations: exactly one of its ways, else selection.invalid; uids capped as a selection's.
 */
function systemsTarget (v: unknown): SystemsTarget {
  if (!isObject(v)) throw invalid('systems', 'must be an object with one of uids, label, criteria')
  onlyKeys('systems', v, ['uids', 'label', 'criteria'])
  const given = ['uids', 'label', 'criteria'].filter((k) => v[k] !== undefined)
  if (given.length !== 1) throw new FleetError('selection.invalid', ['systems', 'exactly one of uids, label, criteria'])
  if (v.uids !== undefined) return { by: 'uids', uids: uids('systems.uids', v.uids) }
  if (v.label !== undefined) return { by: 'label', label: text('systems.label', v.label, MAX_NAME) }
  return { by: 'criteria', criteria: criteria('systems.criteria', v.criteria) }
}

function uids (where: string, v: unknown): string[] {
  if (!Array.isArray(v)) throw invalid(where, 'must be an array of uids')
  const distinct = [...new Set(v.map((x, i) => text(`${where}[${i}]`, x, MAX_NAME)))]
  if (distinct.length === 0) throw new FleetError('selection.empty', [where])
  if (distinct.length > MAX_UIDS) throw new FleetError('selection.max.uid.reached', [String(distinct.length), `at most ${MAX_UIDS} distinct uids`])
  return distinct
}

function operationsTarget (v: unknown): OperationsTarget {
  if (!isObject(v)) throw invalid('operations', 'must be an object with uids, or all: true')
  onlyKeys('operations', v, ['uids', 'all'])
  if ((v.uids === undefined) === (v.all === undefined)) throw new FleetError('selection.invalid', ['operations', 'exactly one of uids, all'])
  if (v.all !== undefined) {
    if (v.all !== true) throw invalid('operations.all', 'must be true')
    return { by: 'all' }
  }
  return { by: 'uids', uids: uids('operations.uids', v.uids) }
}

/** The `ref` of a message, when it has a usable one: echoed in the error that refuses the message. */
export function refOf (raw: string): string | null {
  try {
    const msg: unknown = JSON.parse(raw)
    return isObject(msg) && typeof msg.ref === 'string' && msg.ref.length <= MAX_REF && !msg.ref.includes('\u0000') ? msg.ref : null
  } catch {
    return null
  }
}

/**
 * One client message to its command.
 * @throws FleetError request.invalid, unknown.enum.value, selection.invalid, selection.empty, selection.max.uid.reached
 */
export function parseCommand (raw: string): StreamCommand {
  let msg: unknown
  try { msg = JSON.parse(raw) } catch { throw invalid('message', 'must be JSON') }
  if (!isObject(msg)) throw invalid('message', 'must be a JSON object with an action')
  const ref = msg.ref === undefined || msg.ref === null ? null : text('ref', msg.ref, MAX_REF)
  if (msg.action === 'unsubscribe') {
    onlyKeys('', msg, ['action', 'ref', 'subscription'])
    return { action: 'unsubscribe', ref, subscription: text('subscription', msg.subscription, MAX_NAME) }
  }
  if (msg.action !== 'subscribe') throw invalid('action', 'must be subscribe or unsubscribe')
  if ((msg.systems === undefined) === (msg.operations === undefined)) throw new FleetError('selection.invalid', ['subscribe', 'exactly one of systems, operations'])
  if (msg.operations !== undefined) {
    onlyKeys('', msg, ['action', 'ref', 'operations'])
    return { action: 'subscribe', ref, operations: operationsTarget(msg.operations) }
  }
  onlyKeys('', msg, ['action', 'ref', 'systems', 'dataIds'])
  const dataIds = msg.dataIds === undefined || msg.dataIds === null ? null : texts('dataIds', msg.dataIds, MAX_DATA_IDS, MAX_TEXT)
  return { action: 'subscribe', ref, systems: systemsTarget(msg.systems), dataIds }
}
