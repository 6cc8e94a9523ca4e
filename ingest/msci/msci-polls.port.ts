// The poll state of AirLink gateways (msci-polls.repository.ts implements it over migrations/0022_msci_polls.sql).
import type { Communication } from '../../core/domain/system.js'

/** A claimed poll: the system, its company, and its communication.msci (host, user, password). */
export interface ClaimedPoll {
  systemUid: string
  companyUid: string
  msci: NonNullable<Communication['msci']>
  /** When it was due (ms): the bench's "on time" compares it with the poll's start. */
  dueAt: number
  /** Polls failed in a row before this one. */
  failures: number
  /** Whether the gateway was ever polled successfully (its first schedule is spread over a period). */
  polledBefore: boolean
  /** Whether MSCI device tasks wait for it (PENDING, or SENT and unanswered): only then are they taken. */
  hasTasks: boolean
}

/** The end of one poll, written back under the claim's token. */
export interface PollOutcome {
  systemUid: string
  token: string
  ok: boolean
  at: number
  nextPollAt: number
}

export interface MsciPollsRepository {
  /**
   * Keeps the poll rows in step with the systems: a row (due at `now`) for each system whose communication.msci.host
   * is set and has none; the rows of systems whose host was cleared go. Answers how many were added and removed.
   */
  sync (now: number): Promise<{ added: number, removed: number }>
  /** Systems with PENDING MSCI device tasks and no failed poll in a row become due now; answers how many. */
  hurry (now: number): Promise<number>
  /** Claims up to `limit` due polls (oldest due first) under `token` until `leaseUntil`; others skip them. */
  claim (now: number, limit: number, leaseUntil: number, token: string): Promise<ClaimedPoll[]>
  /**
   * Writes outcomes of claimed polls (ignored when the claim was lost). A failure counts one more in a row and
   * marks its system: lastCommFailureDate, commStatus WARNING, ERROR from `errorAfter` failures in a row (and kept at
   * ERROR); a success resets the count.
   */
  finish (outcomes: readonly PollOutcome[], errorAfter: number): Promise<void>
  /** Hands back the polls claimed under these tokens and not finished (a closing process). */
  release (tokens: readonly string[]): Promise<void>
}
