// The bulk operations the fleet page runs on the selected systems (fleet-api.md §Operations on systems): the path
// and body of each, built from what the operator typed. No DOM here (tested in test/unit/console/bulk.test.ts).

export interface BulkRequest { path: string, body: Record<string, unknown> }

/** fleet-api.md §Limits: a selection names at most 100 distinct uids. */
export const MAX_SELECTED = 100

/** "a, b  c" → ['a', 'b', 'c']: labels and data ids typed in one field, by commas or spaces, each once. */
export function splitList (text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).map((s) => s.trim()).filter((s) => s !== ''))]
}

/** Label: `criteria.uids` at the top level, no `systems` wrapper (fleet-api.md §Label). */
export function labelRequest (uids: readonly string[], add: readonly string[], remove: readonly string[]): BulkRequest {
  return {
    path: '/api/v1/operations/systems/label',
    body: { criteria: { uids: [...uids] }, labels: { add: [...add], remove: [...remove] } }
  }
}

export function rebootRequest (uids: readonly string[], requestConnection: boolean): BulkRequest {
  return { path: '/api/v1/operations/systems/reboot', body: { systems: { uids: [...uids] }, requestConnection } }
}

export function retrieveRequest (uids: readonly string[], dataIds: readonly string[], requestConnection: boolean): BulkRequest {
  return { path: '/api/v1/operations/systems/data/retrieve', body: { systems: { uids: [...uids] }, data: [...dataIds], requestConnection } }
}

export function deleteRequest (uids: readonly string[], deleteGateways: boolean, deleteSubscriptions: boolean): BulkRequest {
  return { path: '/api/v1/operations/systems/delete', body: { systems: { uids: [...uids] }, deleteGateways, deleteSubscriptions } }
}

export const SETTING_TYPES = ['auto', 'string', 'number', 'boolean'] as const
export type SettingType = typeof SETTING_TYPES[number]
export interface SettingRow { key: string, value: string, type: SettingType }
export type SettingValue = string | number | boolean

/**
 * A typed value to its JSON value, whose JSON type gives the setting type (fleet-api.md §Apply settings): `auto`
 * reads true/false as a boolean and a number as a number, anything else as text. null when the value does not
 * fit the type chosen.
 */
export function settingValue (row: SettingRow): SettingValue | null {
  const text = row.value.trim()
  const bool = text === 'true' ? true : text === 'false' ? false : null
  const num = text !== '' && Number.isFinite(Number(text)) ? Number(text) : null
  switch (row.type) {
    case 'string': return row.value
    case 'boolean': return bool
    case 'number': return num
    case 'auto': return bool ?? num ?? row.value
  }
}

/** The settings of the rows with a key; the first row whose value does not fit its type is named in `error`. */
export function settingsOf (rows: readonly SettingRow[]): { settings: Array<{ key: string, value: SettingValue }>, error: string | null } {
  const settings: Array<{ key: string, value: SettingValue }> = []
  for (const row of rows) {
    const key = row.key.trim()
    if (key === '') continue
    const value = settingValue(row)
    if (value === null) return { settings, error: `The value of ${key} is not a ${row.type}.` }
    settings.push({ key, value })
  }
  return { settings, error: null }
}

export function settingsRequest (uids: readonly string[], settings: ReadonlyArray<{ key: string, value: SettingValue }>, reboot: boolean, requestConnection: boolean): BulkRequest {
  return { path: '/api/v1/operations/systems/settings', body: { systems: { uids: [...uids] }, settings: [...settings], reboot, requestConnection } }
}
