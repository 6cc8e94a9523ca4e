// The alert rules' port (docs/alerts.md): a company's rules in the AirVantage v2 shape, the data ids each names (so an
// incoming point finds its rules by data id: decision 0031), the rules the periodic job checks, and their hooks.
import type { AlertRule } from '../domain/alert-rule.js'

/** A rule as stored: the API's shape, its company and owner (the rule runs under the owner's rights). */
export interface StoredAlertRule {
  rule: AlertRule
  companyUid: string
  /** The user who created it; null for an API client with no user, or once that user is deleted. */
  ownerUid: string | null
  createdAt: number
  updatedAt: number
}

/** What a write stores: the rule, and what the evaluation finds it by (core/domain/alert-conditions.ts). */
export interface AlertRuleWrite {
  rule: AlertRule
  companyUid: string
  ownerUid: string | null
  /** The data ids of its `DATA.<id>` attributes, each once. */
  dataIds: readonly string[]
  /** Whether the periodic job checks it (it names no data id, or has NO_COMMUNICATION_FOR). */
  periodic: boolean
  /** The only systems it can hold for (a `system.id` EQUALS or IN condition: decision 0032); null: any of the company's. */
  systemUids: readonly string[] | null
  at: number
}

/** Where each alert of a rule is POSTed (docs/alerts.md#hooks). */
export interface AlertHook {
  uid: string
  ruleUid: string
  callback: string
  createdAt: number
}

export interface AlertRulesRepository {
  /** Stores a new rule unless its company has `limit` rules already. @returns false: the limit is reached */
  insertWithin (w: AlertRuleWrite, limit: number): Promise<boolean>
  /** The company's rule; undefined for an unknown uid or another company's. */
  get (companyUid: string, uid: string): Promise<StoredAlertRule | undefined>
  /** The company's rules, oldest first. */
  list (companyUid: string): Promise<StoredAlertRule[]>
  /** Replaces the company's rule whole (its owner and creation date stay) and its data ids. @returns false: not the company's */
  update (w: AlertRuleWrite): Promise<boolean>
  /** Deletes the company's rule with its data ids, hooks, alerts and states. @returns false: not the company's */
  delete (companyUid: string, uid: string): Promise<boolean>
  count (companyUid: string): Promise<number>
  /** The company's ACTIVE rules naming any of the data ids, each once (one indexed statement). */
  rulesForDataIds (companyUid: string, dataIds: readonly string[]): Promise<StoredAlertRule[]>
  /** The ACTIVE rules the periodic job checks, of one company or of all. */
  rulesWithoutData (companyUid?: string): Promise<StoredAlertRule[]>
  insertHook (hook: AlertHook): Promise<void>
  /** The rule's hooks, oldest first. */
  hooks (ruleUid: string): Promise<AlertHook[]>
  /** @returns false: not one of the rule's hooks */
  deleteHook (ruleUid: string, uid: string): Promise<boolean>
}
