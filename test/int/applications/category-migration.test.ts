// Migration 0031: applications stored with the category SOFTWARE become APPLICATION, as AirVantage says, and the
// store takes APPLICATION and FIRMWARE only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '../../../core/ports/store.js'
import { migrate } from '../../../storage/migrate.js'
import { emptyStore, migrateBefore } from '../../helpers/empty-store.js'

let db: Db
let drop: () => Promise<void>

beforeAll(async () => {
  ({ db, drop } = await emptyStore())
  await migrateBefore(db, '0031')
  for (const [uid, category] of [['sw', 'SOFTWARE'], ['fw', 'FIRMWARE']]) {
    await db.query(`INSERT INTO applications (uid, company_uid, name, revision, type, category, created_at)
      VALUES ($1, NULL, $1, '1', $1, $2, 1)`, [uid, category])
  }
})
afterAll(async () => { await drop() })

describe('migration 0031', () => {
  it('stores SOFTWARE as APPLICATION, keeps FIRMWARE, and refuses SOFTWARE from then on', async () => {
    expect((await migrate(db))[0]).toBe('0031_application_category.sql')
    const { rows } = await db.query<{ uid: string, category: string }>('SELECT uid, category FROM applications ORDER BY uid')
    expect(rows).toEqual([{ uid: 'fw', category: 'FIRMWARE' }, { uid: 'sw', category: 'APPLICATION' }])
    await expect(db.query("INSERT INTO applications (uid, name, revision, type, category, created_at) VALUES ('x', 'x', '1', 'x', 'SOFTWARE', 1)")).rejects.toThrow()
  })
})
