export interface ProfileRef { uid: string, name: string }

export interface Profile extends ProfileRef {
  companyUid: string
  rights: string[]
}

export interface UserRecord {
  uid: string
  email: string
  name: string
  phoneNumber: string | null
  passwordHash: string | null
  /** The company the user belongs to (docs/api.md#users-and-companies: company). */
  companyUid: string
}

/** A user's access to one company. */
export interface Membership {
  userUid: string
  companyUid: string
  companyName: string
  profile: Profile | null
  administrator: boolean
}

/** docs/api.md#users-and-companies, as answered by the API. */
export interface UserView {
  uid: string
  email: string
  name: string
  phoneNumber: string | null
  profile: ProfileRef | null
  company: { uid: string, name: string }
  picture: null
}

/** docs/api.md#users-and-companies: an administrator entry. */
export interface AdministratorView { uid: string, company: { uid: string }, email: string, name: string }

export const USER_FIELDS = ['uid', 'name', 'email', 'profile'] as const
export type UserField = typeof USER_FIELDS[number]
export const USER_SORTS = ['name', 'email', 'profile'] as const
export type UserSort = typeof USER_SORTS[number]

export interface UserFilter {
  companyUid: string
  uid?: string | undefined
  email?: string | undefined
  name?: string | undefined
  profile?: string | undefined
  freetext?: string | undefined
}
