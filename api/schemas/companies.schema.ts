import { Type } from 'typebox'
import { documented } from './common.schema.js'

// Null comes first: with Ajv's coerceTypes the first branch that passes wins, and a string branch tried first
// would turn null into "" (an address cleared with null would be stored as "", a null range end rejected).
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([Type.Null(), t])

/** docs/api.md#users-and-companies: ipFilters and deviceIpFilters. */
export const IpFilters = Type.Object({
  startIPAddress: Type.Optional(Nullable(Type.String())),
  endIPAddress: Type.Optional(Nullable(Type.String())),
  ipAddresses: Type.Optional(Type.Array(Type.String()))
})

const Picture = Type.Object({
  normal: Type.String({ description: 'Path of the original image' }),
  small: Type.String({ description: 'Path of the 32 px image' }),
  icon: Type.String({ description: 'Path of the 16 px image' })
})
const IpFiltersView = Type.Object({
  startIPAddress: Type.Union([Type.Null(), Type.String()], { description: 'Start of the allowed range' }),
  endIPAddress: Type.Union([Type.Null(), Type.String()], { description: 'End of the allowed range' }),
  ipAddresses: Type.Array(Type.String(), { description: 'Allowed addresses' })
})

export const CompanyView = Type.Object({
  uid: Type.String({ description: 'uid of the company' }),
  name: Type.String({ description: 'Name, unique in the service' }),
  address: Type.Union([Type.Null(), Type.String()], { description: 'Postal address, at most 255 characters' }),
  nFactor: Type.Boolean({ description: 'Whether 2-factor authentication is active' }),
  ipFiltering: Type.Boolean({ description: 'Whether API requests are filtered by address' }),
  ipFilters: Type.Object(IpFiltersView.properties, { description: 'Addresses allowed to call the API' }),
  deviceIpFiltering: Type.Boolean({ description: 'Whether device communications are filtered by address' }),
  deviceIpFilters: Type.Object(IpFiltersView.properties, { description: 'Addresses allowed for devices' }),
  picture: Type.Union([Picture, Type.Null()], { description: 'Picture, or null' })
}, {
  description: 'A company',
  examples: [{ uid: '8b0c2d4e6f8a0b1c3f9c2b7a1d4e4f6a', name: 'Acme', address: '1 Main Street', nFactor: false, ipFiltering: false, ipFilters: { startIPAddress: null, endIPAddress: null, ipAddresses: [] }, deviceIpFiltering: false, deviceIpFilters: { startIPAddress: null, endIPAddress: null, ipAddresses: [] }, picture: null }]
})

/** A partial Company; fields that cannot be edited are accepted and ignored (docs/api.md#users-and-companies, Edit). */
export const CompanyEditBody = Type.Object({
  name: Type.Optional(Nullable(Type.String())),
  address: Type.Optional(Nullable(Type.String())),
  ipFiltering: Type.Optional(Type.Boolean()),
  ipFilters: Type.Optional(Type.Union([Type.Null(), IpFilters])),
  deviceIpFiltering: Type.Optional(Type.Boolean()),
  deviceIpFilters: Type.Optional(Type.Union([Type.Null(), IpFilters]))
}, { examples: [{ address: '1 Main Street', ipFiltering: true, ipFilters: { startIPAddress: '203.0.113.1', endIPAddress: '203.0.113.20', ipAddresses: ['198.51.100.7'] } }] })

export const AdministratorView = Type.Object({
  uid: Type.String({ description: 'uid of the user' }),
  company: Type.Object({ uid: Type.String({ description: 'uid of the company' }) }),
  email: Type.String({ description: 'E-mail' }),
  name: Type.String({ description: 'Name' })
}, { description: 'An administrator of the company' })

export const AdministratorsBody = Type.Object({
  administrators: Type.Optional(Type.Union([Type.Null(), Type.Array(Type.Object({ uid: Type.Optional(Type.String()) }))], { description: 'The new list, by uid: it replaces the current one and may not be empty' }))
}, { examples: [{ administrators: [{ uid: '1d4e4f6a8b0c2d4e6f8a0b1c3f9c2b7a' }] }] })

export const PictureParams = Type.Object({
  uid: Type.String({ description: 'uid of the company' }),
  name: Type.String({ description: 'Size: normal (original), small (32 px) or icon (16 px)', ...documented({ enum: ['normal', 'small', 'icon'] }) })
})

/** The image of GET /company/{uid}/picture/{name}: sent as is, never serialized (a Buffer skips the serializer). */
export const PictureResponse = Type.Unsafe<Buffer>({
  description: 'The image',
  content: {
    'image/png': { schema: { type: 'string', format: 'binary' } },
    'image/jpeg': { schema: { type: 'string', format: 'binary' } }
  }
})
