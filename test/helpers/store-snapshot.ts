// A fingerprint of the store: per table, the row count and a checksum of every row. Two equal snapshots mean the
// store did not change in between (docs/api.md#using-the-api: a failed request changes nothing).
import type { Db } from '../../core/ports/store.js'

export type Snapshot = Record<string, string>

/** The tables of the public schema (the migrations' bookkeeping table included: it must not change either). */
export async function storeTables (db: Db): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1")
  return rows.map((r) => r.name)
}

// The periodic sweeps are repeatable jobs whose one row each moves its due time on after every run, whatever the
// requests do (storage/queue/local-queue.ts): they are the queue's clock, not a change a request made. Every other
// job row counts, so a refused request that queued work would still show.
const OWN_ROWS: Record<string, string> = { jobs: '(SELECT * FROM jobs WHERE repeat_every_ms IS NULL)' }

/** One round trip: `table → "<rows>:<md5 of the sorted row hashes>"`. */
export async function snapshot (db: Db, tables: readonly string[]): Promise<Snapshot> {
  const parts = tables.map((t, i) =>
    `SELECT ${i} AS i, count(*)::text || ':' || coalesce(md5(string_agg(md5(x::text), '' ORDER BY md5(x::text))), '') AS h FROM ${OWN_ROWS[t] ?? `"${t}"`} x`)
  const { rows } = await db.query<{ i: number, h: string }>(parts.join(' UNION ALL '))
  return Object.fromEntries(rows.map((r) => [tables[r.i] ?? '?', r.h]))
}

/** The tables whose fingerprint differs. */
export function changedTables (before: Snapshot, after: Snapshot): string[] {
  return Object.keys({ ...before, ...after }).filter((t) => before[t] !== after[t])
}
