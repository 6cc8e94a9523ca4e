import { Type } from 'typebox'
import { ListParam, PageQuery } from './common.schema.js'

// A uid the service looks up, of any length: an unknown one answers the code of fleet-api.md §Errors
// (user.unknown, partner.unknown), not a schema error such as value.too.long.
const LookupUid = Type.String({ minLength: 1 })

export const UserUidParams = Type.Object({ uid: LookupUid })

/** fleet-api.md §Conventions 6: the optional context company. */
export const UserCompanyQuery = Type.Object({ company: Type.Optional(LookupUid) })

const Ref = Type.Object({ uid: Type.String(), name: Type.String() })

/** fleet-api.md §User. */
export const UserView = Type.Object({
  uid: Type.String(),
  email: Type.String(),
  name: Type.String(),
  phoneNumber: Type.Union([Type.String(), Type.Null()]),
  profile: Type.Union([Ref, Type.Null()]),
  company: Ref,
  picture: Type.Union([Type.Object({ normal: Type.String(), small: Type.String(), icon: Type.String() }), Type.Null()])
})

export const UserListItem = Type.Object({
  uid: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  profile: Type.Optional(Type.Union([Ref, Type.Null()]))
})

export const UserFindQuery = Type.Object({
  company: Type.Optional(LookupUid),
  uid: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  profile: Type.Optional(Type.String()),
  freetext: Type.Optional(Type.String()),
  ...PageQuery,
  fields: Type.Optional(ListParam)
})

export const UserEditBody = Type.Object({
  profile: Type.Optional(Type.Union([Type.Object({ uid: Type.Optional(Type.String()) }), Type.Null()]))
})
