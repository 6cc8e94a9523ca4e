// The simulator's usage feed ("The simulator can play an operator's usage feed"; docs/usage.md): deterministic with a
// seed whatever the windows it is played in, records the service's import takes as they are, interim DATA records
// sharing the session uid before the final one, and traffic shaped like a telemetry fleet's.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { BillingIncrements } from '../../../core/domain/usage-billing.js'
import { usageColumns, usageRow } from '../../../core/services/usage/usage-csv.js'
import { usageRecordOf } from '../../../core/services/usage/usage-row.js'
import { deviceIdentity } from '../../../simulator/devices/identity.js'
import { USAGE_CSV_COLUMNS, usageCsvFiles, usageCsvLine } from '../../../simulator/usage/csv.js'
import { createUsageFeed, imsiOf, type FeedRecord, type UsageSubscriber } from '../../../simulator/usage/feed.js'
import type { UsageProfile } from '../../../simulator/usage/profile.js'

const H = 3_600_000
const INCREMENTS: BillingIncrements = { dataBytes: null, voiceSeconds: null }
const FROM = Date.UTC(2026, 9, 1)

const subscribers = (n: number, run = 'feed01'): UsageSubscriber[] => Array.from({ length: n }, (_, i) => {
  const id = deviceIdentity(run, i + 1)
  return { iccid: id.iccid, imei: id.imei, msisdn: id.mobileNumber }
})

/** The whole feed up to `to`, played in one window or cut at the given points. */
function play (subs: UsageSubscriber[], seed: number, to: number, cuts: number[] = [], profile?: Partial<UsageProfile>): FeedRecord[] {
  const feed = createUsageFeed(subs, { seed, from: FROM, ...(profile === undefined ? {} : { profile }) })
  return [...cuts.sort((a, b) => a - b), to].flatMap((t) => feed.until(t))
}

/**
 * What docs/usage.md and docs/usage.md ask of the feed's records, as the list of what
 * breaks it (plain checks: a feed has thousands of records).
 */
function feedProblems (records: FeedRecord[], subs: UsageSubscriber[], to: number): string[] {
  const byIccid = new Map(subs.map((s) => [s.iccid, s]))
  const sessions = new Map<string, FeedRecord[]>()
  const problems: string[] = []
  const check = (ok: boolean, what: string, r: FeedRecord): void => { if (!ok) problems.push(`${what}: ${JSON.stringify(r)}`) }
  let last = -Infinity
  for (const r of records) {
    check(r.reportedAt >= last && r.reportedAt < to, 'in report order, before the end', r)
    last = r.reportedAt
    check(r.start >= FROM && r.start <= r.reportedAt, 'starts after the feed and is reported after its start', r)
    const sub = byIccid.get(r.subscriptionIdentifier)
    check(sub !== undefined && r.servedImei === sub.imei && r.servedMsisdn === sub.msisdn && r.servedImsi === imsiOf(sub.iccid), 'served ids of its SIM', r)
    check(/^20801\d{10}$/.test(r.servedImsi) && /^\d{3}$/.test(r.visitedMcc) && /^\d{2}$/.test(r.visitedMnc) && /^[A-Z]{2}$/.test(r.visitedCountry), 'IMSI and network', r)
    if (r.type === 'DATA') {
      check(r.end !== null && r.end >= r.start && (!r.partial || r.end === r.start), 'DATA end (= start when interim)', r)
      check(r.bytesTotal === (r.bytesSent ?? NaN) + (r.bytesReceived ?? NaN), 'bytesTotal = sent + received', r)
      check(/^10\.\d+\.\d+\.\d+$/.test(r.pdpAddress ?? '') && r.apn !== null && r.ratType !== null && r.phoneNumber === null, 'DATA fields', r)
      const key = `${r.subscriptionIdentifier} ${r.uid}`
      sessions.set(key, [...sessions.get(key) ?? [], r])
    } else {
      const voice = r.type === 'VOICE_IN' || r.type === 'VOICE_OUT'
      check(!r.partial && r.bytesTotal === null && r.apn === null, 'no DATA fields', r)
      check(voice ? r.end !== null && r.end > r.start : r.end === null, 'end of calls only', r)
      check(r.type === 'MSU' ? r.phoneNumber === null : /^\+33\d{9}$/.test(r.phoneNumber ?? ''), 'peer number', r)
    }
  }
  for (const recs of sessions.values()) {
    const final = recs.find((r) => !r.partial)
    // Still open at `to`: interim records only. Else the final record comes last, and its start is the session's:
    // the interim records fall within it, reported before it.
    if (final === undefined) continue
    check(recs[recs.length - 1] === final, 'the final record last, once', final)
    for (const r of recs.slice(0, -1)) check(r.partial && r.start >= final.start && r.start < (final.end ?? 0) && r.reportedAt < final.reportedAt, 'interim record within its session, before the final one', r)
    // The (uid, type, start, end) of each record is its own: none is taken for a repeat of another.
    check(new Set(recs.map((r) => `${r.start} ${r.end ?? ''}`)).size === recs.length, 'distinct records of a session', final)
  }
  return problems
}

/** Where two feeds first differ ('' when they are the same): a plain comparison, the feeds are long. */
function difference (a: FeedRecord[], b: FeedRecord[]): string {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (JSON.stringify(a[i]) !== JSON.stringify(b[i])) return `record ${i}: ${JSON.stringify(a[i])} / ${JSON.stringify(b[i])}`
  }
  return ''
}

// Property runs over feeds of thousands of records: generous time on a loaded machine.
describe('usage feed', { timeout: 120_000 }, () => {
  it('is the same for the same seed however it is cut into windows, and another seed gives another feed', () => {
    fc.assert(fc.property(
      fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 72 }),
      fc.array(fc.integer({ min: 0, max: 72 * H }), { maxLength: 8 }), fc.integer({ min: 5, max: 120 }),
      (seed, n, hours, cuts, interimMin) => {
        const subs = subscribers(n)
        const to = FROM + hours * H
        const profile = { eventsPerHour: 6, interimMs: interimMin * 60_000, longSessionShare: 0.3 }
        const whole = play(subs, seed, to, [], profile)
        const cut = play(subs, seed, to, cuts.map((c) => FROM + c).filter((c) => c < to), profile)
        expect(difference(cut, whole)).toBe('')
        expect(feedProblems(whole, subs, to)).toEqual([])
        // The SIMs in another order: the same records.
        expect(difference(play([...subs].reverse(), seed, to, [], profile), whole)).toBe('')
      }), { numRuns: 40 })
    const subs = subscribers(3)
    expect(difference(play(subs, 1, FROM + 48 * H), play(subs, 2, FROM + 48 * H))).not.toBe('')
  })

  it('is checked by rules that a broken feed breaks', () => {
    const subs = subscribers(2)
    const to = FROM + 48 * H
    const feed = play(subs, 3, to, [], { interimMs: 15 * 60_000, longSessionShare: 0.5 })
    expect(feedProblems(feed, subs, to)).toEqual([])
    const i = feed.findIndex((r) => r.partial)
    const final = feed.findIndex((r) => r.uid === feed[i]?.uid && !r.partial)
    expect(i).toBeGreaterThanOrEqual(0)
    expect(final).toBeGreaterThan(i)
    const broken = (change: (f: FeedRecord[]) => void): string[] => { const f = feed.map((r) => ({ ...r })); change(f); return feedProblems(f, subs, to) }
    const at = (f: FeedRecord[], k: number): FeedRecord => f[k] as FeedRecord
    expect(broken((f) => { at(f, i).end = at(f, i).start + 1 })).not.toEqual([])
    expect(broken((f) => { at(f, i).start = at(f, final).end ?? 0 })).not.toEqual([])
    expect(broken((f) => { at(f, i).partial = false })).not.toEqual([])
    expect(broken((f) => { at(f, final).bytesTotal = (at(f, final).bytesTotal ?? 0) + 1 })).not.toEqual([])
    expect(broken((f) => { at(f, 0).reportedAt = to })).not.toEqual([])
    expect(broken((f) => { f.splice(final, 1); f.splice(i, 0, { ...at(feed, final) }) })).not.toEqual([]) // the final record first
  })

  it('answers nothing twice and nothing before its cursor', () => {
    const feed = createUsageFeed(subscribers(2), { seed: 7, from: FROM, profile: { eventsPerHour: 20 } })
    const first = feed.until(FROM + 10 * H)
    expect(first.length).toBeGreaterThan(50)
    expect(feed.cursor).toBe(FROM + 10 * H)
    expect(feed.until(FROM + 5 * H)).toEqual([])
    const next = feed.until(FROM + 20 * H)
    expect(next.every((r) => r.reportedAt >= FROM + 10 * H)).toBe(true)
    const keys = [...first, ...next].map((r) => `${r.subscriptionIdentifier} ${r.uid} ${r.start} ${r.end ?? ''}`)
    expect(new Set(keys).size).toBe(keys.length)
  })

  it('looks like a telemetry fleet: mostly short DATA sessions of kilobytes, long ones reported hourly, SMS, calls, MSU', () => {
    const subs = subscribers(12)
    const records = play(subs, 2026, FROM + 30 * 24 * H)
    expect(feedProblems(records, subs, FROM + 30 * 24 * H)).toEqual([])
    const finals = records.filter((r) => r.type === 'DATA' && !r.partial)
    const events = finals.length + records.filter((r) => r.type !== 'DATA').length
    // 2 events per SIM and hour (a Poisson process): 12 SIMs × 720 h = 17,280 on average (sd 131).
    expect(events).toBeGreaterThan(16_500)
    expect(events).toBeLessThan(18_000)
    const share = (t: string): number => (t === 'DATA' ? finals.length : records.filter((r) => r.type === t).length) / events
    expect(share('DATA')).toBeGreaterThan(0.6)
    for (const t of ['SMS_SENT', 'SMS_RECEIVED', 'VOICE_OUT', 'VOICE_IN', 'MSU']) expect(share(t)).toBeGreaterThan(0.01)
    const median = (xs: number[]): number => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN
    const short = finals.filter((r) => (r.end as number) - r.start < H)
    const long = finals.filter((r) => (r.end as number) - r.start >= H)
    expect(median(short.map((r) => (r.end as number) - r.start))).toBeGreaterThan(20_000)
    expect(median(short.map((r) => (r.end as number) - r.start))).toBeLessThan(120_000)
    expect(median(short.map((r) => r.bytesTotal ?? 0))).toBeGreaterThan(2_000)
    expect(median(short.map((r) => r.bytesTotal ?? 0))).toBeLessThan(50_000)
    // About one session in eight stays open for hours, reported in hourly interim records.
    expect(long.length / finals.length).toBeGreaterThan(0.08)
    expect(long.length / finals.length).toBeLessThan(0.16)
    const interims = records.filter((r) => r.partial)
    expect(interims.length).toBeGreaterThan(long.length)
    expect(new Set(interims.map((r) => r.uid)).size).toBeGreaterThan(long.length * 0.9)
    // Now and then a firmware download: megabytes received.
    expect(finals.some((r) => (r.bytesReceived ?? 0) > 1_000_000)).toBe(true)
    // Some SIMs roam; all of one SIM's records name the same network.
    const networks = new Map(records.map((r) => [r.subscriptionIdentifier, r.visitedCountry]))
    expect([...networks.values()].filter((c) => c !== 'FR').length).toBeGreaterThan(0)
    expect([...networks.values()].filter((c) => c === 'FR').length).toBeGreaterThan(6)
    expect(records.every((r) => r.visitedCountry === networks.get(r.subscriptionIdentifier))).toBe(true)
    // A SIM's sessions do not overlap.
    for (const s of subs) {
      const own = finals.filter((r) => r.subscriptionIdentifier === s.iccid).sort((a, b) => a.start - b.start)
      for (let i = 1; i < own.length; i++) expect((own[i] as FeedRecord).start).toBeGreaterThan((own[i - 1] as FeedRecord).end as number)
    }
  })
})

describe('usage feed files', { timeout: 120_000 }, () => {
  const records = play(subscribers(5), 99, FROM + 7 * 24 * H, [], { eventsPerHour: 4, interimMs: 20 * 60_000 })

  it('are read by the service\'s import as the records they hold, field by field', () => {
    const [file] = usageCsvFiles(records, { maxRows: 100_000 })
    const lines = (file?.csv ?? '').trimEnd().split('\n')
    const columns = usageColumns((lines[0] ?? '').split(','))
    expect(columns).toEqual([...USAGE_CSV_COLUMNS])
    expect(lines.length - 1).toBe(records.length)
    for (const [i, r] of records.entries()) {
      const row = usageRow(columns, (lines[i + 1] ?? '').split(','))
      const stored = usageRecordOf(row, INCREMENTS, 0)
      if (stored instanceof Error) throw stored
      expect(row.subscriptionIdentifier).toBe(r.subscriptionIdentifier)
      expect(stored).toMatchObject({ uid: r.uid, type: r.type, start: r.start, end: r.end, partial: r.partial, bytesSent: r.bytesSent, bytesReceived: r.bytesReceived, bytesTotal: r.bytesTotal })
      for (const f of ['apn', 'pdpAddress', 'ratType', 'phoneNumber', 'visitedNetwork', 'visitedCountry', 'visitedMcc', 'visitedMnc', 'servedImsi', 'servedImei', 'servedMsisdn'] as const) {
        expect(stored.text[f] ?? null).toBe(r[f])
      }
    }
  })

  it('hold at most maxRows rows and maxBytes bytes each, every record once and in order', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 400 }), fc.integer({ min: 600, max: 40_000 }), (maxRows, maxBytes) => {
      const files = usageCsvFiles(records, { maxRows, maxBytes })
      const header = USAGE_CSV_COLUMNS.join(',') + '\n'
      const wrong = files.filter((f) => {
        const rows = f.csv.trimEnd().split('\n').length - 1
        return rows !== f.records.length || rows > maxRows || Buffer.byteLength(f.csv) > maxBytes || !f.csv.startsWith(header)
      })
      expect(wrong).toEqual([])
      const all = files.flatMap((f) => f.records)
      expect(all.length === records.length && all.every((r, i) => r === records[i])).toBe(true)
    }), { numRuns: 30 })
    expect(usageCsvFiles([])).toEqual([])
  })

  it('quote a cell with a separator or a quote', () => {
    const r = { ...(records[0] as FeedRecord), visitedNetwork: 'A, "B"' }
    expect(usageCsvLine(r)).toContain(',"A, ""B""",')
  })
})
