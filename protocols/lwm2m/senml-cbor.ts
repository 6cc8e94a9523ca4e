// SenML CBOR (RFC 8428 §6; content format 112, LwM2M 1.1 §7.4.5): an array of maps with the integer labels of
// Table 6, and `vlo` under its text label (LwM2M). Decoded by cbor2 with a depth bound; anything it refuses, and
// any value of the wrong CBOR type, is `lwm2m.senml.invalid`.
import { decode, encode } from 'cbor2'
import { MAX_ENTRIES, type Decoded } from './types.js'
import { SENML_VERSION, isMustUnderstand, type SenmlRecord } from './senml-record.js'

const INVALID = { ok: false, reason: 'lwm2m.senml.invalid' } as const

/** RFC 8428 Table 6 (bu -4, bs -6, u 1, s 5 and ut 7 are read past; bver -1 is checked). */
export const SENML_LABELS = { bn: -2, bt: -3, bv: -5, n: 0, v: 2, vs: 3, vb: 4, t: 6, vd: 8, vlo: 'vlo' } as const
const BVER = -1
type Label = keyof typeof SENML_LABELS
const BY_LABEL = new Map<unknown, Label>(Object.entries(SENML_LABELS).map(([k, v]) => [v, k as Label]))

function fieldValue (label: Label, value: unknown): unknown {
  switch (label) {
    case 'bn': case 'n': case 'vs': case 'vlo':
      return typeof value === 'string' ? value : undefined
    case 'bt': case 't': case 'bv':
      return typeof value === 'number' ? value : typeof value === 'bigint' ? Number(value) : undefined
    case 'v':
      return typeof value === 'number' || typeof value === 'bigint' ? value : undefined
    case 'vb':
      return typeof value === 'boolean' ? value : undefined
    case 'vd':
      return value instanceof Uint8Array ? Buffer.from(value) : undefined
  }
}

function recordOf (map: Map<unknown, unknown>): Decoded<{ record: SenmlRecord }> {
  const record: Record<string, unknown> = {}
  for (const [key, value] of map) {
    if (typeof key === 'string' && isMustUnderstand(key)) return { ok: false, reason: 'lwm2m.senml.must.understand' }
    if (key === BVER && !(typeof value === 'number' && value <= SENML_VERSION)) return { ok: false, reason: 'lwm2m.senml.version.unsupported' }
    const label = BY_LABEL.get(key)
    if (label === undefined) continue
    const v = fieldValue(label, value)
    if (v === undefined) return INVALID
    record[label] = v
  }
  return { ok: true, record: record as SenmlRecord }
}

/** The records of a SenML CBOR pack; an empty payload is an empty pack. */
export function readSenmlCbor (payload: Uint8Array): Decoded<{ records: SenmlRecord[] }> {
  if (payload.length === 0) return { ok: true, records: [] }
  let pack: unknown
  try {
    // Depth 3: the pack, a record, a value; a value that nests deeper is not SenML.
    pack = decode(payload, { preferMap: true, maxDepth: 3, rejectDuplicateKeys: true })
  } catch {
    return INVALID
  }
  if (!Array.isArray(pack)) return INVALID
  if (pack.length > MAX_ENTRIES) return { ok: false, reason: 'lwm2m.senml.too.many' }
  const records: SenmlRecord[] = []
  for (const item of pack as unknown[]) {
    if (!(item instanceof Map)) return INVALID
    const r = recordOf(item)
    if (!r.ok) return r
    records.push(r.record)
  }
  return { ok: true, records }
}

/** cbor2 writes a Buffer as the object its toJSON gives; a plain Uint8Array is a byte string. */
export const plainBytes = (b: Uint8Array): Uint8Array => new Uint8Array(b.buffer, b.byteOffset, b.byteLength)

/** A SenML CBOR pack. */
export function writeSenmlCbor (records: readonly SenmlRecord[]): Buffer {
  const pack = records.map((rec) => {
    const map = new Map<number | string, unknown>()
    for (const [key, label] of Object.entries(SENML_LABELS)) {
      const value = rec[key as Label]
      if (value !== undefined) map.set(label, value instanceof Uint8Array ? plainBytes(value) : value)
    }
    return map
  })
  return Buffer.from(encode(pack))
}
