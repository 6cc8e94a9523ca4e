// The one entry point for LwM2M payloads: decodeContent for what a client sends (Read, Observe, Send responses and
// notifications), encodeContent for what a Write carries. The CoAP layer hands over the Content-Format number, the
// payload and the path that was asked for.
import { ContentFormat, isContentFormat } from './content-format.js'
import { readLwm2mJson, writeLwm2mJson } from './lwm2m-json.js'
import { DEFAULT_REGISTRY, type ObjectRegistry } from './objects/registry.js'
import { readSenmlCbor, writeSenmlCbor } from './senml-cbor.js'
import { entriesFromRecords, recordsFromEntries, type SenmlReadOptions } from './senml-entries.js'
import { readSenmlJson, writeSenmlJson } from './senml-json.js'
import { decodeSingleValue, encodeSingleValue } from './single-value.js'
import { decodeTlv } from './tlv-decode.js'
import { encodeTlv } from './tlv-encode.js'
import { basePathOf, hasOverlap, typedEntries } from './write-values.js'
import { MAX_PAYLOAD_BYTES, type Decoded, type LwM2mEntry, type LwM2mPath, type WriteValue } from './types.js'

export interface DecodeOptions extends Omit<SenmlReadOptions, 'legacyJson'> {
  /** The object models that type values (default: objects 0, 1, 3, 4, 5, 6 and 9 of this folder). */
  registry?: ObjectRegistry
}

export interface EncodeOptions {
  registry?: ObjectRegistry
  /** The path of the request (TLV shapes the payload by it; SenML names are relative to it). Default: the values'. */
  basePath?: LwM2mPath
}

/**
 * The values of a payload. `requestedPath` is the path of the request (null for the root: a Send, a
 * Read-Composite); every value must lie under it. Never throws.
 */
export function decodeContent (format: number, payload: Uint8Array, requestedPath: LwM2mPath | null,
  options: DecodeOptions = {}): Decoded<{ values: LwM2mEntry[] }> {
  if (payload.length > MAX_PAYLOAD_BYTES) return { ok: false, reason: 'lwm2m.content.too.large' }
  const registry = options.registry ?? DEFAULT_REGISTRY
  switch (format) {
    case ContentFormat.TLV:
    case ContentFormat.TLV_LEGACY:
      return decodeTlv(payload, requestedPath, registry)
    case ContentFormat.SENML_JSON:
    case ContentFormat.SENML_CBOR: {
      const read = format === ContentFormat.SENML_JSON ? readSenmlJson(payload) : readSenmlCbor(payload)
      return read.ok ? entriesFromRecords(read.records, requestedPath, registry, options) : read
    }
    case ContentFormat.JSON:
    case ContentFormat.JSON_LEGACY: {
      const read = readLwm2mJson(payload)
      return read.ok ? entriesFromRecords(read.records, requestedPath, registry, { ...options, legacyJson: true }) : read
    }
    case ContentFormat.TEXT:
    case ContentFormat.OPAQUE:
    case ContentFormat.CBOR:
    case ContentFormat.LINK:
      return decodeSingleValue(format, payload, requestedPath, registry)
    default:
      return { ok: false, reason: 'lwm2m.content.format.unknown' }
  }
}

/**
 * The payload of a Write of these values in this format. Values are typed by their own type, else the object
 * model's, else their JavaScript type; refusals are `lwm2m.encode.*` (and `lwm2m.content.format.unknown`).
 */
export function encodeContent (format: number, values: readonly WriteValue[], options: EncodeOptions = {}): Decoded<{ payload: Buffer }> {
  if (!isContentFormat(format)) return { ok: false, reason: 'lwm2m.content.format.unknown' }
  if (values.length === 0) return { ok: false, reason: 'lwm2m.encode.empty' }
  const typed = typedEntries(values, options.registry ?? DEFAULT_REGISTRY)
  if (!typed.ok) return typed
  const { entries } = typed
  switch (format) {
    case ContentFormat.TLV:
    case ContentFormat.TLV_LEGACY:
      return encodeTlv(entries, options.basePath)
    case ContentFormat.TEXT:
    case ContentFormat.OPAQUE:
    case ContentFormat.CBOR:
    case ContentFormat.LINK:
      return encodeSingleValue(format, entries)
    default: {
      const based = basePathOf(entries, options.basePath)
      if (!based.ok) return based
      if (hasOverlap(entries, true)) return { ok: false, reason: 'lwm2m.encode.duplicate' }
      const legacy = format === ContentFormat.JSON || format === ContentFormat.JSON_LEGACY
      const records = recordsFromEntries(entries, based.base, legacy)
      if (legacy) return writeLwm2mJson(records)
      return format === ContentFormat.SENML_JSON ? writeSenmlJson(records) : { ok: true, payload: writeSenmlCbor(records) }
    }
  }
}
