import { Type } from 'typebox'

// Null comes first: with Ajv's coerceTypes the first branch that passes wins, and a string branch tried first
// would turn null into "" (an address cleared with null would be stored as "", a null range end rejected).
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([Type.Null(), t])

/** fleet-api.md §Company: ipFilters and deviceIpFilters. */
export const IpFilters = Type.Object({
  startIPAddress: Type.Optional(Nullable(Type.String())),
  endIPAddress: Type.Optional(Nullable(Type.String())),
  ipAddresses: Type.Optional(Type.Array(Type.String()))
})

const Picture = Type.Object({ normal: Type.String(), small: Type.String(), icon: Type.String() })
const IpFiltersView = Type.Object({
  startIPAddress: Nullable(Type.String()),
  endIPAddress: Nullable(Type.String()),
  ipAddresses: Type.Array(Type.String())
})

export const CompanyView = Type.Object({
  uid: Type.String(),
  name: Type.String(),
  address: Nullable(Type.String()),
  nFactor: Type.Boolean(),
  ipFiltering: Type.Boolean(),
  ipFilters: IpFiltersView,
  deviceIpFiltering: Type.Boolean(),
  deviceIpFilters: IpFiltersView,
  picture: Type.Union([Picture, Type.Null()])
})

/** A partial Company; fields that cannot be edited are accepted and ignored (fleet-api.md §Companies, Edit). */
export const CompanyEditBody = Type.Object({
  name: Type.Optional(Nullable(Type.String())),
  address: Type.Optional(Nullable(Type.String())),
  ipFiltering: Type.Optional(Type.Boolean()),
  ipFilters: Type.Optional(Type.Union([Type.Null(), IpFilters])),
  deviceIpFiltering: Type.Optional(Type.Boolean()),
  deviceIpFilters: Type.Optional(Type.Union([Type.Null(), IpFilters]))
})

export const AdministratorView = Type.Object({
  uid: Type.String(),
  company: Type.Object({ uid: Type.String() }),
  email: Type.String(),
  name: Type.String()
})

export const AdministratorsBody = Type.Object({
  administrators: Type.Optional(Type.Union([Type.Null(), Type.Array(Type.Object({ uid: Type.Optional(Type.String()) }))]))
})

export const PictureParams = Type.Object({ uid: Type.String(), name: Type.String() })
