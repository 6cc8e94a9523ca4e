// The right that creating (and so cancelling) each operation type needs, checked against the Permission column of
// docs/operations.md#bulk-operations and docs/operations.md#bulk-operations, so that the two cannot drift apart.
import { describe, expect, it } from 'vitest'
import { OPERATION_RIGHTS } from '../../core/operations/rights.js'
import type { OperationType } from '../../core/domain/operation.js'
import { readSpec } from '../helpers/spec.js'

// The operation names of the spec's table, as the service names their types.
const TYPES: Record<string, OperationType> = {
  Label: 'SYSTEM_LABEL',
  Transfer: 'SYSTEM_TRANSFER',
  'Swap SIM': 'SYSTEM_SWAP_SIM',
  Register: 'SYSTEM_REGISTER',
  'Import (deprecated)': 'SYSTEM_IMPORT',
  'Bulk edit': 'SYSTEM_EDIT',
  'Bulk delete': 'SYSTEM_DELETE',
  'Retrieve data': 'SYSTEM_RETRIEVE_DATA',
  'Apply settings': 'SYSTEM_APPLY_SETTINGS',
  Reboot: 'SYSTEM_REBOOT',
  'Reset to factory': 'SYSTEM_RESET',
  'Wake-up': 'SYSTEM_WAKEUP'
}

describe('OPERATION_RIGHTS', () => {
  it('gives each operation of fleet-api.md §Operations on systems the permission of its row', () => {
    const spec = readSpec('fleet-api.md')
    const rows = [...spec.matchAll(/^\| ([^|]+?) \| \/api\/v1\/operations\/systems\/[^|]+ \| ([^|]+?) \|/gm)]
    expect(rows.map((r) => r[1])).toEqual(Object.keys(TYPES))
    for (const [, name = '', permission = ''] of rows) {
      // Transfer also needs a right in the destination company; the first right is the one in the context company.
      const right = permission.split(',')[0]?.trim()
      expect([name, OPERATION_RIGHTS[TYPES[name] as OperationType]]).toEqual([name, right])
    }
  })

  it('gives export data history entities.systems.export (fleet-api.md §Export data history)', () => {
    expect(readSpec('fleet-api.md')).toMatch(/export\/data\/historical, permission entities\.systems\.export/)
    expect(OPERATION_RIGHTS.SYSTEM_EXPORT_DATA_HISTORY).toBe('entities.systems.export')
  })
})
