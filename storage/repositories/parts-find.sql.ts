// The find of GET /api/v1/gateways and GET /api/v1/subscriptions (core/domain/parts.ts): a company's rows, exact
// matches on the given columns (any of several values), a whitelisted sort, a page.
import type { Queryable } from '../../core/ports/store.js'
import type { Found, Page, Sort } from '../../core/paging.js'

export interface PartsTable {
  /** gateways or subscriptions: both carry company_uid, uid and creation_date. */
  table: 'gateways' | 'subscriptions'
  /** API name → column, for the filters and sorts this table accepts. */
  columns: Readonly<Record<string, string>>
}

export async function findParts<R> (q: Queryable, t: PartsTable, companyUid: string, filter: Readonly<Record<string, string[] | undefined>>,
  sort: ReadonlyArray<Sort<string>>, page: Page): Promise<Found<R>> {
  const values: unknown[] = [companyUid]
  const where = ['company_uid = $1']
  for (const [key, wanted] of Object.entries(filter)) {
    const column = t.columns[key]
    if (wanted === undefined || column === undefined) continue
    values.push(wanted)
    where.push(`${column} = ANY($${values.length}::text[])`)
  }
  const order = [...sort.flatMap((s) => {
    const column = t.columns[s.field]
    return column === undefined ? [] : [`${column} ${s.dir === 'desc' ? 'DESC' : 'ASC'} NULLS LAST`]
  }), sort.length === 0 ? 'creation_date, uid' : 'uid'].join(', ')
  const sql = where.join(' AND ')
  const { rows } = await q.query<R>(
    `SELECT * FROM ${t.table} WHERE ${sql} ORDER BY ${order} LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
    [...values, page.size, page.offset])
  // A partial page tells the total by itself; only a full page, or an empty one past the end, needs a count.
  if (rows.length < page.size && (rows.length > 0 || page.offset === 0)) return { count: page.offset + rows.length, items: rows }
  const total = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t.table} WHERE ${sql}`, values)
  return { count: total.rows[0]?.n ?? 0, items: rows }
}
