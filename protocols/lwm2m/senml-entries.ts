// SenML records ↔ typed LwM2M values (OMA-TS-LightweightM2M-Core 1.1 §7.4.4 SenML JSON, §7.4.5 SenML CBOR; 1.0
// §6.4.4 for the LwM2M JSON that shares the mapping). A record's name is the base name so far followed by its own
// name (RFC 8428 §4.5.1), and must be a resource or resource instance path under the path that was read. Values:
// numbers (Integer, Unsigned Integer, Float, Time in seconds) in `v`, Boolean `vb`, String and Corelnk `vs`, Opaque
// `vd`, Objlnk `vlo` ("3:0"). The LwM2M JSON of 1.0 carries Opaque as base64 text in its string value.
import { resourceAt, type ObjectRegistry } from './objects/registry.js'
import { formatPath, isUnder, pathDepth, pathIds, parsePath } from './path.js'
import { RELATIVE_TIME_LIMIT, VALUE_FIELDS, type SenmlRecord } from './senml-record.js'
import {
  INT64_MAX, INT64_MIN, UINT64_MAX, asBigInt, decodeBase64, formatObjectLink, integerValue, parseObjectLink,
  timeFromSeconds
} from './values.js'
import type { Decoded, LwM2mEntry, LwM2mPath, LwM2mValue, ObjectLink, ValueType } from './types.js'

export interface SenmlReadOptions {
  /** The client's alternate root path (`/lwm2m`), stripped from names that start with it. */
  rootPath?: string
  /** Now, in seconds since the epoch: the origin of relative times (RFC 8428 §4.5.3). Default: the clock. */
  now?: number
  /** LwM2M 1.0 JSON: `bt` present makes `bt + t` absolute, Opaque travels as base64 in `vs`. */
  legacyJson?: boolean
}

const MISMATCH = { ok: false, reason: 'lwm2m.senml.type.mismatch' } as const

function inferType (rec: SenmlRecord): ValueType {
  if (rec.vs !== undefined) return 'String'
  if (rec.vb !== undefined) return 'Boolean'
  if (rec.vd !== undefined) return 'Opaque'
  if (rec.vlo !== undefined) return 'Objlnk'
  const v = rec.v!
  if (typeof v === 'bigint') return v > INT64_MAX ? 'Unsigned Integer' : 'Integer'
  return Number.isInteger(v) ? 'Integer' : 'Float'
}

function integerOf (v: number | bigint | undefined, min: bigint, max: bigint): Decoded<{ value: LwM2mValue }> {
  const n = asBigInt(v)
  return n === undefined || n < min || n > max ? MISMATCH : { ok: true, value: integerValue(n) }
}

function typedValue (type: ValueType, rec: SenmlRecord, legacy: boolean): Decoded<{ value: LwM2mValue }> {
  switch (type) {
    case 'String':
    case 'Corelnk':
      return rec.vs !== undefined ? { ok: true, value: rec.vs } : MISMATCH
    case 'Boolean':
      return rec.vb !== undefined ? { ok: true, value: rec.vb } : MISMATCH
    case 'Opaque': {
      if (rec.vd !== undefined) return { ok: true, value: Buffer.from(rec.vd) }
      const bytes = legacy && rec.vs !== undefined ? decodeBase64(rec.vs) : undefined
      return bytes !== undefined ? { ok: true, value: bytes } : MISMATCH
    }
    case 'Objlnk': {
      const link = rec.vlo !== undefined ? parseObjectLink(rec.vlo) : undefined
      return link !== undefined ? { ok: true, value: link } : MISMATCH
    }
    case 'Integer':
      return integerOf(rec.v, INT64_MIN, INT64_MAX)
    case 'Unsigned Integer':
      return integerOf(rec.v, 0n, UINT64_MAX)
    case 'Float':
      return rec.v !== undefined ? { ok: true, value: Number(rec.v) } : MISMATCH
    case 'Time': {
      const d = rec.v !== undefined ? timeFromSeconds(rec.v) : undefined
      return d !== undefined ? { ok: true, value: d } : MISMATCH
    }
  }
}

function pathOf (name: string, rootPath: string | undefined): Decoded<{ path: LwM2mPath }> {
  let text = name
  if (rootPath !== undefined && rootPath !== '/' && text.startsWith(rootPath + '/')) text = text.slice(rootPath.length)
  if (!text.startsWith('/')) text = '/' + text // the 1.0 JSON examples write `1024/0/` as well as `/1024/0/`
  const parsed = parsePath(text)
  if (!parsed.ok || pathDepth(parsed.path) < 3) return { ok: false, reason: 'lwm2m.senml.path.invalid' }
  return parsed
}

interface Running { bn: string, bt?: number, bv?: number }

function timeOf (run: Running, rec: SenmlRecord, options: SenmlReadOptions): number | undefined {
  if (run.bt === undefined && rec.t === undefined) return undefined
  const t = (run.bt ?? 0) + (rec.t ?? 0)
  const absolute = (options.legacyJson === true && run.bt !== undefined) || t >= RELATIVE_TIME_LIMIT
  const seconds = absolute ? t : (options.now ?? Date.now() / 1000) + t
  return Math.round(seconds * 1000)
}

function entryOf (run: Running, rec: SenmlRecord, requested: LwM2mPath | null, registry: ObjectRegistry,
  options: SenmlReadOptions): Decoded<{ entry: LwM2mEntry }> {
  const present = VALUE_FIELDS.filter((f) => rec[f] !== undefined).length
  if (present === 0) return { ok: false, reason: 'lwm2m.senml.no.value' }
  if (present > 1) return { ok: false, reason: 'lwm2m.senml.invalid' }
  const named = pathOf(run.bn + (rec.n ?? ''), options.rootPath)
  if (!named.ok) return named
  if (requested !== null && !isUnder(named.path, requested)) return { ok: false, reason: 'lwm2m.senml.path.outside' }
  const model = resourceAt(named.path, registry)
  if (model?.type === 'none') return MISMATCH
  const type = model?.type ?? inferType(rec)
  const withBase = run.bv !== undefined && rec.v !== undefined ? { ...rec, v: Number(rec.v) + run.bv } : rec
  const typed = typedValue(type, withBase, options.legacyJson === true)
  if (!typed.ok) return typed
  const entry: LwM2mEntry = { path: named.path, value: typed.value, type }
  const timestamp = timeOf(run, rec, options)
  if (timestamp !== undefined) {
    if (!Number.isFinite(timestamp) || Math.abs(timestamp) > 8.64e15) return { ok: false, reason: 'lwm2m.value.time.range' }
    entry.timestamp = timestamp
  }
  return { ok: true, entry }
}

/** The typed values of resolved records, in order (a path may repeat with different times). */
export function entriesFromRecords (records: readonly SenmlRecord[], requested: LwM2mPath | null, registry: ObjectRegistry,
  options: SenmlReadOptions = {}): Decoded<{ values: LwM2mEntry[] }> {
  const run: Running = { bn: '' }
  const values: LwM2mEntry[] = []
  for (const rec of records) {
    if (rec.bn !== undefined) run.bn = rec.bn
    if (rec.bt !== undefined) run.bt = rec.bt
    if (rec.bv !== undefined) run.bv = rec.bv
    const e = entryOf(run, rec, requested, registry, options)
    if (!e.ok) return e
    values.push(e.entry)
  }
  return { ok: true, values }
}

function valueFields (e: LwM2mEntry, legacy: boolean): SenmlRecord {
  switch (e.type) {
    case 'String':
    case 'Corelnk':
      return { vs: e.value as string }
    case 'Boolean':
      return { vb: e.value as boolean }
    case 'Opaque':
      return legacy ? { vs: Buffer.from(e.value as Uint8Array).toString('base64') } : { vd: e.value as Uint8Array }
    case 'Objlnk':
      return { vlo: formatObjectLink(e.value as ObjectLink) }
    case 'Time':
      return { v: (e.value as Date).getTime() / 1000 }
    default:
      return { v: e.value as number | bigint }
  }
}

/**
 * Records for checked entries under `base`: the first carries the base name (`/3/0/`, or the whole path when the
 * one value is the base itself), the others their names relative to it; a timestamp becomes an absolute `t`.
 */
export function recordsFromEntries (entries: readonly LwM2mEntry[], base: LwM2mPath, legacy = false): SenmlRecord[] {
  const [only] = entries
  if (entries.length === 1 && formatPath(only!.path) === formatPath(base)) {
    return [{ bn: formatPath(base), ...valueFields(only!, legacy), ...timeField(only!) }]
  }
  const skip = pathDepth(base)
  return entries.map((e, i) => ({
    ...(i === 0 ? { bn: formatPath(base) + '/' } : {}),
    n: pathIds(e.path).slice(skip).join('/'),
    ...valueFields(e, legacy),
    ...timeField(e)
  }))
}

const timeField = (e: LwM2mEntry): SenmlRecord => e.timestamp === undefined ? {} : { t: e.timestamp / 1000 }
