// The applications' port (application models: their data tree and communication).
import type { Application } from '../domain/system.js'
import type { CommunicationEntry, DataNode } from '../domain/application-model.js'
import type { Found, Page } from '../paging.js'

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
