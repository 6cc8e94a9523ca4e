// The memberships' port: which user belongs to which company, with which profile.
import type { Membership, UserRecord } from '../domain/user.js'

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
