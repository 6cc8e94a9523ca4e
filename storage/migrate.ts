import { readdir, readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import type { Db } from '../core/ports/store.js'

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url))
// Several processes may start at once on one PostgreSQL server: one applies, the others wait.
const LOCK_KEY = 7_146_201

/** Applies, in name order, the SQL files of storage/migrations not yet applied; answers their names. */
export async function migrate (db: Db): Promise<string[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort()
  await db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at bigint NOT NULL)')
  return await db.transaction(async (tx) => {
    if (db.kind === 'postgres') await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY])
    const done = new Set((await tx.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((r) => r.name))
    const applied: string[] = []
    for (const file of files) {
      if (done.has(file)) continue
      const sql = await readFile(MIGRATIONS_DIR + file, 'utf8')
      for (const statement of splitStatements(sql)) await tx.query(statement)
      await tx.query('INSERT INTO schema_migrations (name, applied_at) VALUES ($1, $2)', [file, Date.now()])
      applied.push(file)
    }
    return applied
  })
}

/** The migration files not applied to the store yet (GET /ready: none is the expected answer). */
export async function pendingMigrations (db: Db): Promise<string[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql'))
  const { rows } = await db.query<{ name: string }>('SELECT name FROM schema_migrations')
  const done = new Set(rows.map((r) => r.name))
  return files.filter((f) => !done.has(f)).sort()
}

/** Splits a migration file on the semicolons that end statements (files hold no functions or quoted ';'). */
function splitStatements (sql: string): string[] {
  return sql.split(/;\s*(?:\n|$)/).map((s) => s.replace(/^\s*--.*$/gm, '').trim()).filter((s) => s.length > 0)
}
