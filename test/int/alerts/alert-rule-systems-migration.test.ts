// Migration 0041 (decision 0032: pinned rules found from the batch's systems) on a store that already holds rules:
// each pinned rule gets a row per system it is pinned to, and the candidates lookup finds it by them, as it finds a
// rule created after the migration; an unpinned rule is found by its data id alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '../../../core/ports/store.js'
import { migrate } from '../../../storage/migrate.js'
import { createAlertEvaluationRepository } from '../../../storage/repositories/alert-evaluation.repository.js'
import { emptyStore, migrateBefore } from '../../helpers/empty-store.js'

const MIGRATION = '0041_alert_rule_systems.sql'

let db: Db
let drop: () => Promise<void>

async function rule (uid: string, dataIds: string[], systems: string[] | null): Promise<void> {
  await db.query(`INSERT INTO alert_rules (uid, company_uid, name, conditions, periodic, created_at, updated_at)
    VALUES ($1, 'c-old', $1, '[]', false, 0, 0)`, [uid])
  for (const d of dataIds) {
    await db.query('INSERT INTO alert_rule_data_ids (company_uid, data_id, rule_uid, system_uids) VALUES ($1, $2, $3, $4)', ['c-old', d, uid, systems])
  }
}

beforeAll(async () => {
  ({ db, drop } = await emptyStore())
  await migrateBefore(db, MIGRATION)
  await db.query("INSERT INTO companies (uid, name, created_at) VALUES ('c-old', 'Old', 0)")
  await rule('r-one', ['temp'], ['sys-a'])
  await rule('r-two', ['temp', 'volt'], ['sys-a', 'sys-b', 'sys-a'])
  await rule('r-any', ['temp'], null)
})
afterAll(async () => { await drop() })

describe('migration 0041', () => {
  it('gives each pinned rule a row per system it is pinned to, by which the candidates lookup finds it', async () => {
    expect((await migrate(db))[0]).toBe(MIGRATION)
    const { rows } = await db.query<{ system_uid: string, rule_uid: string, company_uid: string }>(
      'SELECT system_uid, rule_uid, company_uid FROM alert_rule_systems ORDER BY rule_uid, system_uid')
    expect(rows.map((r) => `${r.rule_uid} ${r.system_uid} ${r.company_uid}`)).toEqual([
      'r-one sys-a c-old', 'r-two sys-a c-old', 'r-two sys-b c-old'])
    const found = async (systems: string[]): Promise<string[]> =>
      (await createAlertEvaluationRepository(db).candidates(['c-old'], ['temp', 'volt'], systems)).map((m) => m.ruleUid).sort()
    expect(await found(['sys-a'])).toEqual(['r-any', 'r-one', 'r-two'])
    expect(await found(['sys-b'])).toEqual(['r-any', 'r-two'])
    expect(await found(['sys-c'])).toEqual(['r-any'])
  })
})
