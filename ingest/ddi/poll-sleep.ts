// How long a controller sleeps between polls (docs/protocols/ddi.md#polling): the `pollPeriodS` parameter of the DDI
// communication entry of the system's applications, else five minutes (hawkBit's own default). Remembered a little
// while per system: a fleet polls often, and an application's parameters rarely change.
import { communicationParameters } from '../../core/domain/application-model.js'
import type { Repositories } from '../../core/ports/repositories.js'
import { MAX_SLEEP_S } from './ddi-json.js'

export const DEFAULT_POLL_S = 300
const CACHE_MS = 30_000
const CACHE_MAX = 50_000

export function createPollSleep (deps: { applications: Pick<Repositories['applications'], 'forSystems'>, now: () => number }) {
  const cache = new Map<string, { at: number, sleepS: number }>()
  return async function pollSleepS (systemUid: string): Promise<number> {
    const now = deps.now()
    const hit = cache.get(systemUid)
    if (hit !== undefined && now - hit.at < CACHE_MS) return hit.sleepS
    const apps = (await deps.applications.forSystems([systemUid])).get(systemUid) ?? []
    const p = communicationParameters(apps, 'DDI').pollPeriodS
    const sleepS = typeof p === 'number' && Number.isInteger(p) && p >= 1 && p <= MAX_SLEEP_S ? p : DEFAULT_POLL_S
    if (cache.size >= CACHE_MAX) cache.clear()
    cache.set(systemUid, { at: now, sleepS })
    return sleepS
  }
}
