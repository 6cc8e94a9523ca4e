// The schema's migrations: core's (storage/migrations/) and each protocol module's (ingest/<protocol>/migrations/,
// docs/decisions/0013-protocol-modules.md), applied in one order, by file name, as when they were one folder. A file's
// name is what the store records (schema_migrations): it never changes, so a store migrated before a file moved to
// its protocol's folder neither runs it again nor misses it.
import { readdir, readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import type { Db } from '../core/ports/store.js'

const CORE_DIR = fileURLToPath(new URL('./migrations/', import.meta.url))
// The protocol modules' folders are found on disk by their place, not imported: storage knows no protocol, and
// `fleet migrate` and the readiness check load no transport.
const PROTOCOLS_DIR = fileURLToPath(new URL('../ingest/', import.meta.url))
// Several processes may start at once on one PostgreSQL server: one applies, the others wait.
const LOCK_KEY = 7_146_201

export interface Migration { name: string, path: string }

async function sqlFiles (dir: string): Promise<Migration[]> {
  const names = await readdir(dir).catch((err: NodeJS.ErrnoException) => { if (err.code === 'ENOENT') return []; throw err })
  return names.filter((f) => f.endsWith('.sql')).map((name) => ({ name, path: dir + name }))
}

/**
 * Every migration, in the order they apply: by name, whichever folder holds it. Two files of one number would have
 * no order of their own: refused (a new protocol takes the next free number).
 */
export async function migrations (): Promise<Migration[]> {
  const modules = (await readdir(PROTOCOLS_DIR, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => `${PROTOCOLS_DIR}${d.name}/migrations/`)
  const all = (await Promise.all([CORE_DIR, ...modules].map(sqlFiles))).flat().sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  const numbers = new Map<string, string>()
  for (const m of all) {
    const number = /^\d+/.exec(m.name)?.[0] ?? m.name
    const other = numbers.get(number)
    if (other !== undefined) throw new Error(`migrations ${other} and ${m.path} have one number: give the newer one the next free number`)
    numbers.set(number, m.path)
  }
  return all
}

/** Applies, in name order, the migrations not yet applied; answers their names. */
export async function migrate (db: Db): Promise<string[]> {
  const files = await migrations()
  await db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at bigint NOT NULL)')
  return await db.transaction(async (tx) => {
    if (db.kind === 'postgres') await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY])
    const done = new Set((await tx.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((r) => r.name))
    const applied: string[] = []
    for (const file of files) {
      if (done.has(file.name)) continue
      const sql = await readFile(file.path, 'utf8')
      for (const statement of splitStatements(sql)) await tx.query(statement)
      await tx.query('INSERT INTO schema_migrations (name, applied_at) VALUES ($1, $2)', [file.name, Date.now()])
      applied.push(file.name)
    }
    return applied
  })
}

/** The migration files not applied to the store yet (GET /ready: none is the expected answer). */
export async function pendingMigrations (db: Db): Promise<string[]> {
  const files = await migrations()
  const { rows } = await db.query<{ name: string }>('SELECT name FROM schema_migrations')
  const done = new Set(rows.map((r) => r.name))
  return files.map((f) => f.name).filter((f) => !done.has(f))
}

/** Splits a migration file on the semicolons that end statements (files hold no functions or quoted ';'). */
function splitStatements (sql: string): string[] {
  return sql.split(/;\s*(?:\n|$)/).map((s) => s.replace(/^\s*--.*$/gm, '').trim()).filter((s) => s.length > 0)
}
