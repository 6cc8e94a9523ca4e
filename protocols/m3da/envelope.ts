// M3DA envelopes (docs/protocols/m3da.md): class 0 {header (ctx6 map), payload (UIS string), footer (ctx6 map)}.
// Real agents write header and footer maps without declared length (ctx6 `C1`) and a null footer when unsigned;
// both decode here, a null map as an empty record.
import { BysantReader, bysantObject, encode, isBysantObject, TypedMap, type BysantValue, type Encodable, type MapKey } from '../bysant/index.js'
import { ClassId, M3DA_CLASSES } from './classes.js'

export interface Envelope { header: Record<string, BysantValue>, payload: Buffer, footer: Record<string, BysantValue> }

/** Header or footer fields; a TypedMap (e.g. `unsizedMap`) picks the form, null writes a null map. */
export type EnvelopeFields = Record<string, Encodable> | Map<MapKey, Encodable> | TypedMap | null

export interface EnvelopeToEncode { header?: EnvelopeFields, payload?: Buffer, footer?: EnvelopeFields }

export type EnvelopeResult = { ok: true, envelope: Envelope } | { ok: false, reason: string }

const EMPTY = Buffer.alloc(0)
// Bound once: under tsx an imported binding is read through a getter, felt on the per-envelope path.
const encodeValue = encode
const makeObject = bysantObject
const isObject = isBysantObject
const CLASSES = M3DA_CLASSES
const ENVELOPE = ClassId.Envelope

/** Empty header and footer are written `83`, the empty ctx6 map, as the §1.9 server reply does. */
export function encodeEnvelope (e: EnvelopeToEncode): Buffer {
  const fields = [e.header === undefined ? {} : e.header, e.payload ?? EMPTY, e.footer === undefined ? {} : e.footer]
  return encodeValue(makeObject(ENVELOPE, fields), undefined, CLASSES)
}

function record (v: BysantValue | undefined): Record<string, BysantValue> | null {
  if (v === null) return {}
  if (!(v instanceof Map)) return null
  const out: Record<string, BysantValue> = {}
  for (const [k, x] of v) {
    const key = String(k)
    // A key such as "__proto__" stays data: defined, not assigned.
    if (key === '__proto__') Object.defineProperty(out, key, { value: x, enumerable: true, writable: true, configurable: true })
    else out[key] = x
  }
  return out
}

/** A decoded top-level value as an Envelope, or why it is not one. */
export function toEnvelope (v: BysantValue): EnvelopeResult {
  if (!isObject(v) || v.classId !== ENVELOPE || v.fields.length !== 3) return { ok: false, reason: 'm3da.not.envelope' }
  const [h, p, f] = v.fields as BysantValue[]
  const header = record(h)
  const footer = record(f)
  const payload = p === null ? EMPTY : p
  if (header === null || footer === null || !Buffer.isBuffer(payload)) return { ok: false, reason: 'm3da.invalid.envelope' }
  return { ok: true, envelope: { header, payload, footer } }
}

/** Exactly one envelope in `buf` (an HTTP body, a decrypted inner envelope). */
export function decodeEnvelope (buf: Buffer, opts: { maxBytes?: number } = {}): EnvelopeResult {
  const reader = new EnvelopeReader(opts)
  reader.push(buf)
  const r = reader.next()
  if (r === 'more') return { ok: false, reason: 'bysant.truncated' }
  if (!r.ok) return r
  if (reader.buffered > 0) return { ok: false, reason: 'm3da.trailing.bytes' }
  return { ok: true, envelope: r.envelope }
}

/**
 * Envelopes from a byte stream (§2.6: TCP carries bare envelopes back to back). `bytes` is each envelope's exact
 * serialization. After a refusal the stream is unusable: the peer and we no longer agree where values start.
 */
export class EnvelopeReader {
  private readonly reader: BysantReader
  private failure: string | null = null

  constructor (opts: { maxBytes?: number, maxDepth?: number } = {}) {
    this.reader = new BysantReader({ ...opts, classes: M3DA_CLASSES })
  }

  /** Bytes received and not yet returned in an envelope (to bound what a connection may hold). */
  get buffered (): number { return this.reader.buffered }

  push (chunk: Buffer): void { this.reader.push(chunk) }

  next (): { ok: true, envelope: Envelope, bytes: Buffer } | 'more' | { ok: false, reason: string } {
    if (this.failure !== null) return { ok: false, reason: this.failure }
    const r = this.reader.next()
    if (r === 'more') return r
    if (!r.ok) return this.fail(r.reason)
    const e = toEnvelope(r.value)
    if (!e.ok) return this.fail(e.reason)
    return { ok: true, envelope: e.envelope, bytes: r.bytes }
  }

  private fail (reason: string): { ok: false, reason: string } {
    this.failure = reason
    return { ok: false, reason }
  }
}
