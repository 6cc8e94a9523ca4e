// Migration 0013: applications written in the old shape (protocols, flat data {id, type, settable},
// actions {id, kind}) move to communication and the data tree, and the old columns are gone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '../../../core/ports/store.js'
import { migrate } from '../../../storage/migrate.js'
import { createRepositories } from '../../../storage/repositories/index.js'
import { flattenData } from '../../../core/domain/application-model.js'
import { emptyStore, migrateBefore } from '../../helpers/empty-store.js'

const BEFORE = '0013'

let db: Db
let drop: () => Promise<void>

beforeAll(async () => {
  ({ db, drop } = await emptyStore())
  // The store as it was before 0013: every earlier migration applied and recorded.
  await migrateBefore(db, BEFORE)
  await db.query('INSERT INTO companies (uid, name, created_at) VALUES ($1, $2, $3)', ['c1', 'Old company', 1])
  const old = async (uid: string, company: string | null, protocols: string[], data: unknown, actions: unknown): Promise<void> => {
    await db.query(`INSERT INTO applications (uid, company_uid, name, revision, type, category, protocols, data, actions, created_at)
      VALUES ($1, $2, $3, '1', $1, 'FIRMWARE', $4, $5::jsonb, $6::jsonb, 1)`, [uid, company, `App ${uid}`, protocols, JSON.stringify(data), JSON.stringify(actions)])
  }
  await old('full', null, ['MQTT', 'M3DA'], [
    { id: 'machine.temperature', type: 'double', settable: false },
    { id: 'config.period', type: 'int', settable: true },
    { id: 'machine.state.code', type: 'string', settable: false },
    { id: 'rssi', type: 'float', settable: false }
  ], [{ id: 'reboot', kind: 'REBOOT' }, { id: 'config.factory', kind: 'RESET' }])
  await old('empty', 'c1', [], [], [])
})
afterAll(async () => { await drop() })

describe('migration 0013', () => {
  it('applies first on a store at 0012', async () => {
    const applied = await migrate(db)
    expect(applied[0]).toBe('0013_application_model.sql')
    expect(applied.every((f) => f >= BEFORE)).toBe(true)
  })

  it('moves protocols to communication entries logging in by serial number', async () => {
    const [full] = await createRepositories(db).applications.findByUids('c1', ['full'])
    expect(full?.communication).toEqual([{ type: 'MQTT', commIdType: 'SERIAL' }, { type: 'M3DA', commIdType: 'SERIAL' }])
    const [empty] = await createRepositories(db).applications.findByUids('c1', ['empty'])
    expect(empty).toMatchObject({ communication: [], data: [] })
  })

  it('moves flat data and actions to a tree: dotted ids become nodes, settable data settings, kinds actionTypes', async () => {
    const [full] = await createRepositories(db).applications.findByUids('c1', ['full'])
    expect(full?.data).toEqual([
      {
        id: 'machine',
        elementType: 'node',
        data: [
          { id: 'temperature', elementType: 'variable', type: 'double' },
          { id: 'state', elementType: 'node', data: [{ id: 'code', elementType: 'variable', type: 'string' }] }
        ]
      },
      {
        id: 'config',
        elementType: 'node',
        data: [{ id: 'period', elementType: 'setting', type: 'int' }, { id: 'factory', elementType: 'action', actionType: 'RESET' }]
      },
      // A type outside the model's list is left out.
      { id: 'rssi', elementType: 'variable', type: null },
      { id: 'reboot', elementType: 'action', actionType: 'REBOOT' }
    ])
    expect(flattenData(full?.data ?? []).map((d) => d.id)).toEqual(['machine.temperature', 'machine.state.code', 'config.period', 'config.factory', 'rssi', 'reboot'])
  })

  it('drops the old columns', async () => {
    const { rows } = await db.query<{ column_name: string }>(
      'SELECT column_name FROM information_schema.columns WHERE table_name = \'applications\' ORDER BY column_name')
    const columns = rows.map((r) => r.column_name)
    expect(columns).toContain('communication')
    expect(columns).not.toContain('protocols')
    expect(columns).not.toContain('actions')
  })
})
