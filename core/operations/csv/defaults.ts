// The JSON part of a CSV operation request (docs/operations.md#csv-operations: `defaultValues`; §Import and §Bulk edit:
// named `defaultValues` by the rule and `parameters` by the sample, so both are read).
import { FleetError } from '../../errors.js'

export interface CsvDefaults {
  notify?: boolean
  callback?: string | null
  /** Applications every new system gets (public or the company's). */
  defaultApplications?: string[]
  /** Register: the offer of the systems it makes. */
  offerId?: string
  /** Import and bulk edit: the system type when the file has no TYPE column. */
  defaultType?: string
}

/** The names the JSON part may have (either one; the first found wins). */
export const DEFAULTS_PART_NAMES = ['defaultValues', 'parameters'] as const

const invalid = (field: string, why: string): FleetError => new FleetError('request.invalid', [field, why])

/**
 * The defaults the part holds, the keys this kind reads (others are ignored, as the reference service does).
 * @throws request.invalid (not JSON, not an object, a value of the wrong type)
 */
export function parseDefaults (text: string | undefined, keys: ReadonlyArray<keyof CsvDefaults>): CsvDefaults {
  if (text === undefined || text.trim() === '') return {}
  let value: unknown
  try { value = JSON.parse(text) } catch { throw invalid('defaultValues', 'the part is not JSON') }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid('defaultValues', 'the part is a JSON object')
  const v = value as Record<string, unknown>
  const out: CsvDefaults = {}
  for (const key of keys) {
    const x = v[key]
    if (x === undefined || x === null) continue
    switch (key) {
      case 'notify':
        if (typeof x !== 'boolean') throw invalid(key, 'true or false')
        out.notify = x
        break
      case 'defaultApplications':
        if (!Array.isArray(x) || !x.every((u) => typeof u === 'string' && u !== '')) throw invalid(key, 'a list of application uids')
        out.defaultApplications = [...new Set(x as string[])]
        break
      default:
        if (typeof x !== 'string') throw invalid(key, 'a string')
        if (x !== '') out[key] = x
    }
  }
  return out
}
