// The System as answered (docs/api.md#systems, docs/devices.md; built by
// core/domain/system.ts systemView). Fastify serializes through this schema and drops what it does not list: every
// field the service answers is here, and the open parts (data, metadata, heartbeat, reports) keep what they hold.
import { Type, type TSchema } from 'typebox'
import {
  ACTIVITY_STATES, APPLET_GENERATIONS, COMM_STATUSES, CONF_TYPES, FORM_FACTORS, LIFE_CYCLE_STATES, SYSTEM_STATES, SYNC_STATUSES,
  TECHNOLOGIES, USAGE_STATUSES
} from '../../core/domain/system.js'
import { SIGNAL_LEVELS } from '../../core/domain/system-data.js'

const Null = Type.Null()
const str = (description: string) => Type.Union([Type.String(), Null], { description })
const int = (description: string) => Type.Union([Type.Integer(), Null], { description })
const num = (description: string) => Type.Union([Type.Number(), Null], { description })
const time = (description: string) => Type.Union([Type.Integer(), Null], { description: `${description} (epoch ms)` })
const oneOf = (values: readonly string[], description: string) => Type.String({ enum: [...values], description })
const nullable = (values: readonly string[], description: string) => Type.Union([Type.String({ enum: [...values] }), Null], { description })
const open = <T extends Record<string, TSchema>>(props: T, description: string) => Type.Object(props, { additionalProperties: true, description })

export const GatewayView = Type.Object({
  uid: Type.String({ description: 'uid of the gateway' }),
  imei: str('IMEI'),
  macAddress: str('MAC address'),
  serialNumber: str('Serial number'),
  type: str('Kind of gateway'),
  creationDate: Type.Integer({ description: 'Creation date (epoch ms)' })
}, { description: 'The physical module' })

export const SubscriptionView = Type.Object({
  uid: Type.String({ description: 'uid of the subscription' }),
  identifier: Type.String({ description: 'ICCID or ESN' }),
  mobileNumber: str('Mobile number (MSISDN)'),
  networkIdentifier: str('IMSI or MIN'),
  ipAddress: str('IP address'),
  requestedIp: str('Requested IP address'),
  eid: str('eUICC identifier'),
  operator: Type.String({ description: 'Operator (UNKNOWN when not known)' }),
  state: Type.String({ description: 'State of the subscription' }),
  appletGeneration: nullable(APPLET_GENERATIONS, 'Applet generation'),
  formFactor: nullable(FORM_FACTORS, 'SIM form factor'),
  confType: nullable(CONF_TYPES, 'Configuration type'),
  technology: nullable(TECHNOLOGIES, 'Radio technology'),
  orderId: str('Order identifier'),
  productRefName: str('Product reference'),
  activationImei: str('IMEI at activation'),
  imeiLock: Type.Union([Type.Object({
    imeiLock: Type.Union([Type.Boolean(), Type.String(), Null], { description: 'Whether the SIM is locked to an IMEI' }),
    imeiLockDate: time('Lock date'),
    imeiUnlockedDate: time('Unlock date')
  }), Null], { description: 'IMEI lock of the SIM' })
}, { description: 'The SIM subscription' })

const ApplicationRef = Type.Object({
  uid: Type.String({ description: 'uid of the application' }),
  name: Type.String({ description: 'Name' }),
  revision: Type.String({ description: 'Revision' }),
  type: Type.String({ description: 'Type' }),
  category: Type.String({ description: 'APPLICATION or FIRMWARE' })
})

const password = str('Password; null for callers without the edit right on systems')
const Communication = Type.Object({
  msci: Type.Union([Type.Object({ host: str('Host, or host:port'), user: str('User'), password }), Null], { description: 'Server-initiated polling (AirLink gateways)' }),
  m3da: Type.Union([Type.Object({ registrationPassword: str('Password of the first communication, which creates the password'), password }), Null], { description: 'M3DA' }),
  rest: Type.Union([Type.Object({ password }), Null], { description: 'REST device API' }),
  mqtt: Type.Union([Type.Object({ password }), Null], { description: 'MQTT' }),
  lwm2m: Type.Union([Type.Object({ pskIdentity: str('DTLS PSK identity (default: the endpoint name)'), pskSecretHex: str('DTLS pre-shared key, hex; null for callers without the edit right on systems') }), Null], { description: 'LwM2M' })
}, { description: 'Device credentials per protocol' })

const level = (of: string) => Type.Optional(oneOf(SIGNAL_LEVELS, `Level computed from ${of}`))

/** docs/devices.md; application data ids never appear here, but the object stays open. */
export const SystemDataView = open({
  apn: Type.Optional(str('Access point name')),
  cellId: Type.Optional(str('Cell id')),
  sid: Type.Optional(str('CDMA system id')),
  nid: Type.Optional(str('CDMA network id')),
  pnOffset: Type.Optional(str('CDMA PN offset')),
  latitude: Type.Optional(num('Latitude, signed degrees')),
  longitude: Type.Optional(num('Longitude, signed degrees')),
  rssi: Type.Optional(num('Received signal strength (dBm)')),
  rssiLevel: level('rssi'),
  ecio: Type.Optional(num('Signal quality Ec/Io (dB)')),
  ecioLevel: level('ecio'),
  rsrp: Type.Optional(num('LTE RSRP in 1/10 dBm')),
  rsrpLevel: level('rsrp'),
  rsrq: Type.Optional(num('LTE RSRQ in 1/10 dB')),
  rsrqLevel: level('rsrq'),
  signalBars: Type.Optional(int('Signal bars')),
  signalStrength: level('signalBars'),
  networkServiceType: Type.Optional(Type.String({ description: 'None, GPRS, EDGE, UMTS, HSDPA, HSUPA, HSPA, 1X, EV-DO Rev.0, EV-DO Rev.A, LTE, Unknown (UNKNOWN before any report)' })),
  networkOperator: Type.Optional(str('Network operator')),
  bytesSent: Type.Optional(int('Bytes sent on the cellular link')),
  bytesReceived: Type.Optional(int('Bytes received on the cellular link')),
  packetsSent: Type.Optional(int('Packets sent')),
  packetsReceived: Type.Optional(int('Packets received')),
  boardTemp: Type.Optional(int('Board temperature (Celsius)')),
  radioModuleTemp: Type.Optional(int('Radio module temperature (Celsius)')),
  numberOfResets: Type.Optional(int('Number of resets')),
  roamingStatus: Type.Optional(Type.String({ description: 'Roaming status (UNKNOWN before any report)' })),
  firmwareVersion: Type.Optional(str('Firmware version')),
  firmwareComponents: Type.Optional(str('Firmware components, comma separated')),
  monthBytesTotal: Type.Optional(int('Bytes of the current calendar month')),
  monthBytesTotalTime: Type.Optional(time('When monthBytesTotal was computed')),
  usagesBytesTotal: Type.Optional(int('Deprecated: see dataUsage')),
  lastCommFailureDate: Type.Optional(time('Last communication failure')),
  lastTemplateName: Type.Optional(str('Last template applied')),
  alertState: Type.Optional(Type.Union([Type.Boolean(), Null], { description: 'Whether the system raised an alert' })),
  alertStateChangeDate: Type.Optional(time('Last change of alertState')),
  ipAddress: Type.Optional(str('IP address'))
}, 'Device-management values extracted from the device traffic (same for every protocol)')

const Heartbeat = Type.Union([open({
  state: Type.Optional(Type.String({ description: 'ON or OFF' })),
  period: Type.Optional(Type.String({ description: 'Expected period' })),
  sla: Type.Optional(Type.Object({ error: Type.String(), warning: Type.String() })),
  serverOnly: Type.Optional(Type.Boolean())
}, 'Heartbeat'), Null], { description: 'Expected heartbeat, or null' })

const StatusReport = Type.Union([open({ state: Type.Optional(Type.String()), period: Type.Optional(Type.String()) }, 'Status report'), Null],
  { description: 'Status report, or null' })

const Report = open({
  period: Type.Optional(Type.String()),
  dataset: Type.Optional(Type.Object({ uid: Type.String(), name: Type.String() }))
}, 'Advanced report')

const Offer = Type.Union([Type.Object({
  uid: Type.String({ description: 'uid of the offer' }),
  name: Type.String({ description: 'Name' }),
  limit: Type.Union([Type.Integer(), Null], { description: 'Bytes per month' }),
  types: Type.Array(Type.String(), { description: 'Types' })
}), Null], { description: 'Offer of the system, or null' })

const DataUsage = Type.Object({
  bytesTotal: Type.Integer({ description: 'Bytes of the current calendar month' }),
  timestamp: Type.Integer({ description: 'When bytesTotal was computed; the start of the month when there is no usage (epoch ms)' }),
  status: oneOf(USAGE_STATUSES, 'Usage against the offer'),
  pricePlan: Type.Union([Type.String(), Null], { description: 'Deprecated' }),
  limit: Type.Union([Type.Integer(), Null], { description: 'Deprecated' })
}, { description: 'Data usage of the current month' })

/** Every field of a System, as answered by details, create and edit. */
const systemFields = {
  uid: Type.String({ description: 'uid of the system' }),
  type: str('Kind of device'),
  name: Type.String({ description: 'Name' }),
  lifeCycleState: oneOf(LIFE_CYCLE_STATES, 'Life cycle state'),
  state: oneOf(SYSTEM_STATES, 'Deprecated state'),
  activityState: oneOf(ACTIVITY_STATES, 'Deprecated activity state'),
  creationDate: Type.Integer({ description: 'Creation date (epoch ms)' }),
  activationDate: time('Activation date; null until activated'),
  lastStateChangeDate: Type.Integer({ description: 'Last change of the life cycle state (epoch ms)' }),
  lastCommDate: time('Last communication with the device'),
  commStatus: oneOf(COMM_STATUSES, 'Communication status'),
  lastSyncDate: time('Last synchronisation'),
  syncStatus: oneOf(SYNC_STATUSES, 'Synchronisation status'),
  labels: Type.Array(Type.String(), { description: 'Labels' }),
  gateway: Type.Union([GatewayView, Null], { description: 'The gateway, or null' }),
  applications: Type.Array(ApplicationRef, { description: 'Applications on the system' }),
  subscription: Type.Union([SubscriptionView, Null], { description: 'The subscription, or null' }),
  subscriptions: Type.Array(SubscriptionView, { description: 'Deprecated: see subscription' }),
  metadata: Type.Record(Type.String(), Type.String(), { description: 'Free name → value pairs' }),
  data: SystemDataView,
  communication: Communication,
  heartbeat: Heartbeat,
  statusReport: StatusReport,
  reports: Type.Array(Report, { description: 'Advanced reports' }),
  offer: Offer,
  dataUsage: DataUsage
}

const example = {
  uid: '3f9c2b7a1d4e4f6a8b0c2d4e6f8a0b1c',
  type: 'tracker',
  name: 'Truck 12',
  lifeCycleState: 'ACTIVE',
  state: 'DEPLOYED',
  activityState: 'ACTIVATED',
  creationDate: 1767225600000,
  activationDate: 1767312000000,
  lastStateChangeDate: 1767312000000,
  lastCommDate: 1767398400000,
  commStatus: 'OK',
  lastSyncDate: null,
  syncStatus: 'NOT_SYNC',
  labels: ['north'],
  gateway: { uid: '0b1c3f9c2b7a1d4e4f6a8b0c2d4e6f8a', imei: '359377060000001', macAddress: null, serialNumber: 'LL0000000001', type: null, creationDate: 1767225600000 },
  applications: [],
  subscription: null,
  subscriptions: [],
  metadata: { fleet: 'north' },
  data: { rssi: -71, rssiLevel: 'VERY_GOOD', signalStrength: 'NO_REPORT', networkServiceType: 'LTE', roamingStatus: 'UNKNOWN' },
  communication: { msci: null, m3da: null, rest: null, mqtt: { password: 'device-secret' }, lwm2m: null },
  heartbeat: null,
  statusReport: null,
  reports: [],
  offer: null,
  dataUsage: { bytesTotal: 0, timestamp: 1767225600000, status: 'WITHIN_PLAN', pricePlan: null, limit: null }
}

// Typed as the service's views (core/domain/system.ts answers records): the schema describes, the domain builds.
type View = Record<string, unknown>

export const SystemView = Type.Unsafe<View>(Type.Object(systemFields, { description: 'A system', examples: [example] }))

/** A list item carries only the fields asked with `fields` (all of them when absent; docs/api.md#systems). */
export const SystemListItem = Type.Unsafe<View>(Type.Partial(Type.Object(systemFields), { description: 'A system, with the requested fields only' }))
