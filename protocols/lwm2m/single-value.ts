// The formats that carry one resource or resource instance value: plain text (0), opaque (42), CBOR (60) and link
// format (40) for a Corelnk resource (OMA-TS-LightweightM2M-Core 1.1 §7.3). The type is the object model's; for a
// resource it does not know, text reads as String, opaque as Opaque, CBOR as its item says.
import { decodeCborValue, encodeCborValue } from './cbor-value.js'
import { parseLinkFormat } from './link-format.js'
import { resourceAt, type ObjectRegistry } from './objects/registry.js'
import { pathDepth } from './path.js'
import { valueFromText, valueToText } from './text-value.js'
import type { Decoded, LwM2mEntry, LwM2mPath, ValueType } from './types.js'

type Entries = Decoded<{ values: LwM2mEntry[] }>
type Format = 0 | 40 | 42 | 60

const utf8 = new TextDecoder('utf-8', { fatal: true })

function textOf (payload: Uint8Array): string | undefined {
  try {
    return utf8.decode(payload)
  } catch {
    return undefined
  }
}

function decodeAs (format: Format, payload: Uint8Array, modelType: ValueType | undefined): Decoded<{ entry: Omit<LwM2mEntry, 'path'> }> {
  const mismatch = { ok: false, reason: 'lwm2m.content.type.mismatch' } as const
  if (format === 42) {
    if (modelType !== undefined && modelType !== 'Opaque') return mismatch
    return { ok: true, entry: { value: Buffer.from(payload), type: 'Opaque' } }
  }
  if (format === 60) {
    const v = decodeCborValue(payload, modelType)
    return v.ok ? { ok: true, entry: { value: v.value, type: v.type } } : v
  }
  const text = textOf(payload)
  if (text === undefined) return { ok: false, reason: 'lwm2m.text.invalid' }
  if (format === 40) {
    if (modelType !== undefined && modelType !== 'Corelnk') return mismatch
    const links = parseLinkFormat(text)
    return links.ok ? { ok: true, entry: { value: text, type: 'Corelnk' } } : links
  }
  const type = modelType ?? 'String'
  const v = valueFromText(type, text)
  return v.ok ? { ok: true, entry: { value: v.value, type } } : v
}

/** Decodes a single-value payload read at a resource or resource-instance path. */
export function decodeSingleValue (format: Format, payload: Uint8Array, path: LwM2mPath | null, registry: ObjectRegistry): Entries {
  if (path === null || pathDepth(path) < 3) return { ok: false, reason: 'lwm2m.content.path.unsupported' }
  const model = resourceAt(path, registry)
  if (model?.type === 'none') return { ok: false, reason: 'lwm2m.content.type.mismatch' }
  const decoded = decodeAs(format, payload, model?.type)
  return decoded.ok ? { ok: true, values: [{ path, ...decoded.entry }] } : decoded
}

/** Encodes the one checked entry of a single-value Write. */
export function encodeSingleValue (format: Format, entries: readonly LwM2mEntry[]): Decoded<{ payload: Buffer }> {
  const [e] = entries
  if (e === undefined || entries.length > 1) return { ok: false, reason: 'lwm2m.encode.single.value' }
  if (format === 60) return { ok: true, payload: encodeCborValue(e.type, e.value) }
  if (format === 42) {
    return e.type === 'Opaque' ? { ok: true, payload: Buffer.from(e.value as Uint8Array) } : { ok: false, reason: 'lwm2m.encode.type.mismatch' }
  }
  if (format === 40 && e.type !== 'Corelnk') return { ok: false, reason: 'lwm2m.encode.type.mismatch' }
  const text = valueToText(e.type, e.value)
  return text === undefined ? { ok: false, reason: 'lwm2m.encode.unrepresentable' } : { ok: true, payload: Buffer.from(text, 'utf8') }
}
