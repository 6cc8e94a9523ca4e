// Typed values → a TLV payload (OMA-TS-LightweightM2M-Core 1.1 §7.4.3), shaped by the base path of the request:
//   /o        object instance frames around their resources (Create, or a Write on the object)
//   /o/i      resource frames (Write on an instance)
//   /o/i/r    one resource value frame, or one multiple resource frame around its instances
//   /o/i/r/ri one resource instance frame (LwM2M 1.1)
import { pathDepth } from './path.js'
import {
  MAX_TLV_VALUE, TLV_MULTIPLE_RESOURCE, TLV_OBJECT_INSTANCE, TLV_RESOURCE_INSTANCE, TLV_RESOURCE_VALUE, writeFrame
} from './tlv-frame.js'
import { encodeTlvValue } from './tlv-values.js'
import { basePathOf, hasOverlap } from './write-values.js'
import type { Decoded, LwM2mEntry, LwM2mPath } from './types.js'

type Frame = Decoded<{ frame: Buffer }>

function frame (kind: 0 | 1 | 2 | 3, id: number, value: Uint8Array): Frame {
  return value.length > MAX_TLV_VALUE ? { ok: false, reason: 'lwm2m.encode.too.large' } : { ok: true, frame: writeFrame(kind, id, value) }
}

function groupBy (entries: readonly LwM2mEntry[], key: (e: LwM2mEntry) => number): Map<number, LwM2mEntry[]> {
  const groups = new Map<number, LwM2mEntry[]>()
  for (const e of entries) {
    const k = key(e)
    const list = groups.get(k)
    if (list === undefined) groups.set(k, [e])
    else list.push(e)
  }
  return groups
}

function concat (frames: Frame[]): Decoded<{ bytes: Buffer }> {
  const bad = frames.find((f) => !f.ok)
  if (bad !== undefined && !bad.ok) return bad
  return { ok: true, bytes: Buffer.concat(frames.map((f) => (f as { frame: Buffer }).frame)) }
}

/** One resource: a value frame, or a multiple resource frame around its instances. */
function resourceFrame (id: number, entries: readonly LwM2mEntry[]): Frame {
  const [first] = entries
  if (entries.length === 1 && first!.path.resourceInstanceId === undefined) {
    return frame(TLV_RESOURCE_VALUE, id, encodeTlvValue(first!.type, first!.value))
  }
  const instances = concat(entries.map((e) => frame(TLV_RESOURCE_INSTANCE, e.path.resourceInstanceId!, encodeTlvValue(e.type, e.value))))
  return instances.ok ? frame(TLV_MULTIPLE_RESOURCE, id, instances.bytes) : instances
}

function resourcesBytes (entries: readonly LwM2mEntry[]): Decoded<{ bytes: Buffer }> {
  const groups = groupBy(entries, (e) => e.path.resourceId!)
  return concat([...groups].map(([id, list]) => resourceFrame(id, list)))
}

/** Encodes checked entries (see typedEntries) under `basePath` (default: the path they share). */
export function encodeTlv (entries: readonly LwM2mEntry[], basePath?: LwM2mPath): Decoded<{ payload: Buffer }> {
  const based = basePathOf(entries, basePath)
  if (!based.ok) return based
  if (hasOverlap(entries)) return { ok: false, reason: 'lwm2m.encode.duplicate' }
  const depth = pathDepth(based.base)
  let out: Decoded<{ bytes: Buffer }>
  if (depth === 1) {
    const instances = groupBy(entries, (e) => e.path.instanceId!)
    out = concat([...instances].map(([id, list]) => {
      const inner = resourcesBytes(list)
      return inner.ok ? frame(TLV_OBJECT_INSTANCE, id, inner.bytes) : inner
    }))
  } else if (depth === 4) {
    const [only] = entries
    out = entries.length === 1
      ? concat([frame(TLV_RESOURCE_INSTANCE, only!.path.resourceInstanceId!, encodeTlvValue(only!.type, only!.value))])
      : { ok: false, reason: 'lwm2m.encode.duplicate' }
  } else {
    out = resourcesBytes(entries)
  }
  return out.ok ? { ok: true, payload: out.bytes } : out
}
