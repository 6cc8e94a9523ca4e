// An operator's usage feed for the simulated SIMs (docs/usage.md): what the operator reports of each SIM's traffic,
// record by record, in the order it reports them.
//
// Each SIM has its own seeded generator (random.ts, seeded by the feed's seed and the ICCID) and a Poisson process
// of events (profile.ts): DATA sessions, SMS_SENT / SMS_RECEIVED, VOICE_IN / VOICE_OUT calls, MSU. A record is
// reported once what it describes is over: an SMS or an MSU at once, a call or a session at its end; a session that
// stays open past the profile's interimMs is reported every interimMs in an interim record before its final one:
// - interim k (k = 0, 1, ...) covers [S + k·I, S + (k+1)·I): `start` S + k·I, `end` = start, `partial` true, the
//   volume of that period, reported when the period ends;
// - the final record: `start` S, `end` E (so the session's duration is end − start), `partial` false, the volume
//   since the last interim record, reported at E.
// All of them share the session's uid; their volumes add up to the session's (docs/usage.md: each record
// carries the volume of its own period). Sessions of one SIM do not overlap, nor do its calls.
//
// `until(t)` answers the records reported before t that earlier calls did not answer. The events are drawn in
// time order from the per-SIM generators only, so the feed is the same however it is cut into windows.
import { createRng, hash32, type Rng } from './random.js'
import { DEFAULT_USAGE_PROFILE, HOME_NETWORK, RAT_TYPES, SMS_PEERS, VISITED_NETWORKS, VOICE_PEERS, type Network, type UsageProfile, type UsageType } from './profile.js'

/** A SIM of the feed, as the operator knows it. */
export interface UsageSubscriber {
  /** ICCID: the import finds the system by it (`subscriptionIdentifier`). */
  iccid: string
  /** The IMEI of the device the SIM is in (`servedImei`). */
  imei: string
  /** MSISDN (`servedMsisdn`). */
  msisdn: string
}

/** One record of the feed: the fields of docs/usage.md an operator fills, and when it reported it. */
export interface FeedRecord {
  subscriptionIdentifier: string
  uid: string
  type: UsageType
  start: number
  /** DATA and voice: the end (= start for an interim record); null for SMS and MSU. */
  end: number | null
  partial: boolean
  bytesSent: number | null
  bytesReceived: number | null
  bytesTotal: number | null
  apn: string | null
  pdpAddress: string | null
  ratType: string | null
  phoneNumber: string | null
  visitedNetwork: string
  visitedCountry: string
  visitedMcc: string
  visitedMnc: string
  servedImsi: string
  servedImei: string
  servedMsisdn: string
  /** When the operator reported it: the end of its period, call or session; the event itself for SMS and MSU. */
  reportedAt: number
}

export interface UsageFeedOptions {
  /** The same seed and SIMs give the same feed. */
  seed: number
  /** The first events happen after this time (epoch ms). */
  from: number
  profile?: Partial<UsageProfile>
}

export interface UsageFeed {
  /** Records answered so far go up to here (exclusive). */
  readonly cursor: number
  /** The records reported in [cursor, t), oldest report first; the cursor moves to t. */
  until (t: number): FeedRecord[]
}

const SECOND = 1000
const MINUTE = 60 * SECOND
const KB = 1024

/** One SIM's state: its generator, where it is, when its next event comes, the records not reported yet. */
interface Line {
  rng: Rng
  common: Pick<FeedRecord, 'subscriptionIdentifier' | 'visitedNetwork' | 'visitedCountry' | 'visitedMcc' | 'visitedMnc' | 'servedImsi' | 'servedImei' | 'servedMsisdn'>
  rat: string
  nextAt: number
  /** A session (or a call) starts after the previous one ended. */
  dataFreeAt: number
  voiceFreeAt: number
  pending: FeedRecord[]
}

const compare = (a: string, b: string): number => a < b ? -1 : a > b ? 1 : 0
const toSecond = (t: number): number => Math.ceil(t / SECOND) * SECOND
const hex = (rng: Rng): string => Array.from({ length: 3 }, () => rng.int(0, 0xffff_ffff).toString(16).padStart(8, '0')).join('')

/** The IMSI of a SIM of the home network: MCC + MNC + a 10-digit MSIN taken from the ICCID's serial digits. */
export function imsiOf (iccid: string): string {
  return `${HOME_NETWORK.mcc}${HOME_NETWORK.mnc}${iccid.replace(/\D/g, '').slice(-11, -1).padStart(10, '0')}`
}

function openLine (sub: UsageSubscriber, seed: number, p: UsageProfile, from: number): Line {
  const rng = createRng(hash32(seed, sub.iccid))
  const net: Network = rng.chance(p.roamingShare) ? rng.pick(VISITED_NETWORKS) : HOME_NETWORK
  return {
    rng,
    common: {
      subscriptionIdentifier: sub.iccid,
      visitedNetwork: net.name,
      visitedCountry: net.country,
      visitedMcc: net.mcc,
      visitedMnc: net.mnc,
      servedImsi: imsiOf(sub.iccid),
      servedImei: sub.imei,
      servedMsisdn: sub.msisdn
    },
    rat: rng.weighted(RAT_TYPES),
    nextAt: from + rng.exponential(3_600_000 / p.eventsPerHour),
    dataFreeAt: from,
    voiceFreeAt: from,
    pending: []
  }
}

const blank = { end: null, partial: false, bytesSent: null, bytesReceived: null, bytesTotal: null, apn: null, pdpAddress: null, ratType: null, phoneNumber: null }

/** Splits a volume over periods of the given lengths, about in proportion (the traffic is not even), in whole bytes. */
function split (rng: Rng, total: number, lengths: readonly number[]): number[] {
  const weights = lengths.map((l) => l * (0.5 + rng.next()))
  const sum = weights.reduce((a, w) => a + w, 0)
  const parts = weights.map((w) => Math.floor(total * w / sum))
  parts[parts.length - 1] = total - parts.slice(0, -1).reduce((a, b) => a + b, 0)
  return parts
}

/** A DATA session from `at`: its interim records (if it outlasts interimMs) and its final one. */
function dataSession (line: Line, at: number, p: UsageProfile): FeedRecord[] {
  const { rng } = line
  const start = toSecond(Math.max(at, line.dataFreeAt + SECOND))
  const long = rng.chance(p.longSessionShare)
  const duration = long
    ? toSecond(p.interimMs * (1.2 + rng.next() * 4.3))
    : toSecond(Math.min(30 * MINUTE, Math.max(2 * SECOND, rng.logNormal(45 * SECOND, 1))))
  const end = start + duration
  line.dataFreeAt = end
  // Telemetry up, acknowledgements and commands down; an always-on session keeps a trickle going for hours.
  let sent = Math.round(long ? rng.logNormal(10 * KB, 0.6) * duration / 3_600_000 : rng.logNormal(6 * KB, 0.8))
  sent = Math.max(sent, 200)
  let received = Math.round(sent * (0.2 + rng.next() * 0.4))
  if (rng.chance(p.firmwareShare)) received += rng.int(1024 * KB, 4096 * KB)
  const bounds = [start]
  while (bounds[bounds.length - 1] as number + p.interimMs < end) bounds.push(bounds[bounds.length - 1] as number + p.interimMs)
  const lengths = bounds.map((b, i) => (bounds[i + 1] ?? end) - b)
  const sentParts = split(rng, sent, lengths)
  const receivedParts = split(rng, received, lengths)
  const session = {
    ...blank,
    ...line.common,
    uid: hex(rng),
    type: 'DATA' as const,
    apn: p.apn,
    pdpAddress: `10.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 254)}`,
    // Now and then the radio falls back to an older technology.
    ratType: rng.chance(0.1) ? rng.pick(['UTRAN', 'GERAN']) : line.rat
  }
  return bounds.map((b, i) => {
    const last = i === bounds.length - 1
    const bytesSent = sentParts[i] ?? 0
    const bytesReceived = receivedParts[i] ?? 0
    const volume = { bytesSent, bytesReceived, bytesTotal: bytesSent + bytesReceived }
    return last
      ? { ...session, ...volume, start, end, partial: false, reportedAt: end }
      : { ...session, ...volume, start: b, end: b, partial: true, reportedAt: b + p.interimMs }
  })
}

/** A call from `at` (alarm panels and lift phones call an alarm centre, and are called back). */
function call (line: Line, at: number, type: 'VOICE_IN' | 'VOICE_OUT'): FeedRecord {
  const { rng } = line
  const start = toSecond(Math.max(at, line.voiceFreeAt + SECOND))
  const end = start + toSecond(Math.min(3_600_000, Math.max(3 * SECOND, rng.logNormal(50 * SECOND, 0.9))))
  line.voiceFreeAt = end
  return { ...blank, ...line.common, uid: hex(rng), type, start, end, phoneNumber: rng.pick(VOICE_PEERS), reportedAt: end }
}

/** The records of one event of the line at `at`. */
function event (line: Line, at: number, p: UsageProfile): FeedRecord[] {
  const { rng } = line
  const type = rng.weighted(p.mix)
  switch (type) {
    case 'DATA': return dataSession(line, at, p)
    case 'VOICE_IN':
    case 'VOICE_OUT': return [call(line, at, type)]
    case 'SMS_SENT':
    case 'SMS_RECEIVED': {
      const start = toSecond(at)
      return [{ ...blank, ...line.common, uid: hex(rng), type, start, phoneNumber: rng.pick(SMS_PEERS), reportedAt: start }]
    }
    case 'MSU': {
      const start = toSecond(at)
      return [{ ...blank, ...line.common, uid: hex(rng), type, start, reportedAt: start }]
    }
  }
}

export function createUsageFeed (subscribers: readonly UsageSubscriber[], opts: UsageFeedOptions): UsageFeed {
  const p: UsageProfile = { ...DEFAULT_USAGE_PROFILE, ...opts.profile }
  if (!(p.eventsPerHour > 0) || !(p.interimMs > 0)) throw new RangeError('the usage profile needs eventsPerHour and interimMs above 0')
  const lines = subscribers.map((s) => openLine(s, opts.seed, p, opts.from))
  let cursor = opts.from
  return {
    get cursor () { return cursor },
    until (t) {
      if (t <= cursor) return []
      const out: Array<{ r: FeedRecord, seq: number }> = []
      for (const line of lines) {
        // Every event before t is drawn: a record reported before t comes from one of them (reportedAt ≥ its event).
        while (line.nextAt < t) {
          line.pending.push(...event(line, line.nextAt, p))
          line.nextAt += line.rng.exponential(3_600_000 / p.eventsPerHour)
        }
        const keep: FeedRecord[] = []
        for (const r of line.pending) {
          if (r.reportedAt < t) out.push({ r, seq: out.length })
          else keep.push(r)
        }
        line.pending = keep
      }
      cursor = t
      // Report time, then ICCID: the order does not depend on the order of the SIMs.
      return out.sort((a, b) => a.r.reportedAt - b.r.reportedAt || compare(a.r.subscriptionIdentifier, b.r.subscriptionIdentifier) || a.seq - b.seq).map((x) => x.r)
    }
  }
}
