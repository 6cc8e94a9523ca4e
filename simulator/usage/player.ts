// Plays the usage feed of a simulated fleet's SIMs through the service's import while the fleet runs (`fleet simulate
// --usage-feed`, simulator/README.md "Usage feed"): at the start, the records of the history asked for (the feed
// starts that long before now); then every period, what the operator reported since the last play; at the stop, a
// last play up to then (sessions still open stay open: their interim records so far are sent). Files the service
// did not take (it was away, the token expired) are sent again at the next play, ahead of the new records.
import { setTimeout as sleep } from 'node:timers/promises'
import { connectApi, type ApiClient, type ApiCredentials } from '../provision.js'
import { usageCsvFiles, type CsvLimits, type UsageCsvFile } from './csv.js'
import { createUsageFeed, type FeedRecord, type UsageSubscriber } from './feed.js'
import type { UsageProfile } from './profile.js'
import { importUsageFile, type FileOutcome } from './sender.js'

export interface UsagePlayOptions {
  api: ApiCredentials
  subscribers: readonly UsageSubscriber[]
  seed: number
  /** ms between two plays. */
  periodMs: number
  /** The feed starts this long before the player (ms): its records are sent by the first play. */
  historyMs: number
  profile?: Partial<UsageProfile>
  limits?: CsvLimits
  /** Between two reads of an import operation (ms). */
  pollMs?: number
  /** The operator's clock (default Date.now). */
  now?: () => number
  /** Called after each file the service imported, with its records and its operation's outcome. */
  onImported?: (records: readonly FeedRecord[], outcome: FileOutcome) => void
}

export interface UsagePlayStats {
  seed: number
  /** Plays done (the first one sends the history). */
  plays: number
  /** Files imported, and the rows in them: stored, and failed. */
  files: number
  records: number
  failed: number
  /** Records waiting for the next play (their file was not taken). */
  held: number
  errors: number
  lastError: string | undefined
}

export interface UsagePlayer {
  stats (): UsagePlayStats
  /** Resolves after the last play, once stop() was called. */
  readonly done: Promise<void>
  stop (): Promise<void>
}

/** A token lasts an hour (docs/api.md#get-a-token): a player that runs longer takes a new one every half hour. */
const TOKEN_AGE_MS = 30 * 60_000
/** The feed is drawn this much operator time at a time. */
const HISTORY_STEP_MS = 3_600_000

export function startUsagePlayer (opts: UsagePlayOptions): UsagePlayer {
  const now = opts.now ?? Date.now
  const feed = createUsageFeed(opts.subscribers, { seed: opts.seed, from: now() - opts.historyMs, ...(opts.profile === undefined ? {} : { profile: opts.profile }) })
  const s: UsagePlayStats = { seed: opts.seed, plays: 0, files: 0, records: 0, failed: 0, held: 0, errors: 0, lastError: undefined }
  const stopper = new AbortController()
  let held: FeedRecord[] = []
  let client: { api: ApiClient, at: number } | undefined

  const api = async (): Promise<ApiClient> => {
    if (client === undefined || now() - client.at > TOKEN_AGE_MS) client = { api: await connectApi(opts.api), at: now() }
    return client.api
  }

  /** Imports the files in order; on a failure, answers the records of that file and the next ones (to hold). */
  async function send (files: readonly UsageCsvFile[]): Promise<FeedRecord[]> {
    for (const [i, file] of files.entries()) {
      try {
        const outcome = await importUsageFile(await api(), file.csv, opts.pollMs === undefined ? {} : { pollMs: opts.pollMs })
        s.files++
        s.records += outcome.succeeded
        s.failed += outcome.failed
        opts.onImported?.(file.records, outcome)
      } catch (err) {
        s.errors++
        s.lastError = (err as Error).message
        client = undefined // a refused token is taken again
        return files.slice(i).flatMap((f) => f.records)
      }
    }
    return []
  }

  /**
   * Sends what was held and what the operator reported up to now. The feed is drawn an hour at a time and each file
   * is sent once full, so a history of weeks for a large fleet never sits in memory whole.
   */
  async function play (): Promise<void> {
    const target = now()
    let buffer = held
    held = []
    for (;;) {
      const step = Math.min(target, feed.cursor + HISTORY_STEP_MS)
      buffer = buffer.concat(feed.until(step))
      const last = step >= target
      const files = usageCsvFiles(buffer, opts.limits)
      // Every file but the last is full; the last one waits for more records, unless this is the end of the play.
      const ready = last ? files : files.slice(0, -1)
      buffer = last ? [] : [...(files[files.length - 1]?.records ?? [])]
      const unsent = await send(ready)
      if (unsent.length > 0 || last) {
        // The rest of the history, if any, is drawn by the next play.
        held = [...unsent, ...buffer]
        break
      }
    }
    s.held = held.length
    s.plays++
  }

  const done = (async () => {
    while (!stopper.signal.aborted) {
      await play()
      await sleep(opts.periodMs, undefined, { signal: stopper.signal }).catch(() => {})
    }
    await play()
  })()

  return {
    done,
    stats: () => ({ ...s }),
    async stop () {
      stopper.abort()
      await done
    }
  }
}
