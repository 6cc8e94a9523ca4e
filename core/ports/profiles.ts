// The profiles' port (a company's rights sets).
import type { Profile } from '../domain/user.js'

export interface ProfilesRepository {
  findByUid (companyUid: string, uid: string): Promise<Profile | undefined>
  findByName (companyUid: string, name: string): Promise<Profile | undefined>
  insert (p: Profile): Promise<void>
  updateRights (uid: string, rights: string[]): Promise<void>
}
