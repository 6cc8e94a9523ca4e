import { Type } from 'typebox'
import { documented, listParam, PageQuery } from './common.schema.js'
import { PHONE_NUMBER_PATTERN } from '../../core/domain/phone-number.js'

// A uid the service looks up, of any length: an unknown one answers the code of docs/api.md#using-the-api
// (user.unknown, partner.unknown), not a schema error such as value.too.long.
const LookupUid = (description: string) => Type.String({ minLength: 1, description })

export const UserUidParams = Type.Object({ uid: LookupUid('uid of the user') })

/** docs/api.md#using-the-api: the optional context company. */
const Company = LookupUid('Context company: the uid of the caller\'s company (the default) or of a partner company')
export const UserCompanyQuery = Type.Object({ company: Type.Optional(Company) })

const Ref = Type.Object({ uid: Type.String({ description: 'uid' }), name: Type.String({ description: 'Name' }) })

/** docs/api.md#users-and-companies. */
export const UserView = Type.Object({
  uid: Type.String({ description: 'uid of the user' }),
  email: Type.String({ description: 'E-mail, the login' }),
  name: Type.String({ description: 'Name' }),
  phoneNumber: Type.Union([Type.String(documented({ pattern: PHONE_NUMBER_PATTERN })), Type.Null()], { description: 'Phone number in international format (+...)' }),
  profile: Type.Union([Ref, Type.Null()], { description: 'Profile in the company, which gives the rights' }),
  company: Type.Object(Ref.properties, { description: 'The company the user belongs to' }),
  picture: Type.Union([Type.Object({
    normal: Type.String({ description: 'Path of the original image' }),
    small: Type.String({ description: 'Path of the 32 px image' }),
    icon: Type.String({ description: 'Path of the 16 px image' })
  }), Type.Null()], { description: 'Picture, or null' })
}, {
  description: 'A user',
  examples: [{ uid: '1d4e4f6a8b0c2d4e6f8a0b1c3f9c2b7a', email: 'admin@example.com', name: 'Administrator', phoneNumber: null, profile: { uid: '4f6a8b0c2d4e6f8a0b1c3f9c2b7a1d4e', name: 'Administrator' }, company: { uid: '8b0c2d4e6f8a0b1c3f9c2b7a1d4e4f6a', name: 'Acme' }, picture: null }]
})

export const UserListItem = Type.Object({
  uid: Type.Optional(Type.String({ description: 'uid of the user' })),
  name: Type.Optional(Type.String({ description: 'Name' })),
  email: Type.Optional(Type.String({ description: 'E-mail' })),
  profile: Type.Optional(Type.Union([Ref, Type.Null()], { description: 'Profile in the company' }))
}, { description: 'A user, with the requested fields only (uid, name, email by default)' })

export const UserFindQuery = Type.Object({
  company: Type.Optional(Company),
  uid: Type.Optional(Type.String({ description: 'uid of the user' })),
  email: Type.Optional(Type.String({ description: 'E-mail contains this text' })),
  name: Type.Optional(Type.String({ description: 'Name contains this text' })),
  profile: Type.Optional(Type.String({ description: 'uid of the profile' })),
  freetext: Type.Optional(Type.String({ description: 'E-mail or name contains this text' })),
  ...PageQuery,
  fields: Type.Optional(listParam('Attributes to return: uid, name, email, profile (default uid, name, email)', ['uid', 'name', 'email', 'profile'])),
  orderBy: Type.Optional(listParam('Sort order <field>[:asc|:desc]; fields: name, email, profile'))
})

export const UserEditBody = Type.Object({
  profile: Type.Optional(Type.Union([Type.Object({ uid: Type.Optional(Type.String()) }), Type.Null()], { description: 'The new profile, by uid (administrators only)' }))
}, { examples: [{ profile: { uid: '4f6a8b0c2d4e6f8a0b1c3f9c2b7a1d4e' } }] })
