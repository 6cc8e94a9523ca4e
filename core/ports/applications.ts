// The applications' port (application models: their data tree and communication).
import type { Application } from '../domain/system.js'
import type { CommunicationEntry, DataNode } from '../domain/application-model.js'
import type { Found, Page } from '../paging.js'
import type { ApplicationRelease, StoredBinary } from '../domain/application-package.js'

/** An application released from a package, as the release operation creates it (docs/packages.md#release-and-publish). */
export interface NewReleasedApplication {
  application: Application
  ownerUid: string | null
  applicationManager: string | null
  binaries: StoredBinary[]
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
  /** What each application holds beyond its model (state, owner, manager, binaries); an unknown uid is left out. */
  releases (uids: readonly string[]): Promise<Map<string, ApplicationRelease>>
  /** Inserts a released application (state RELEASED, released at `now`) and its binaries. @throws application.not.unique */
  insertReleased (a: NewReleasedApplication, now: number): Promise<void>
  /** PUBLISHED, published at `now` the first time (publishing again keeps the first date). */
  publish (uid: string, now: number): Promise<void>
  /**
   * Why the application cannot be deleted, if it cannot: an operation not FINISHED whose parameters name it
   * (`parameters.application`), or systems that have it. Locks the application's row until the transaction ends.
   */
  inUse (uid: string): Promise<{ operations: number, systems: number }>
  /** Deletes it and its binaries' rows; answers the artifact keys of those binaries that no application uses any more. */
  delete (uid: string): Promise<string[]>
  /** Of these artifact keys, those some application's binary uses. */
  artifactsInUse (keys: readonly string[]): Promise<Set<string>>
}
