// LwM2M paths (OMA-TS-LightweightM2M-Core 1.1 §6.1 / §7.1: `/Object/Instance/Resource/ResourceInstance`, each id
// 16 bits) and the service's data ids (docs/protocols/lwm2m.md: `lwm2m.<object>.<instance>.<resource>`).
import { MAX_ID, type Decoded, type LwM2mPath } from './types.js'

// Decimal without leading zeros, so a path has one spelling and maps to one data id.
const ID = /^(0|[1-9][0-9]{0,4})$/

function idOf (text: string): number | undefined {
  if (!ID.test(text)) return undefined
  const n = Number(text)
  return n <= MAX_ID ? n : undefined
}

/** The path of 1 to 4 ids, or undefined when there are none, more than 4, or one is out of 0–65535. */
export function pathFromIds (ids: readonly number[]): LwM2mPath | undefined {
  if (ids.length < 1 || ids.length > 4) return undefined
  if (!ids.every((n) => Number.isInteger(n) && n >= 0 && n <= MAX_ID)) return undefined
  const [objectId, instanceId, resourceId, resourceInstanceId] = ids as [number, number?, number?, number?]
  const path: LwM2mPath = { objectId }
  if (instanceId !== undefined) path.instanceId = instanceId
  if (resourceId !== undefined) path.resourceId = resourceId
  if (resourceInstanceId !== undefined) path.resourceInstanceId = resourceInstanceId
  return path
}

/** The ids of a path, object first. */
export function pathIds (path: LwM2mPath): number[] {
  const ids = [path.objectId]
  if (path.instanceId === undefined) return ids
  ids.push(path.instanceId)
  if (path.resourceId === undefined) return ids
  ids.push(path.resourceId)
  if (path.resourceInstanceId !== undefined) ids.push(path.resourceInstanceId)
  return ids
}

/** 1 object, 2 object instance, 3 resource, 4 resource instance. */
export const pathDepth = (path: LwM2mPath): number => pathIds(path).length

/** `/3/0/1` → path; `lwm2m.path.invalid` for anything else (the root `/` included: it names no data). */
export function parsePath (text: string): Decoded<{ path: LwM2mPath }> {
  if (!text.startsWith('/') || text.length > 32) return { ok: false, reason: 'lwm2m.path.invalid' }
  const ids = text.slice(1).split('/').map(idOf)
  if (ids.some((n) => n === undefined)) return { ok: false, reason: 'lwm2m.path.invalid' }
  const path = pathFromIds(ids as number[])
  return path === undefined ? { ok: false, reason: 'lwm2m.path.invalid' } : { ok: true, path }
}

export const formatPath = (path: LwM2mPath): string => '/' + pathIds(path).join('/')

/** `lwm2m.3.0.1` for `/3/0/1` (any depth: `lwm2m.3`, `lwm2m.3.0.7.1` for a resource instance). */
export const pathToDataId = (path: LwM2mPath): string => 'lwm2m.' + pathIds(path).join('.')

/** `lwm2m.3.0.1` → `/3/0/1`; undefined for anything that is not a data id of this form. */
export function dataIdToPath (dataId: string): LwM2mPath | undefined {
  if (!dataId.startsWith('lwm2m.') || dataId.length > 40) return undefined
  const ids = dataId.slice('lwm2m.'.length).split('.').map(idOf)
  return ids.some((n) => n === undefined) ? undefined : pathFromIds(ids as number[])
}

/** Whether `path` is `prefix` or under it (`/3/0/7/1` is under `/3/0` and `/3/0/7`). */
export function isUnder (path: LwM2mPath, prefix: LwM2mPath): boolean {
  const a = pathIds(path)
  const p = pathIds(prefix)
  return p.length <= a.length && p.every((n, i) => a[i] === n)
}

export const samePath = (a: LwM2mPath, b: LwM2mPath): boolean => formatPath(a) === formatPath(b)

/** The longest path every one of `paths` is under; undefined when they have no object in common (or none given). */
export function commonPath (paths: readonly LwM2mPath[]): LwM2mPath | undefined {
  const [first, ...rest] = paths.map(pathIds)
  if (first === undefined) return undefined
  let n = first.length
  for (const ids of rest) {
    let i = 0
    while (i < n && i < ids.length && ids[i] === first[i]) i++
    n = i
  }
  return pathFromIds(first.slice(0, n))
}
