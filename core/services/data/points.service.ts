// docs/devices.md
// (rules and codes: §Errors, rows "last data points", "raw data points", "aggregated and fleet data points").
import { FleetError } from '../../errors.js'
import type { Clock } from '../../ports/store.js'
import type { Repositories } from '../../ports/repositories.js'
import type { Actor } from '../../domain/actor.js'
import { enterCompany, type CompanyAccess } from '../access.js'
import type { AggregateRow, LastSelection, StoredPoint } from '../../ports/data-queries.js'
import type { DataValue } from '../../domain/device-message.js'
import { list } from '../../domain/lists.js'
import { USAGE_DATA_IDS, bucketsOf, isUsageDataId, parseFn, parseInterval, type AggregateFn, type UsageSeries } from '../../domain/aggregation.js'
import { checkOwnSystems } from './own-systems.js'
import { MAX_DATA_IDS, idList, range, size, threeMonthsBefore } from './params.js'

/** docs/api.md#limits: targetIds 5 systems (raw), 50 systems (aggregated), 5 companies (fleet). */
export const MAX_RAW_TARGETS = 5
export const MAX_AGGREGATED_TARGETS = 50
export const MAX_FLEET_TARGETS = 5

/** The right the fleet endpoint needs in every company it reads (docs/api.md). */
const VIEW = 'entities.systems.view'

export interface LastQuery { ids?: string | string[] | undefined, idPrefix?: string | undefined }
export interface RangeQuery {
  targetIds?: string | string[] | undefined
  dataIds?: string | string[] | undefined
  from?: number | undefined
  to?: number | undefined
  size?: number | undefined
}
export interface AggregatedQuery extends RangeQuery { interval?: string | undefined, fn?: string | undefined }
export interface FleetQuery extends AggregatedQuery { fleetFn?: string | undefined }

export type LastPoints = Record<string, Array<{ value: DataValue, timestamp: number }>>
/** docs/devices.md: v is a number, a string or null. */
export type PointValue = number | string | null
export type Points = Record<string, Record<string, Array<{ ts: number, v: PointValue }>>>

/**
 * `ids` or `idPrefix`, never both; an empty idPrefix is refused; an `ids` naming no id at all is an invalid data
 * parameter (with neither, every data id answers).
 * @throws FleetError lastdata.incompatible.parameters, lastdata.empty.parameters, system.invalid.data.param
 */
export function lastSelection (q: LastQuery): LastSelection {
  if (q.ids !== undefined && q.idPrefix !== undefined) throw new FleetError('lastdata.incompatible.parameters', ['ids', 'idPrefix'])
  if (q.idPrefix !== undefined) {
    if (q.idPrefix.trim() === '') throw new FleetError('lastdata.empty.parameters', ['idPrefix'])
    return { prefix: q.idPrefix }
  }
  if (q.ids === undefined) return { all: true }
  const ids = [...new Set(list(q.ids))]
  if (ids.length === 0) throw new FleetError('system.invalid.data.param', ['ids'])
  return { ids }
}

/** A missing or empty targetIds / dataIds is an invalid data parameter; too many, aggregation.too.many.*. */
const targetCodes = { missing: 'system.invalid.data.param', tooMany: 'aggregation.too.many.targets' } as const
const dataCodes = { missing: 'system.invalid.data.param', tooMany: 'aggregation.too.many.data' } as const

/** Each requested key with each requested data id, in request order, with no point yet. */
function emptyAnswer (keys: string[], dataIds: string[]): Points {
  const out: Points = {}
  for (const k of keys) {
    const perId: Points[string] = {}
    for (const id of dataIds) perId[id] = []
    out[k] = perId
  }
  return out
}

/**
 * One value per requested bucket, most recent first (docs/api.md: most recent first). A bucket with no point is
 * null, except for `cnt` whose value there is 0.
 */
function bucketAnswer (keys: string[], dataIds: string[], buckets: number[], rows: AggregateRow[], fn: AggregateFn): Points {
  const values = new Map<string, number | null>()
  for (const r of rows) values.set(`${r.key}\n${r.dataId}\n${r.bucket}`, r.v)
  const empty = fn === 'cnt' ? 0 : null
  const out = emptyAnswer(keys, dataIds)
  for (const k of keys) {
    for (const id of dataIds) {
      const series = out[k]?.[id] ?? []
      for (let b = buckets.length - 1; b >= 0; b--) series.push({ ts: buckets[b] ?? 0, v: values.get(`${k}\n${id}\n${b}`) ?? empty })
    }
  }
  return out
}

function splitUsage (dataIds: string[]): { stored: string[], usage: Record<string, UsageSeries> } {
  const usage: Record<string, UsageSeries> = {}
  const stored: string[] = []
  for (const id of dataIds) {
    const series = isUsageDataId(id) ? USAGE_DATA_IDS[id] : undefined
    if (series === undefined) stored.push(id)
    else usage[id] = series
  }
  return { stored, usage }
}

/**
 * The Points answer as JSON pieces, one per (system, data id) in request order, from the stored series' JSON keyed
 * `system\ndataId` (a pair without points is an empty array).
 */
function rawPieces (targets: readonly string[], dataIds: readonly string[], series: ReadonlyMap<string, string>): string[] {
  const pieces: string[] = []
  targets.forEach((t, i) => {
    dataIds.forEach((id, j) => {
      const open = j > 0 ? ',' : `${i > 0 ? '},' : '{'}${JSON.stringify(t)}:{`
      pieces.push(`${open}${JSON.stringify(id)}:${series.get(`${t}\n${id}`) ?? '[]'}`)
    })
  })
  pieces.push('}}')
  return pieces
}

export function createPointsService ({ repos, clock }: { repos: Pick<Repositories, 'dataQueries' | 'companies'>, clock: Clock }) {
  const ownSystems = async (access: CompanyAccess, uids: string[]): Promise<void> => { await checkOwnSystems(repos.dataQueries, access, uids) }

  return {
    async last (access: CompanyAccess, systemUid: string, q: LastQuery): Promise<LastPoints> {
      await ownSystems(access, [systemUid])
      const selection = lastSelection(q)
      const points: StoredPoint[] = await repos.dataQueries.last(systemUid, selection)
      const out: LastPoints = {}
      for (const p of points) out[p.dataId] = [{ value: p.value, timestamp: p.ts }]
      return out
    },

    /**
     * Up to `size` points per (system, data id), most recent first, in [from, to) (default: the last 3 months), as
     * the JSON text of a Points answer: each key once, in request order, an empty array for a pair without points.
     * The text comes in pieces, one per (system, data id), to be written one after the other: joined, 5 systems ×
     * 10 ids × 500 points made a 1 MB string, then a 1 MB buffer, each a fresh large allocation that cost more than
     * the store's statement (bench query).
     */
    async raw (access: CompanyAccess, q: RangeQuery): Promise<string[]> {
      const targets = idList(q.targetIds, MAX_RAW_TARGETS, targetCodes, 'targetIds')
      const dataIds = idList(q.dataIds, MAX_DATA_IDS, dataCodes, 'dataIds')
      const now = clock.now()
      const r = range(q, now, 'system.invalid.timerange', threeMonthsBefore(now))
      await ownSystems(access, targets)
      const n = size(q.size)
      const series = new Map<string, string>()
      if (n > 0 && r.from !== r.to) {
        for (const s of await repos.dataQueries.rawJson(targets, dataIds, r, n)) series.set(`${s.systemUid}\n${s.dataId}`, s.json)
      }
      return rawPieces(targets, dataIds, series)
    },

    /** `fn` per system over calendar buckets of `interval` (docs/devices.md); usage data ids allowed. */
    async aggregated (access: CompanyAccess, q: AggregatedQuery): Promise<Points> {
      const interval = parseInterval(q.interval)
      const fn = parseFn(q.fn, 'fn')
      const targets = idList(q.targetIds, MAX_AGGREGATED_TARGETS, targetCodes, 'targetIds')
      const dataIds = idList(q.dataIds, MAX_DATA_IDS, dataCodes, 'dataIds')
      const r = range(q, clock.now(), 'invalid.timerange', null)
      await ownSystems(access, targets)
      const buckets = bucketsOf(r.from, r.to, interval, size(q.size))
      if (buckets.length === 0) return emptyAnswer(targets, dataIds)
      const { stored, usage } = splitUsage(dataIds)
      const rows = await repos.dataQueries.aggregate({
        targets: { systems: targets }, dataIds: stored, usage, buckets, from: r.from ?? buckets[0] ?? r.to, to: r.to, fn
      })
      return bucketAnswer(targets, dataIds, buckets, rows, fn)
    },

    /**
     * docs/devices.md: `fn` per system and bucket, then `fleetFn` over the systems of each company. The
     * targets are companies: the caller must have access to each as to a context company.
     * @throws FleetError company.unknown (a company the caller has no access to), ip.forbidden (403), missing.rights (403)
     */
    async fleet (actor: Actor, q: FleetQuery): Promise<Points> {
      const interval = parseInterval(q.interval)
      const fn = parseFn(q.fn, 'fn')
      const fleetFn = parseFn(q.fleetFn, 'fleetFn')
      const targets = idList(q.targetIds, MAX_FLEET_TARGETS, targetCodes, 'targetIds')
      const dataIds = idList(q.dataIds, MAX_DATA_IDS, dataCodes, 'dataIds')
      const r = range(q, clock.now(), 'invalid.timerange', null)
      // Each target is entered like a context company: membership, ipFiltering, right.
      for (const uid of targets) await enterCompany(repos.companies, actor, uid, { right: VIEW, unknown: 'company.unknown' })
      const buckets = bucketsOf(r.from, r.to, interval, size(q.size))
      if (buckets.length === 0) return emptyAnswer(targets, dataIds)
      const { stored, usage } = splitUsage(dataIds)
      const rows = await repos.dataQueries.aggregate({
        targets: { companies: targets }, dataIds: stored, usage, buckets, from: r.from ?? buckets[0] ?? r.to, to: r.to, fn, fleetFn
      })
      return bucketAnswer(targets, dataIds, buckets, rows, fleetFn)
    }
  }
}

export type PointsService = ReturnType<typeof createPointsService>
