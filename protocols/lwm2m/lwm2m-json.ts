// The LwM2M JSON of LwM2M 1.0 (OMA-TS-LightweightM2M 1.0 §6.4.4; content format 11543, 1543 before the IANA
// number): `{"bn": "/3/0/", "bt": 25462634, "e": [{"n": "0", "sv": "..."}, {"n": "6/0", "v": 1}, ...]}`. In `e`,
// `v` is a number, `bv` a boolean (not a base value), `sv` a string (Opaque as base64), `ov` an object link, `t` a
// time relative to `bt`. Mapped onto SenML records so that one mapping types both.
import { MAX_ENTRIES, type Decoded } from './types.js'
import type { SenmlRecord } from './senml-record.js'

const INVALID = { ok: false, reason: 'lwm2m.json.invalid' } as const
const utf8 = new TextDecoder('utf-8', { fatal: true })

const isString = (v: unknown): boolean => typeof v === 'string'
const isNumber = (v: unknown): boolean => typeof v === 'number'
const E_FIELDS: Record<string, [keyof SenmlRecord, (v: unknown) => boolean]> = {
  n: ['n', isString], v: ['v', isNumber], bv: ['vb', (v) => typeof v === 'boolean'], sv: ['vs', isString], ov: ['vlo', isString], t: ['t', isNumber]
}

function recordOf (o: unknown): SenmlRecord | undefined {
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return undefined
  const rec: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(o)) {
    const field = Object.prototype.hasOwnProperty.call(E_FIELDS, key) ? E_FIELDS[key] : undefined
    if (field === undefined) continue
    if (!field[1](value)) return undefined
    rec[field[0]] = value
  }
  return rec as SenmlRecord
}

/** The records of an LwM2M JSON payload, the top-level `bn` and `bt` on the first. */
export function readLwm2mJson (payload: Uint8Array): Decoded<{ records: SenmlRecord[] }> {
  if (payload.length === 0) return { ok: true, records: [] }
  let doc: unknown
  try {
    doc = JSON.parse(utf8.decode(payload))
  } catch {
    return INVALID
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return INVALID
  const { bn, bt, e } = doc as Record<string, unknown>
  if ((bn !== undefined && typeof bn !== 'string') || (bt !== undefined && typeof bt !== 'number') || !Array.isArray(e)) return INVALID
  if (e.length > MAX_ENTRIES) return { ok: false, reason: 'lwm2m.json.too.many' }
  const records: SenmlRecord[] = []
  for (const item of e as unknown[]) {
    const rec = recordOf(item)
    if (rec === undefined) return INVALID
    records.push(rec)
  }
  if (records[0] !== undefined && bn !== undefined) records[0].bn = bn
  if (records[0] !== undefined && bt !== undefined) records[0].bt = bt
  return { ok: true, records }
}

/** An LwM2M JSON payload for records made by recordsFromEntries(…, legacy = true). */
export function writeLwm2mJson (records: readonly SenmlRecord[]): Decoded<{ payload: Buffer }> {
  const e: string[] = []
  for (const rec of records) {
    const fields: string[] = []
    if (rec.n !== undefined) fields.push(`"n":${JSON.stringify(rec.n)}`)
    if (rec.v !== undefined) {
      if (typeof rec.v === 'number' && !Number.isFinite(rec.v)) return { ok: false, reason: 'lwm2m.encode.unrepresentable' }
      fields.push(`"v":${typeof rec.v === 'bigint' ? rec.v.toString() : JSON.stringify(rec.v)}`)
    }
    if (rec.vb !== undefined) fields.push(`"bv":${String(rec.vb)}`)
    if (rec.vs !== undefined) fields.push(`"sv":${JSON.stringify(rec.vs)}`)
    if (rec.vlo !== undefined) fields.push(`"ov":${JSON.stringify(rec.vlo)}`)
    if (rec.t !== undefined) fields.push(`"t":${JSON.stringify(rec.t)}`)
    e.push(`{${fields.join(',')}}`)
  }
  const bn = records[0]?.bn
  const head = bn === undefined ? '' : `"bn":${JSON.stringify(bn)},`
  return { ok: true, payload: Buffer.from(`{${head}"e":[${e.join(',')}]}`, 'utf8') }
}
