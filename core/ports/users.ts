// The users' port.
import type { UserFilter, UserRecord, UserSort } from '../domain/user.js'
import type { Found, Page, Sort } from '../paging.js'

export interface UsersRepository {
  findByUid (uid: string): Promise<UserRecord | undefined>
  findByEmail (email: string): Promise<UserRecord | undefined>
  insert (u: UserRecord, createdAt: number): Promise<void>
  update (uid: string, patch: Partial<Pick<UserRecord, 'name' | 'phoneNumber' | 'passwordHash'>>): Promise<void>
  /** Users holding a membership of filter.companyUid, with their profile there. */
  find (filter: UserFilter, sort: Array<Sort<UserSort>>, page: Page): Promise<Found<UserRecord & { profile: { uid: string, name: string } | null }>>
}
