// The values of a Write, typed before any encoder sees them: the caller's type, else the object model's, else the
// one the JavaScript value suggests. Every value must fit its type, and name a resource or resource instance.
import { resourceAt, type ObjectRegistry } from './objects/registry.js'
import { commonPath, formatPath, pathDepth } from './path.js'
import { fitsType, guessType } from './values.js'
import { MAX_ENTRIES, type Decoded, type LwM2mEntry, type LwM2mPath, type WriteValue } from './types.js'

/** Typed entries for `values`; refuses executables, values that do not fit, paths above a resource, duplicates. */
export function typedEntries (values: readonly WriteValue[], registry: ObjectRegistry): Decoded<{ entries: LwM2mEntry[] }> {
  if (values.length > MAX_ENTRIES) return { ok: false, reason: 'lwm2m.encode.too.many' }
  const entries: LwM2mEntry[] = []
  for (const v of values) {
    if (pathDepth(v.path) < 3) return { ok: false, reason: 'lwm2m.encode.path.invalid' }
    const model = resourceAt(v.path, registry)
    if (v.type === undefined && model?.type === 'none') return { ok: false, reason: 'lwm2m.encode.executable' }
    const type = v.type ?? (model === undefined || model.type === 'none' ? guessType(v.value) : model.type)
    if (!fitsType(type, v.value)) return { ok: false, reason: 'lwm2m.encode.type.mismatch' }
    const entry: LwM2mEntry = { path: v.path, value: v.value, type }
    if (v.timestamp !== undefined) entry.timestamp = v.timestamp
    entries.push(entry)
  }
  return { ok: true, entries }
}

/** The base of a payload: the given one (every value under it), else the path all values share. */
export function basePathOf (entries: readonly LwM2mEntry[], given?: LwM2mPath): Decoded<{ base: LwM2mPath }> {
  const base = given ?? commonPath(entries.map((e) => e.path))
  if (base === undefined) return { ok: false, reason: 'lwm2m.encode.path.mixed' }
  const prefix = formatPath(base)
  const under = entries.every((e) => { const p = formatPath(e.path); return p === prefix || p.startsWith(prefix + '/') })
  return under ? { ok: true, base } : { ok: false, reason: 'lwm2m.encode.path.mixed' }
}

/**
 * Whether two entries name the same path, or one is the resource of the other's resource instance. With `timed`
 * (SenML, LwM2M JSON), a path may repeat at different timestamps: a series of one resource.
 */
export function hasOverlap (entries: readonly LwM2mEntry[], timed = false): boolean {
  const key = (path: LwM2mPath, e: LwM2mEntry): string => formatPath(path) + (timed ? `@${e.timestamp ?? ''}` : '')
  const seen = new Set(entries.map((e) => key(e.path, e)))
  if (seen.size !== entries.length) return true
  return entries.some((e) => e.path.resourceInstanceId !== undefined &&
    seen.has(key({ ...e.path, resourceInstanceId: undefined }, e)))
}
