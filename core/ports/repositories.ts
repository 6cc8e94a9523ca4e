// Repository ports: storage/repositories implements them over a Queryable (pool, transaction or PGlite).
import type { Company, CompanyPatch, IpFilters, PictureSize } from '../domain/company.js'
import type { Membership, Profile, UserFilter, UserRecord, UserSort } from '../domain/user.js'
import type { Application, DeviceSystem, Gateway, Offer, Subscription, System, SystemOption, SystemSort } from '../domain/system.js'
import type { CommunicationEntry, DataNode } from '../domain/application-model.js'
import type { SystemCriteria } from '../domain/system-criteria.js'
import type { GatewayFilter, GatewaySort, SubscriptionFilter, SubscriptionSort } from '../domain/parts.js'
import type { TelemetryRepository } from './telemetry.js'
import type { OperationsRepository } from './operations.js'
import type { DataQueriesRepository } from './data-queries.js'
import type { DeviceTasksRepository } from './devices.js'
import type { M3daRepository } from './m3da.js'
import type { MsciPollsRepository } from './msci.js'
import type { UsageRepository } from './usage.js'
import type { PointPartitionsRepository } from './point-partitions.js'

import type { Found, Page, Sort } from '../paging.js'
export type { Found, Page, Sort } from '../paging.js'

export interface CompaniesRepository {
  findByUid (uid: string): Promise<Company | undefined>
  /** Whether the store holds a company: false only before the first start has created its own. */
  any (): Promise<boolean>
  findByName (name: string): Promise<Company | undefined>
  insert (c: Company, createdAt: number): Promise<void>
  update (uid: string, patch: CompanyPatch): Promise<void>
  setSystemLimit (uid: string, limit: number | null): Promise<void>
  addPartner (companyUid: string, partnerUid: string): Promise<void>
  partners (companyUid: string): Promise<string[]>
  putPictures (companyUid: string, pictures: Record<PictureSize, { contentType: string, data: Buffer }>): Promise<void>
  getPicture (companyUid: string, size: PictureSize): Promise<{ contentType: string, data: Buffer } | undefined>
}

export interface ProfilesRepository {
  findByUid (companyUid: string, uid: string): Promise<Profile | undefined>
  findByName (companyUid: string, name: string): Promise<Profile | undefined>
  insert (p: Profile): Promise<void>
  updateRights (uid: string, rights: string[]): Promise<void>
}

export interface UsersRepository {
  findByUid (uid: string): Promise<UserRecord | undefined>
  findByEmail (email: string): Promise<UserRecord | undefined>
  insert (u: UserRecord, createdAt: number): Promise<void>
  update (uid: string, patch: Partial<Pick<UserRecord, 'name' | 'phoneNumber' | 'passwordHash'>>): Promise<void>
  /** Users holding a membership of filter.companyUid, with their profile there. */
  find (filter: UserFilter, sort: Array<Sort<UserSort>>, page: Page): Promise<Found<UserRecord & { profile: { uid: string, name: string } | null }>>
}

export interface MembershipsRepository {
  forUser (userUid: string): Promise<Membership[]>
  get (userUid: string, companyUid: string): Promise<Membership | undefined>
  /** Creates or replaces the membership. */
  put (userUid: string, companyUid: string, profileUid: string | null, administrator: boolean): Promise<void>
  setProfile (userUid: string, companyUid: string, profileUid: string): Promise<void>
  remove (userUid: string, companyUid: string): Promise<boolean>
  /** Members of the company, with their user record. */
  administrators (companyUid: string): Promise<Array<UserRecord & { hasProfile: boolean }>>
  members (companyUid: string, userUids: string[]): Promise<Array<Membership & { user: UserRecord }>>
  setAdministrators (companyUid: string, userUids: string[]): Promise<void>
}

export interface ApiClientRecord {
  clientId: string
  /** Null for a public client (the web console, issue 15): it may use the authorization_code grant with PKCE only. */
  secretHash: string | null
  name: string
  userUid: string | null
  /** Where the authorization_code grant may send its codes (exact match). */
  redirectUris: string[]
  /**
   * May use the implicit grant (response_type=token: an access token in the redirect's fragment); absent: false. Only
   * a client registered for it, since a token in a URL can leak where a code, useless without the client, cannot.
   */
  implicitGrant?: boolean
}

export interface ApiClientsRepository {
  find (clientId: string): Promise<ApiClientRecord | undefined>
  /** Creates the client or updates its secret, name and owner. */
  put (c: ApiClientRecord, createdAt: number): Promise<void>
  count (): Promise<number>
}

export interface TokenRecord {
  hash: string
  kind: 'access' | 'refresh'
  clientId: string
  userUid: string | null
  /** The other token of the pair issued together (the refresh token of an access token and back). */
  pairHash: string | null
  /** Shared by every token issued from one grant and the refreshes after it (RFC 9700 §4.14.2). */
  family: string
  /** When a refresh token was exchanged; null while unused (and for access tokens). */
  usedAt: number | null
  expiresAt: number
}

export interface TokensRepository {
  /**
   * Inserts the tokens in one statement. With `parent`, only while that token still exists, holding it meanwhile: a
   * revocation of the family (revokeFamily) that runs at the same time either comes first, and nothing is inserted
   * (false), or removes these too.
   */
  insertAll (tokens: Array<Omit<TokenRecord, 'usedAt'>>, createdAt: number, parent?: string): Promise<boolean>
  find (hash: string): Promise<TokenRecord | undefined>
  /** Deletes the token and its pair. */
  revoke (hash: string): Promise<void>
  /**
   * Marks an unused refresh token used and deletes the access token issued with it; false when it was used already
   * (also by a concurrent request): a replay.
   */
  markUsed (hash: string, now: number): Promise<boolean>
  /** Deletes every token of the family, also those an insertAll running at the same time adds; answers their hashes. */
  revokeFamily (family: string): Promise<string[]>
  deleteExpired (now: number): Promise<number>
  insertCode (c: AuthorizationCode, createdAt: number): Promise<void>
  /** Deletes the code and answers it: a code is used at most once, even by concurrent token requests. */
  takeCode (hash: string): Promise<AuthorizationCode | undefined>
}

export interface AuthorizationCode {
  hash: string
  clientId: string
  userUid: string
  redirectUri: string
  expiresAt: number
  /** The PKCE challenge (RFC 7636, S256) given at /api/oauth/authorize; null when the client sent none. */
  codeChallenge: string | null
}

/** The columns of a systems row that services write. */
export type SystemRow = Omit<System, 'gateway' | 'subscription' | 'applications' | 'offer'> & {
  gatewayUid: string | null
  subscriptionUid: string | null
  offerUid: string | null
}

/** A device login's system: its communication secrets and its company's device IP filtering (fleet-api.md §Company). */
export interface DeviceLogin {
  identifier: string
  systemUid: string
  companyUid: string
  communication: System['communication']
  deviceIpFiltering: boolean
  deviceIpFilters: IpFilters
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
   * What apply settings leaves on the systems (fleet-api.md §System: syncStatus, lastSyncDate; data.lastTemplateName
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
   * Moves the system, its gateway and its subscription to another company (fleet-api.md §Transfer): sets the offer
   * and the subscription's operator account there, clears the gateway's transfer_to and drops the options only the
   * source company offers. @throws gateway.not.unique.identifiers, subscription.not.unique.identifiers
   */
  transfer (uid: string, to: { companyUid: string, offerUid: string | null, operatorAccountUid: string | null }): Promise<void>
}

export interface GatewaysRepository {
  findByUid (companyUid: string, uid: string): Promise<Gateway | undefined>
  /** GET /api/v1/gateways: the company's gateways matching every given filter, sorted and paged. */
  find (companyUid: string, filter: GatewayFilter, sort: Array<Sort<GatewaySort>>, page: Page): Promise<Found<Gateway>>
  /** Gateways of the company holding any of the given identifiers. */
  findByIdentifiers (companyUid: string, ids: { imei?: string | null, serialNumber?: string | null, macAddress?: string | null }): Promise<Gateway[]>
  insert (g: Gateway): Promise<void>
  update (uid: string, patch: Partial<Omit<Gateway, 'uid' | 'companyUid' | 'creationDate'>>): Promise<void>
  /** Adds labels to the gateway (an import's system labels: fleet-api.md §Import). */
  addLabels (uid: string, labels: readonly string[]): Promise<void>
  delete (uid: string): Promise<void>
  /** Marks the gateways of the company's systems as moving to `destination` (gateway.being.transferred). */
  markTransfer (companyUid: string, systemUids: string[], destination: string): Promise<void>
  /** Clears those marks of the systems' gateways that point to `destination`. */
  unmarkTransfer (companyUid: string, systemUids: string[], destination: string): Promise<void>
}

export interface SubscriptionsRepository {
  findByUid (companyUid: string, uid: string): Promise<Subscription | undefined>
  findByIdentifier (companyUid: string, identifier: string): Promise<Subscription | undefined>
  /** GET /api/v1/subscriptions: the company's subscriptions matching every given filter, sorted and paged. */
  find (companyUid: string, filter: SubscriptionFilter, sort: Array<Sort<SubscriptionSort>>, page: Page): Promise<Found<Subscription>>
  insert (s: Subscription): Promise<void>
  update (uid: string, patch: Partial<Omit<Subscription, 'uid' | 'companyUid' | 'creationDate'>>): Promise<void>
  /** Adds labels to the subscription (an import's system labels: fleet-api.md §Import). */
  addLabels (uid: string, labels: readonly string[]): Promise<void>
  delete (uid: string): Promise<void>
}

export interface ApplicationFilter { name?: string | undefined, type?: string | undefined, revision?: string | undefined, category?: string | undefined, uid?: string | undefined }

export interface ApplicationsRepository {
  /** Public applications and those of the company. */
  findByUids (companyUid: string, uids: string[]): Promise<Application[]>
  find (companyUid: string, filter: ApplicationFilter, page: Page): Promise<Found<Application>>
  findByKey (companyUid: string | null, type: string, revision: string): Promise<Application | undefined>
  insert (a: Application, createdAt: number): Promise<void>
  update (uid: string, a: Omit<Application, 'uid' | 'companyUid'>): Promise<void>
  /** Inserts, or updates the one of that company, type and revision (two processes seeding at once both succeed). */
  put (a: Application, createdAt: number): Promise<void>
  /** Replaces an application's data tree (PUT /applications/{uid}/data). */
  setData (uid: string, data: DataNode[]): Promise<void>
  /** Replaces an application's communication (PUT /applications/{uid}/communication). */
  setCommunication (uid: string, communication: CommunicationEntry[]): Promise<void>
  /** Applications installed on a system, complete with communication and data. */
  ofSystem (systemUid: string): Promise<Application[]>
  /** The applications of each system (complete, as ofSystem), in one query; a system without any maps to []. */
  forSystems (systemUids: readonly string[]): Promise<Map<string, Application[]>>
}

export interface OperatorAccount { uid: string, companyUid: string, name: string, operator: string, swapSupported: boolean }
export interface SettingTemplate { uid: string, companyUid: string, name: string, settings: Array<{ key: string, value: unknown }> }
export interface OptionRecord extends SystemOption { companyUid: string | null }

/**
 * A gateway of a company's inventory (issue 11: registration codes; migration 0017): what its manufacturer shipped,
 * and whether its product needs the registration code to be registered (fleet-api.md §Register).
 */
export interface InventoryGateway {
  companyUid: string
  serialNumber: string
  imei: string | null
  type: string
  registrationCode: string | null
  needsRegistrationCode: boolean
}

export interface CatalogueRepository {
  /** Marks a gateway product (a gateway type) as needing a registration code, or not. */
  putGatewayProduct (p: { type: string, registrationCode: boolean }): Promise<void>
  putInventoryGateway (g: Omit<InventoryGateway, 'needsRegistrationCode'>): Promise<void>
  inventoryGateway (companyUid: string, serialNumber: string): Promise<InventoryGateway | undefined>
  offer (companyUid: string, uid: string): Promise<Offer | undefined>
  offerByName (companyUid: string, name: string): Promise<Offer | undefined>
  putOffer (o: Offer): Promise<void>
  operatorAccount (companyUid: string, uid: string): Promise<OperatorAccount | undefined>
  operatorAccountByName (companyUid: string, name: string): Promise<OperatorAccount | undefined>
  /** The company's account of that operator (the first by name when it has several). */
  operatorAccountByOperator (companyUid: string, operator: string): Promise<OperatorAccount | undefined>
  putOperatorAccount (a: OperatorAccount): Promise<void>
  template (companyUid: string, uid: string): Promise<SettingTemplate | undefined>
  templateByName (companyUid: string, name: string): Promise<SettingTemplate | undefined>
  putTemplate (t: SettingTemplate): Promise<void>
  /** The company's templates whose name contains `name` (any when absent), by name. */
  templates (companyUid: string, filter: { name?: string | undefined }, page: Page): Promise<Found<SettingTemplate>>
  /** @throws FleetError template.not.unique when the company has a template of that name */
  insertTemplate (t: SettingTemplate): Promise<void>
  optionByName (companyUid: string | null, type: string, name: string): Promise<OptionRecord | undefined>
  putOption (o: OptionRecord): Promise<void>
}

/**
 * When an administrator last cleared an account's sign-in counters (`fleet admin unlock`, login-throttle.ts), by the
 * account's hash: the counters of the account are keyed by it, so every process starts them afresh.
 */
export interface SignInUnlocksRepository {
  unlockedAt (accountHash: string): Promise<number | undefined>
  unlock (accountHash: string, at: number): Promise<void>
}

/** Savepoints of the current transaction: one task's changes are undone without undoing its neighbours'. */
export interface Savepoints {
  /** Runs fn inside a savepoint: released when it resolves, rolled back (and the error rethrown) when it throws. */
  run<T>(fn: () => Promise<T>): Promise<T>
}

export interface Repositories {
  companies: CompaniesRepository
  profiles: ProfilesRepository
  users: UsersRepository
  memberships: MembershipsRepository
  clients: ApiClientsRepository
  tokens: TokensRepository
  systems: SystemsRepository
  gateways: GatewaysRepository
  subscriptions: SubscriptionsRepository
  applications: ApplicationsRepository
  catalogue: CatalogueRepository
  telemetry: TelemetryRepository
  deviceTasks: DeviceTasksRepository
  operations: OperationsRepository
  savepoint: Savepoints
  dataQueries: DataQueriesRepository
  m3da: M3daRepository
  msciPolls: MsciPollsRepository
  usage: UsageRepository
  pointPartitions: PointPartitionsRepository
  signInUnlocks: SignInUnlocksRepository
}
