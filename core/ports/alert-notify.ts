// What the alert.notify job reads and writes (docs/decisions/0032, "After the commit"): a raised alert with its rule,
// its hooks and its system, the end of its notification (notify_pending), and the operations its actions started,
// by which the actions' limits hold across processes and restarts (migration 0040).
import type { ActionLimits, AlertNotice } from '../domain/alert-notice.js'

/** A raised alert as its notification needs it (its rule is read from AlertRulesRepository). */
export interface AlertToNotify extends Omit<AlertNotice, 'ruleName' | 'message'> {
  companyUid: string
  /** False once its notification ended (a second run of the job does nothing). */
  pending: boolean
}

/** One start of an action: the alert, which of the rule's actions, on which system. */
export interface ActionClaim {
  alertUid: string
  ruleUid: string
  systemUid: string
  /** The action's place in the rule's `actions`. */
  index: number
  at: number
}

export type ClaimVerdict = 'claimed' | 'cooldown' | 'limit' | 'done'

export interface AlertNotifyRepository {
  /** The alert with its system's name; undefined once the alert is gone (its rule or system deleted). */
  find (alertUid: string): Promise<AlertToNotify | undefined>
  /** Ends the alert's notification. @returns false: it had ended already */
  clearPending (alertUid: string): Promise<boolean>
  /**
   * Records the start of an action unless the limits forbid it, decided by one conditional insert once the rule's row
   * is locked (call it in a transaction: two processes starting actions of one rule take turns). `done`: this alert
   * already started this action (a second run of its job).
   */
  claimAction (claim: ActionClaim, limits: ActionLimits): Promise<ClaimVerdict>
  /** The operation the claimed action started. */
  startedOperation (alertUid: string, index: number, operationUid: string): Promise<void>
  /** Forgets a claim whose operation was not started (refused, or no rights): it counts against no limit. */
  release (alertUid: string, index: number): Promise<void>
}
