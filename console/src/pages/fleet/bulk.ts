// The bulk operations the fleet page runs on the selected systems (docs/operations.md#bulk-operations): the path
// and body of each, built from what the operator typed. No DOM here (tested in test/unit/console/bulk.test.ts).

export interface BulkRequest { path: string, body: Record<string, unknown> }

/** AirVantage's limit, kept by the service: a selection names at most 100 distinct uids. */
export const MAX_SELECTED = 100

/** Which systems an operation acts on: the selected uids, or every system matching the fleet's filters. */
export type Target = { uids: readonly string[] } | { criteria: Record<string, unknown> }

/** The `systems` selection of docs/operations.md#bulk-operations: exactly one of uids or criteria. */
export const selection = (t: Target): Record<string, unknown> => 'uids' in t ? { uids: [...t.uids] } : { criteria: t.criteria }

/** "a, b  c" → ['a', 'b', 'c']: labels and data ids typed in one field, by commas or spaces, each once. */
export function splitList (text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).map((s) => s.trim()).filter((s) => s !== ''))]
}

/** Label: the criteria (uids among them) at the top level, no `systems` wrapper (docs/operations.md#bulk-operations).
 */
export function labelRequest (t: Target, add: readonly string[], remove: readonly string[]): BulkRequest {
  return {
    path: '/api/v1/operations/systems/label',
    body: { criteria: 'uids' in t ? { uids: [...t.uids] } : t.criteria, labels: { add: [...add], remove: [...remove] } }
  }
}

export function rebootRequest (t: Target, requestConnection: boolean): BulkRequest {
  return { path: '/api/v1/operations/systems/reboot', body: { systems: selection(t), requestConnection } }
}

export function retrieveRequest (t: Target, dataIds: readonly string[], requestConnection: boolean): BulkRequest {
  return { path: '/api/v1/operations/systems/data/retrieve', body: { systems: selection(t), data: [...dataIds], requestConnection } }
}

export function deleteRequest (t: Target, deleteGateways: boolean, deleteSubscriptions: boolean): BulkRequest {
  return { path: '/api/v1/operations/systems/delete', body: { systems: selection(t), deleteGateways, deleteSubscriptions } }
}

export const SETTING_TYPES = ['auto', 'string', 'number', 'boolean'] as const
export type SettingType = typeof SETTING_TYPES[number]
export interface SettingRow { key: string, value: string, type: SettingType }
export type SettingValue = string | number | boolean

/**
 * A typed value to its JSON value, whose JSON type gives the setting type (docs/operations.md#bulk-operations): `auto`
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

export function settingsRequest (t: Target, settings: ReadonlyArray<{ key: string, value: SettingValue }>, reboot: boolean, requestConnection: boolean): BulkRequest {
  return { path: '/api/v1/operations/systems/settings', body: { systems: selection(t), settings: [...settings], reboot, requestConnection } }
}

/** Apply settings with a template of the company: its settings and name replace the request's
 * (docs/operations.md#bulk-operations). */
export function templateRequest (t: Target, templateId: string, reboot: boolean, requestConnection: boolean): BulkRequest {
  return { path: '/api/v1/operations/systems/settings', body: { systems: selection(t), templateId, reboot, requestConnection } }
}
