import { FleetError } from '../errors.js'
import type { Page, Sort } from '../paging.js'

// docs/api.md#using-the-api: offset default 0; size default 100, maximum 500, larger is clamped.
export const DEFAULT_PAGE_SIZE = 100
export const MAX_PAGE_SIZE = 500

export function page (offset: number | undefined, size: number | undefined): Page {
  return {
    offset: Math.max(0, Math.trunc(offset ?? 0)),
    size: Math.min(MAX_PAGE_SIZE, Math.max(0, Math.trunc(size ?? DEFAULT_PAGE_SIZE)))
  }
}

/** Multi-valued parameters come as repeated keys or comma separated (docs/api.md#using-the-api). */
export function list (v: string | string[] | undefined): string[] | undefined {
  if (v === undefined) return undefined
  const parts = (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter((s) => s !== '')
  return parts
}

/**
 * `key1:value1,key2:value2` (docs/api.md#using-the-api; docs/api.md#using-the-api). Built with
 * Object.fromEntries, so a key `__proto__` is an own key like any other (an assignment would drop it unseen).
 */
export function map (v: string | string[] | undefined): Record<string, string> | undefined {
  const parts = list(v)
  if (parts === undefined) return undefined
  const out = new Map<string, string>()
  for (const part of parts) {
    const at = part.indexOf(':')
    if (at <= 0) throw new FleetError('request.invalid', [part, 'key:value pairs, comma separated (key1:value1,key2:value2)'])
    out.set(part.slice(0, at).trim(), part.slice(at + 1).trim())
  }
  return Object.fromEntries(out)
}

export interface SortQuery { orderBy?: string | string[] | undefined, asc?: string | string[] | undefined, desc?: string | string[] | undefined }

/**
 * `orderBy=<field>[:asc|:desc][,...]`, with the aliases `asc=<field>` and `desc=<field>`.
 * @throws FleetError sort.invalid.field for an attribute that is not sortable (docs/api.md#using-the-api), with the
 *   sortable ones, or for a direction other than asc and desc
 */
export function sorts<F extends string> (q: SortQuery, sortable: readonly F[]): Array<Sort<F>> {
  const out: Array<Sort<F>> = []
  const push = (field: string, dir: string): void => {
    const f = sortable.find((s) => s === field)
    if (f === undefined) throw new FleetError('sort.invalid.field', [field, `sortable: ${sortable.join(', ')}`])
    if (dir !== 'asc' && dir !== 'desc') throw new FleetError('sort.invalid.field', [field, `direction ${dir}: asc or desc`])
    out.push({ field: f, dir })
  }
  for (const item of list(q.orderBy) ?? []) {
    const [field = '', dir = 'asc'] = item.split(':')
    push(field.trim(), dir.trim().toLowerCase())
  }
  for (const f of list(q.asc) ?? []) push(f, 'asc')
  for (const f of list(q.desc) ?? []) push(f, 'desc')
  return out
}

/** `fields=a,b,c` (docs/api.md#using-the-api): the attributes to answer, or the defaults when absent. */
export function fields<F extends string> (v: string | string[] | undefined, selectable: readonly F[], defaults: readonly F[]): F[] {
  const asked = list(v)
  if (asked === undefined || asked.length === 0) return [...defaults]
  const chosen = selectable.filter((f) => asked.includes(f))
  return chosen.length > 0 ? chosen : [...defaults]
}

export function pick<T extends object, F extends string> (obj: T, keys: readonly F[]): Partial<T> {
  const out: Record<string, unknown> = {}
  for (const k of keys) if (k in obj) out[k] = (obj as Record<string, unknown>)[k]
  return out as Partial<T>
}

/** Timestamps are epoch ms; tolerate seconds and microseconds (docs/api.md#using-the-api). */
export function toMillis (t: number): number {
  if (Math.abs(t) < 1e11) return t * 1000
  if (Math.abs(t) > 1e14) return Math.trunc(t / 1000)
  return t
}
