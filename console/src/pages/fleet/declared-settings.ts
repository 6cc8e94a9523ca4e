// What the apply-settings dialog offers: the settings the applications of the chosen systems declare (their `data`
// trees, GET /api/v1/applications) and the company's templates (GET /api/v1/templates). A key typed by hand that no
// application declares is refused per system by the service; offering the declared ones, with their type, avoids
// that. No DOM here (tested in test/unit/console/declared-settings.test.ts).
import type { SettingType } from './bulk.js'

export interface DataNode { id: string, elementType: string, type?: string | null, data?: DataNode[] }
export interface AppData { uid: string, name: string, data?: DataNode[] | null }
export interface DeclaredSetting { key: string, type: string | null, application: string }

/** The settings of the applications, by key (one entry per key: the first application that declares it). */
export function declaredSettings (apps: readonly AppData[]): DeclaredSetting[] {
  const found = new Map<string, DeclaredSetting>()
  const walk = (nodes: readonly DataNode[], prefix: string, application: string): void => {
    for (const n of nodes) {
      const key = prefix === '' ? n.id : `${prefix}.${n.id}`
      if (n.elementType === 'node') walk(n.data ?? [], key, application)
      else if (n.elementType === 'setting' && !found.has(key)) found.set(key, { key, type: n.type ?? null, application })
    }
  }
  for (const a of apps) walk(a.data ?? [], '', a.name)
  return [...found.values()].sort((x, y) => x.key.localeCompare(y.key))
}

/** The dialog's value type for a declared setting type: int and double are numbers, date and binary text. */
export function settingTypeOf (declared: string | null): SettingType {
  switch (declared) {
    case 'int':
    case 'double': return 'number'
    case 'boolean': return 'boolean'
    case 'string':
    case 'date':
    case 'binary': return 'string'
    default: return 'auto'
  }
}

/**
 * The applications to offer settings of: those of the chosen systems when they are known (a list of uids and their
 * systems' application uids), else every application the company may use.
 */
export function applicationsOf (apps: readonly AppData[], chosenApps: ReadonlySet<string> | null): AppData[] {
  return chosenApps === null ? [...apps] : apps.filter((a) => chosenApps.has(a.uid))
}
