// TLV payload → typed values (OMA-TS-LightweightM2M-Core 1.1 §7.4.3), shaped by the path that was read:
//   /o      object instances (resources without an instance around them: a single-instance object, instance 0)
//   /o/i    resources, or the one object instance i around them
//   /o/i/r  one resource value or multiple resource r, or bare resource instances (both forms occur in the field)
//   /o/i/r/ri  one resource instance ri, or multiple resource r holding it
// Values are typed by the object model; a resource no model knows comes out Opaque.
import { resourceAt, type ObjectRegistry } from './objects/registry.js'
import { pathFromIds } from './path.js'
import {
  TLV_MULTIPLE_RESOURCE, TLV_OBJECT_INSTANCE, TLV_RESOURCE_INSTANCE, TLV_RESOURCE_VALUE, readTlv, type TlvFrame
} from './tlv-frame.js'
import { decodeTlvValue } from './tlv-values.js'
import type { Decoded, LwM2mEntry, LwM2mPath } from './types.js'

type Entries = Decoded<{ values: LwM2mEntry[] }>
const MISMATCH = { ok: false, reason: 'lwm2m.tlv.path.mismatch' } as const

function valueEntry (ids: number[], value: Buffer, registry: ObjectRegistry): Decoded<{ entry: LwM2mEntry }> {
  const path = pathFromIds(ids) as LwM2mPath
  const model = resourceAt(path, registry)
  const type = model === undefined || model.type === 'none' ? 'Opaque' : model.type
  const decoded = decodeTlvValue(type, value)
  return decoded.ok ? { ok: true, entry: { path, value: decoded.value, type } } : decoded
}

/** A resource frame (value or multiple) of instance `o/i` → its entries. */
function resourceEntries (o: number, i: number, frame: TlvFrame, registry: ObjectRegistry, out: LwM2mEntry[]): Decoded<object> {
  if (frame.kind === TLV_RESOURCE_VALUE) {
    const e = valueEntry([o, i, frame.id], frame.value, registry)
    if (!e.ok) return e
    out.push(e.entry)
    return { ok: true }
  }
  for (const child of frame.children ?? []) {
    const e = valueEntry([o, i, frame.id, child.id], child.value, registry)
    if (!e.ok) return e
    out.push(e.entry)
  }
  return { ok: true }
}

function instanceEntries (o: number, i: number, resources: readonly TlvFrame[], registry: ObjectRegistry, out: LwM2mEntry[]): Decoded<object> {
  for (const frame of resources) {
    if (frame.kind !== TLV_RESOURCE_VALUE && frame.kind !== TLV_MULTIPLE_RESOURCE) return { ok: false, reason: 'lwm2m.tlv.structure' }
    const done = resourceEntries(o, i, frame, registry, out)
    if (!done.ok) return done
  }
  return { ok: true }
}

const isResource = (f: TlvFrame): boolean => f.kind === TLV_RESOURCE_VALUE || f.kind === TLV_MULTIPLE_RESOURCE

function objectLevel (o: number, frames: TlvFrame[], registry: ObjectRegistry, out: LwM2mEntry[]): Decoded<object> {
  if (frames.every(isResource)) return instanceEntries(o, 0, frames, registry, out)
  for (const f of frames) {
    if (f.kind !== TLV_OBJECT_INSTANCE) return { ok: false, reason: 'lwm2m.tlv.structure' }
    const done = instanceEntries(o, f.id, f.children ?? [], registry, out)
    if (!done.ok) return done
  }
  return { ok: true }
}

function instanceLevel (o: number, i: number, frames: TlvFrame[], registry: ObjectRegistry, out: LwM2mEntry[]): Decoded<object> {
  const [only] = frames
  if (frames.length === 1 && only?.kind === TLV_OBJECT_INSTANCE) {
    return only.id === i ? instanceEntries(o, i, only.children ?? [], registry, out) : MISMATCH
  }
  return instanceEntries(o, i, frames, registry, out)
}

function resourceLevel (path: Required<Omit<LwM2mPath, 'resourceInstanceId'>>, frames: TlvFrame[], registry: ObjectRegistry,
  out: LwM2mEntry[]): Decoded<object> {
  const { objectId: o, instanceId: i, resourceId: r } = path
  let list = frames
  // The resource wrapped in its object instance: not what §7.4.3 shows, but clients send it.
  if (list.length === 1 && list[0]!.kind === TLV_OBJECT_INSTANCE) {
    if (list[0]!.id !== i) return MISMATCH
    list = list[0]!.children ?? []
  }
  if (list.length > 0 && list.every((f) => f.kind === TLV_RESOURCE_INSTANCE)) {
    return resourceEntries(o, i, { kind: TLV_MULTIPLE_RESOURCE, id: r, value: Buffer.alloc(0), children: list }, registry, out)
  }
  if (list.length > 1) return MISMATCH
  const [only] = list
  if (only === undefined) return { ok: true }
  return isResource(only) && only.id === r ? resourceEntries(o, i, only, registry, out) : MISMATCH
}

function resourceInstanceLevel (path: Required<LwM2mPath>, frames: TlvFrame[], registry: ObjectRegistry, out: LwM2mEntry[]): Decoded<object> {
  const { objectId: o, instanceId: i, resourceId: r, resourceInstanceId: ri } = path
  let list = frames
  if (list.length === 1 && list[0]!.kind === TLV_MULTIPLE_RESOURCE) {
    if (list[0]!.id !== r) return MISMATCH
    list = list[0]!.children ?? []
  }
  const [only] = list
  if (list.length === 0) return { ok: true }
  if (list.length > 1 || only!.kind !== TLV_RESOURCE_INSTANCE || only!.id !== ri) return MISMATCH
  const e = valueEntry([o, i, r, ri], only!.value, registry)
  if (!e.ok) return e
  out.push(e.entry)
  return { ok: true }
}

/** Decodes a TLV payload read at `path` (an empty payload: no values). */
export function decodeTlv (payload: Uint8Array, path: LwM2mPath | null, registry: ObjectRegistry): Entries {
  if (path === null) return { ok: false, reason: 'lwm2m.tlv.path.required' }
  const read = readTlv(payload)
  if (!read.ok) return read
  const out: LwM2mEntry[] = []
  const { objectId: o, instanceId: i, resourceId: r, resourceInstanceId: ri } = path
  let done: Decoded<object>
  if (i === undefined) done = objectLevel(o, read.frames, registry, out)
  else if (r === undefined) done = instanceLevel(o, i, read.frames, registry, out)
  else if (ri === undefined) done = resourceLevel({ objectId: o, instanceId: i, resourceId: r }, read.frames, registry, out)
  else done = resourceInstanceLevel({ objectId: o, instanceId: i, resourceId: r, resourceInstanceId: ri }, read.frames, registry, out)
  return done.ok ? { ok: true, values: out } : done
}
