// The protocol modules' migrations (storage/migrate.ts; docs/decisions/0013-protocol-modules.md): M3DA's and MSCI's
// files moved from storage/migrations/ to their modules' folders under the same names. A store migrated when they
// were one folder has recorded these names: it must apply nothing after the move (`fleet migrate` answers "up to
// date": it prints what migrate() answers) and be at the schema a new store gets. On the run's engine (PGlite, or
// PostgreSQL with TEST_DATABASE_URL).
import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '../../core/ports/store.js'
import { migrate, migrations, pendingMigrations } from '../../storage/migrate.js'
import { emptyStore } from '../helpers/empty-store.js'

/** storage/migrations/ before the protocol modules, in the order it was applied (by name). */
const ONE_FOLDER = [
  '0001_accounts.sql', '0002_systems.sql', '0003_find_indexes.sql', '0004_jobs.sql', '0005_telemetry.sql', '0006_operations.sql',
  '0007_operation_followups.sql', '0008_oauth_codes.sql', '0009_token_families.sql', '0010_callback_delivery.sql', '0011_repeatable_jobs.sql',
  '0012_device_task_protocol.sql', '0013_application_model.sql', '0014_open_tasks_by_system.sql', '0015_rollout_abort.sql',
  '0016_m3da_sessions.sql', '0017_gateway_inventory.sql', '0018_usage_billing.sql', '0019_data_rollups.sql', '0020_points_partitions.sql',
  '0022_msci_polls.sql', '0023_pkce_public_clients.sql', '0024_system_state.sql', '0025_message_keys.sql', '0026_usage_rollups.sql',
  '0027_data_rollups_daily.sql', '0028_device_task_order.sql', '0029_sign_in_unlocks.sql', '0030_client_implicit_grant.sql',
  '0031_application_category.sql'
]

/** Tables, columns, indexes, triggers and functions of the public schema, comparable across two stores. */
async function schemaOf (db: Db): Promise<unknown> {
  const q = async (sql: string): Promise<unknown[]> => (await db.query(sql)).rows
  return {
    columns: await q(`SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
      WHERE table_schema = 'public' ORDER BY table_name, column_name`),
    indexes: await q("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname"),
    triggers: await q(`SELECT trigger_name, event_object_table, action_statement FROM information_schema.triggers
      WHERE trigger_schema = 'public' ORDER BY trigger_name, event_object_table, event_manipulation`),
    functions: await q("SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public' ORDER BY p.proname")
  }
}

describe('protocol modules\' migrations', () => {
  let before: { db: Db, drop: () => Promise<void> } | undefined
  let fresh: { db: Db, drop: () => Promise<void> } | undefined
  beforeAll(async () => { [before, fresh] = await Promise.all([emptyStore(), emptyStore()]) })
  afterAll(async () => { await Promise.all([before?.drop(), fresh?.drop()]) })

  it('apply in one order by name, whichever folder holds them; the moved ones in their modules\' folders', async () => {
    const all = await migrations()
    expect(all.map((m) => m.name).slice(0, ONE_FOLDER.length)).toEqual(ONE_FOLDER)
    expect(all.map((m) => m.name)).toEqual(all.map((m) => m.name).sort())
    const folderOf = (name: string): string | undefined => all.find((m) => m.name === name)?.path.replace(/\\/g, '/').replace(/\/[^/]+$/, '')
    expect(folderOf('0016_m3da_sessions.sql')).toMatch(/\/ingest\/m3da\/migrations$/)
    expect(folderOf('0022_msci_polls.sql')).toMatch(/\/ingest\/msci\/migrations$/)
    expect(folderOf('0024_system_state.sql')).toMatch(/\/storage\/migrations$/)
  })

  it('a store migrated when they were one folder applies nothing, and has the schema of a new store', async () => {
    if (before === undefined || fresh === undefined) throw new Error('no stores')
    const { db } = before
    // As the migrate() of one folder did: each file in name order, recorded under its name.
    const paths = new Map((await migrations()).map((m) => [m.name, m.path]))
    await db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at bigint NOT NULL)')
    for (const name of ONE_FOLDER) {
      await db.exec(await readFile(paths.get(name) ?? name, 'utf8'))
      await db.query('INSERT INTO schema_migrations (name, applied_at) VALUES ($1, $2)', [name, 1])
    }
    const later = [...paths.keys()].filter((n) => !ONE_FOLDER.includes(n))
    expect(await pendingMigrations(db)).toEqual(later)
    expect(await migrate(db)).toEqual(later)
    expect(await migrate(db)).toEqual([])
    expect(await pendingMigrations(db)).toEqual([])
    expect(await migrate(fresh.db)).toEqual([...paths.keys()])
    expect(await schemaOf(db)).toEqual(await schemaOf(fresh.db))
  })
})
