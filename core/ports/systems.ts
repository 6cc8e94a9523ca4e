// The systems' port: the systems, their device logins and what operations write on them.
import type { IpFilters } from '../domain/company.js'
import type { DeviceSystem, System, SystemOption, SystemSort } from '../domain/system.js'
import type { SystemCriteria } from '../domain/system-criteria.js'
import type { Found, Page, Sort } from '../paging.js'

/** The columns of a systems row that services write. */
export type SystemRow = Omit<System, 'gateway' | 'subscription' | 'applications' | 'offer'> & {
  gatewayUid: string | null
  subscriptionUid: string | null
  offerUid: string | null
}

/** A device login's system: its communication secrets and its company's device IP filtering
 * (docs/api.md#users-and-companies). */
export interface DeviceLogin {
  identifier: string
  systemUid: string
  companyUid: string
  communication: System['communication']
  deviceIpFiltering: boolean
  deviceIpFilters: IpFilters
  /** An application of the system sets MQTT `mqtt-security` to `x509`: no MQTT password logs it in (docs/security.md). */
  mqttX509?: boolean
}

export interface SystemsRepository {
  findByUid (companyUid: string, uid: string): Promise<System | undefined>
  /** The company's systems among these uids, in one statement (unknown uids are left out). */
  findByUids (companyUid: string, uids: readonly string[]): Promise<System[]>
  /** What device operations read of the company's systems among these uids (unknown uids are left out). */
  deviceSystems (companyUid: string, uids: readonly string[]): Promise<DeviceSystem[]>
  /** Systems of the company matching the criteria, sorted and paged; count is the total matching. */
  find (companyUid: string, criteria: SystemCriteria, sort: Array<Sort<SystemSort>>, page: Page): Promise<Found<System>>
  /** Uids only, for selections: at most `limit`. */
  findUids (companyUid: string, criteria: SystemCriteria, limit: number): Promise<string[]>
  /** Uid and name of the matching systems, oldest first, at most `limit`: what a selection needs. */
  refs (companyUid: string, criteria: SystemCriteria, limit: number): Promise<Array<{ uid: string, name: string }>>
  count (companyUid: string): Promise<number>
  /** Locks the company's systems count against concurrent creation (system limit). */
  lockCompany (companyUid: string): Promise<void>
  insert (row: SystemRow): Promise<void>
  update (uid: string, patch: Partial<SystemRow>): Promise<void>
  delete (uid: string): Promise<void>
  setApplications (systemUid: string, applicationUids: string[]): Promise<void>
  /**
   * What apply settings leaves on the systems (docs/api.md#systems: syncStatus, lastSyncDate; data.lastTemplateName
   * and the lastAppliedTemplate / lastConfigName criteria): OK sets all of them, ERROR only syncStatus.
   */
  recordSync (uids: readonly string[], sync: { status: 'OK', at: number, template: string } | { status: 'ERROR' }): Promise<void>
  /** Adds then removes labels; answers false when the system is not one of the company's. */
  relabel (companyUid: string, uid: string, add: string[], remove: string[]): Promise<boolean>
  /** relabel for many systems in one statement (a chunk of a label operation); answers the uids relabelled. */
  relabelMany (companyUid: string, uids: string[], add: string[], remove: string[]): Promise<string[]>
  /** delete for many of the company's systems in one go (a chunk of a bulk delete); answers what was deleted. */
  deleteMany (companyUid: string, uids: string[]): Promise<Array<{ uid: string, gatewayUid: string | null, subscriptionUid: string | null }>>
  /** The system using the gateway or subscription, if any. */
  byGateway (gatewayUid: string): Promise<string | undefined>
  bySubscription (subscriptionUid: string): Promise<string | undefined>
  options (systemUid: string): Promise<SystemOption[]>
  setOptions (systemUid: string, optionUids: string[]): Promise<void>
  /** Device logins (gateway serial number, IMEI): each identifies one system across the service. */
  setCommIdentifiers (systemUid: string, identifiers: string[]): Promise<void>
  /** The system owning these identifiers, other than `except`, if any. */
  commIdentifierOwner (identifiers: string[], except: string | null): Promise<string | undefined>
  systemByCommIdentifier (identifier: string): Promise<{ systemUid: string, companyUid: string } | undefined>
  /** What a device login checks, for many logins in one statement (identifiers not found are left out). */
  deviceLogins (identifiers: readonly string[]): Promise<DeviceLogin[]>
  /** The device logins (comm identifiers: serial number, IMEI) of these systems, in no order. */
  commIdentifiersOf (systemUids: readonly string[]): Promise<Array<{ systemUid: string, identifier: string }>>
  /**
   * Moves the system, its gateway and its subscription to another company (docs/operations.md#bulk-operations): sets
   * the offer and the subscription's operator account there, clears the gateway's transfer_to and drops the options
   * only the source company offers. @throws gateway.not.unique.identifiers, subscription.not.unique.identifiers
   */
  transfer (uid: string, to: { companyUid: string, offerUid: string | null, operatorAccountUid: string | null }): Promise<void>
}
