import type { ProfileRef } from './user.js'

export interface ActorMembership {
  companyName: string
  profile: ProfileRef | null
  administrator: boolean
  rights: ReadonlySet<string>
}

/** Who calls the API: resolved from the access token on every request. */
export interface Actor {
  /** null for an API client that has no owning user (it has no login: docs/api.md#using-the-api, current user). */
  userUid: string | null
  clientId: string
  /** The caller's address, checked against the company's ipFilters. */
  ip: string
  /** The company the user belongs to: the default context company (docs/api.md#using-the-api). */
  homeCompanyUid: string | null
  memberships: ReadonlyMap<string, ActorMembership>
}
