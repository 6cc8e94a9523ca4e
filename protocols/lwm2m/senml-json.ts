// SenML JSON (RFC 8428 §5; content format 110, LwM2M 1.1 §7.4.4): an array of record objects. `vd` is base64url
// without padding when written (§5); both alphabets, padded or not, are read. Numbers come through JSON.parse, so an
// integer beyond 2^53 loses precision here (SenML CBOR carries it exactly).
import { MAX_ENTRIES, type Decoded } from './types.js'
import { SENML_VERSION, isMustUnderstand, type SenmlRecord } from './senml-record.js'
import { decodeBase64 } from './values.js'

const INVALID = { ok: false, reason: 'lwm2m.senml.invalid' } as const
const utf8 = new TextDecoder('utf-8', { fatal: true })

const isString = (v: unknown): boolean => typeof v === 'string'
const isNumber = (v: unknown): boolean => typeof v === 'number'
const isBoolean = (v: unknown): boolean => typeof v === 'boolean'
const FIELDS: Record<string, (v: unknown) => boolean> = {
  bn: isString, bt: isNumber, bv: isNumber, n: isString, t: isNumber, v: isNumber, vs: isString, vb: isBoolean, vd: isString, vlo: isString
}

function recordOf (o: Record<string, unknown>): Decoded<{ record: SenmlRecord }> {
  const record: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(o)) {
    if (isMustUnderstand(key)) return { ok: false, reason: 'lwm2m.senml.must.understand' }
    if (key === 'bver' && !(typeof value === 'number' && value <= SENML_VERSION)) return { ok: false, reason: 'lwm2m.senml.version.unsupported' }
    const valid = Object.prototype.hasOwnProperty.call(FIELDS, key) ? FIELDS[key] : undefined
    if (valid === undefined) continue // bu, bs, bver, u, s, ut: not LwM2M's
    if (!valid(value)) return INVALID
    record[key] = value
  }
  if (typeof record.vd === 'string') {
    const bytes = decodeBase64(record.vd)
    if (bytes === undefined) return INVALID
    record.vd = bytes
  }
  return { ok: true, record: record as SenmlRecord }
}

/** The records of a SenML JSON pack; an empty payload is an empty pack. */
export function readSenmlJson (payload: Uint8Array): Decoded<{ records: SenmlRecord[] }> {
  if (payload.length === 0) return { ok: true, records: [] }
  let pack: unknown
  try {
    pack = JSON.parse(utf8.decode(payload))
  } catch {
    return INVALID // not UTF-8, not JSON, or nested past the parser's stack
  }
  if (!Array.isArray(pack)) return INVALID
  if (pack.length > MAX_ENTRIES) return { ok: false, reason: 'lwm2m.senml.too.many' }
  const records: SenmlRecord[] = []
  for (const item of pack as unknown[]) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return INVALID
    const r = recordOf(item as Record<string, unknown>)
    if (!r.ok) return r
    records.push(r.record)
  }
  return { ok: true, records }
}

function jsonNumber (n: number | bigint): string | undefined {
  if (typeof n === 'bigint') return n.toString()
  return Number.isFinite(n) ? JSON.stringify(n) : undefined
}

const ORDER = ['bn', 'bt', 'bv', 'n', 't', 'v', 'vs', 'vb', 'vd', 'vlo'] as const

/** A SenML JSON pack; refuses NaN and infinities, which JSON cannot carry. */
export function writeSenmlJson (records: readonly SenmlRecord[]): Decoded<{ payload: Buffer }> {
  const parts: string[] = []
  for (const rec of records) {
    const fields: string[] = []
    for (const key of ORDER) {
      const value = rec[key]
      if (value === undefined) continue
      let text: string | undefined
      if (typeof value === 'number' || typeof value === 'bigint') text = jsonNumber(value)
      else if (value instanceof Uint8Array) text = JSON.stringify(Buffer.from(value).toString('base64url'))
      else text = JSON.stringify(value)
      if (text === undefined) return { ok: false, reason: 'lwm2m.encode.unrepresentable' }
      fields.push(`${JSON.stringify(key)}:${text}`)
    }
    parts.push(`{${fields.join(',')}}`)
  }
  return { ok: true, payload: Buffer.from(`[${parts.join(',')}]`, 'utf8') }
}
