// The periodic side of alert rules (decision 0032, "By time"; docs/alerts.md#how-rules-are-evaluated): the job
// alerts.check evaluates the rules no point can change (NO_COMMUNICATION_FOR, commStatus, system fields only) on
// their company's systems, a page of systems per transaction, with the ingest's transitions; the job alerts.sweep
// passes on again the alerts whose notification a killed process never queued.
import type { Logger } from '../../logger.js'
import type { Clock, UnitOfWork } from '../../ports/store.js'
import type { Repositories } from '../../ports/repositories.js'
import type { AlertCandidate, SystemCursor } from '../../ports/alert-evaluation.js'
import type { StoredAlertRule } from '../../ports/alert-rules.js'
import { pinnedSystemsOf } from '../../domain/alert-targets.js'
import { evaluateCandidates } from './alert-evaluate.js'
import type { AlertsRaised } from './alerts-raised.js'

/** Systems per transaction of the check: one short transaction each, and as many facts as a big ingest batch. */
const PAGE = 500
/**
 * An alert still pending this long after it was raised was not passed on after its commit (the process died between
 * the two) or its notification did not finish: queued again (its job id makes that a no-op while one waits).
 */
export const PENDING_GRACE_MS = 30_000
const SWEEP_LIMIT = 1000

export interface AlertChecksDeps {
  repos: Pick<Repositories, 'alertRules' | 'alertEvaluation'>
  inTransaction: UnitOfWork
  clock: Clock
  log: Logger
  /** Where raised alerts go (decision 0032); absent: they stay pending in the store, and the sweep does nothing. */
  onAlerts?: AlertsRaised | undefined
  /** Systems per transaction (tests make it small). */
  pageSize?: number
}

/** A rule as a candidate for the given systems, the pinned ones kept to theirs. */
function candidateOf (s: StoredAlertRule, systemUids: readonly string[] | null): AlertCandidate {
  const pinned = pinnedSystemsOf(s.rule.conditions)
  const uids = systemUids === null ? pinned ?? [] : pinned === null ? [...systemUids] : systemUids.filter((u) => pinned.includes(u))
  return { ruleUid: s.rule.uid, companyUid: s.companyUid, stateful: s.rule.stateful, conditions: s.rule.conditions, systemUids: uids }
}

interface Counts { raised: number, closed: number }

export function createAlertChecks ({ repos, inTransaction, clock, log, onAlerts, pageSize = PAGE }: AlertChecksDeps) {
  /** One transaction of the check; adds what it did to `counts`. */
  async function evaluate (candidates: AlertCandidate[], counts: Counts): Promise<void> {
    const some = candidates.filter((c) => c.systemUids.length > 0)
    if (some.length === 0) return
    const t = await inTransaction(async (tx) => await evaluateCandidates(tx.alertEvaluation, some, clock.now()))
    counts.raised += t.raised.length
    counts.closed += t.closed.length
    if (t.raised.length > 0) await onAlerts?.(t.raised)
  }

  /** One company's rules: pinned ones on their systems at once, the others on every system, a page at a time. */
  async function checkCompany (companyUid: string, rules: StoredAlertRule[], counts: Counts): Promise<void> {
    const pinned = rules.filter((s) => pinnedSystemsOf(s.rule.conditions) !== null)
    const everywhere = rules.filter((s) => pinnedSystemsOf(s.rule.conditions) === null)
    await evaluate(pinned.map((s) => candidateOf(s, null)), counts)
    if (everywhere.length === 0) return
    let after: SystemCursor | null = null
    for (;;) {
      const page: SystemCursor[] = await repos.alertEvaluation.systemsPage(companyUid, after, pageSize)
      await evaluate(everywhere.map((s) => candidateOf(s, page.map((p) => p.uid))), counts)
      if (page.length < pageSize) return
      after = page[page.length - 1] ?? null
    }
  }

  return {
    /** The job alerts.check: every active periodic rule on its systems. @returns the alerts raised and closed */
    async check (): Promise<Counts> {
      const counts = { raised: 0, closed: 0 }
      const byCompany = new Map<string, StoredAlertRule[]>()
      for (const s of await repos.alertRules.rulesWithoutData()) byCompany.set(s.companyUid, [...byCompany.get(s.companyUid) ?? [], s])
      for (const [companyUid, rules] of byCompany) await checkCompany(companyUid, rules, counts)
      if (counts.raised + counts.closed > 0) log.debug(counts, 'alert rules checked')
      return counts
    },
    /** The job alerts.sweep: the alerts still pending after PENDING_GRACE_MS passed on again. @returns how many */
    async sweep (): Promise<number> {
      if (onAlerts === undefined) return 0
      const uids = await repos.alertEvaluation.pendingNotifications(clock.now() - PENDING_GRACE_MS, SWEEP_LIMIT)
      if (uids.length > 0) await onAlerts(uids)
      return uids.length
    }
  }
}

export type AlertChecks = ReturnType<typeof createAlertChecks>
