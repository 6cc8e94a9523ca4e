// The usage store (storage/repositories/usage.repository.ts over usage_records of migrations 0005 and 0018):
// what the usage import, the usage record endpoints and dataUsage of systems need.
import type { BillingIncrements, UsageStatus } from '../domain/usage-billing.js'
import type { UsageRecord } from '../domain/usage-record.js'

export interface NewUsageRecord extends UsageRecord { systemUid: string }

/** A system a usage row may name: by uid or by its subscription's ICCID. */
export interface UsageTarget { uid: string, name: string, iccid: string | null }

/** What billing a system's records needs: its offer's increments and limit (null without an offer). */
export interface SystemBilling { increments: BillingIncrements, limit: number | null }

/** A system's dataUsage.status against its offer. */
export interface MonthUsage { systemUid: string, status: UsageStatus }

export interface UsageRepository {
  /** The company's systems among these uids, or whose subscription identifier (ICCID) is among these. */
  targets (companyUid: string, uids: readonly string[], iccids: readonly string[]): Promise<UsageTarget[]>
  /** The billing of each of the company's systems among these uids (the others are left out). */
  billing (companyUid: string, systemUids: readonly string[]): Promise<Map<string, SystemBilling>>
  /**
   * Stores the records not stored yet (same system, uid, type, start and end: once) with their daily rollups
   * (docs/store.md#rollups); answers those that were new. Run it in a transaction: it locks the records' systems until
   * the end, so that imports of one system keep its session counters' rollups exact one after the other.
   */
  insert (records: readonly NewUsageRecord[]): Promise<Array<Pick<NewUsageRecord, 'systemUid' | 'type' | 'start' | 'bytesTotal'>>>
  /** Records of the system starting in [from, to), most recent first, at most `size`. */
  list (systemUid: string, range: { from: number, to: number }, size: number): Promise<UsageRecord[]>
  /** The same per (system, type): at most `size` records of each type of each system. */
  listMany (systemUids: readonly string[], range: { from: number, to: number }, size: number): Promise<Array<UsageRecord & { systemUid: string }>>
  /** The record of that uid: of a session with interim records, its final record (else the latest interim one). */
  get (systemUid: string, uid: string): Promise<UsageRecord | undefined>
  /**
   * Adds bytes to each system's bytes of the month starting at `monthStart` (from 0 when its figure is of an earlier
   * month), computed at `now`; answers the new totals with the offer's limit. The rows stay locked until the
   * transaction ends, so concurrent imports add up.
   */
  addMonthBytes (added: ReadonlyMap<string, number>, monthStart: number, now: number): Promise<Array<{ systemUid: string, bytesTotal: number, limit: number | null }>>
  /** Stores dataUsage.status of the systems. */
  setUsageStatus (rows: readonly MonthUsage[]): Promise<void>
}
