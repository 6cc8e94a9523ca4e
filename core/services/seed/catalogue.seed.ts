// What every store holds: the public generic firmware applications, brought up to date at each start, and
// the setting templates the first company starts with. Seed sections (fleet.seed.ts), so they follow its rules.
import { GENERIC_APPLICATIONS, GENERIC_SETTINGS, genericDataTree } from '../../domain/generic-applications.js'
import type { FleetSeed } from './fleet.seed.js'

/** The five generic firmware applications, public: each speaks its protocol and declares the generic data tree. */
export function genericApplicationsSeed (): NonNullable<FleetSeed['applications']> {
  const data = genericDataTree()
  return GENERIC_APPLICATIONS.map((a) => ({
    name: a.name,
    type: a.type,
    revision: a.revision,
    category: a.category,
    communication: [{ type: a.protocol, commIdType: 'SERIAL' as const }],
    data
  }))
}

/** Names of the templates the first company starts with. */
export const STARTER_TEMPLATES = { defaultReporting: 'Default reporting', lowPower: 'Low power' } as const

/** Setting templates of the first company, keyed by the generic applications' setting ids. */
export function starterTemplatesSeed (company: string): NonNullable<FleetSeed['templates']> {
  return [
    { company, name: STARTER_TEMPLATES.defaultReporting, settings: [{ key: GENERIC_SETTINGS.reportPeriodS, value: 300 }, { key: GENERIC_SETTINGS.gpsEnabled, value: true }] },
    { company, name: STARTER_TEMPLATES.lowPower, settings: [{ key: GENERIC_SETTINGS.reportPeriodS, value: 3600 }, { key: GENERIC_SETTINGS.gpsEnabled, value: false }] }
  ]
}
