import { Type } from 'typebox'
import {
  APPLET_GENERATIONS, APPLICATION_CATEGORIES, CONF_TYPES, FORM_FACTORS, LIFE_CYCLE_STATES, PROTOCOLS, SUBSCRIPTION_STATES,
  SYSTEM_STATES, TECHNOLOGIES, ACTION_KINDS
} from '../../core/domain/system.js'
import { DATE_BOUNDS } from '../../core/domain/system-criteria.js'
import { ListParam, PageQuery, Uid } from './common.schema.js'

const Str = Type.Union([Type.String(), Type.Null()])
// An enum answers unknown.enum.value when the value is not one of the list (api/plugins/error-handler.ts).
const NullableEnum = (values: readonly string[]) => Type.Union([Type.Enum([...values]), Type.Null()])

const GatewayInput = Type.Object({
  uid: Type.Optional(Uid),
  imei: Type.Optional(Str),
  serialNumber: Type.Optional(Str),
  macAddress: Type.Optional(Str),
  esn: Type.Optional(Str),
  meid: Type.Optional(Str),
  type: Type.Optional(Str)
})

const SubscriptionInput = Type.Object({
  uid: Type.Optional(Uid),
  identifier: Type.Optional(Str),
  operator: Type.Optional(Str),
  operatorAccount: Type.Optional(Type.Union([Type.Object({ uid: Type.Optional(Type.String()) }), Type.Null()])),
  mobileNumber: Type.Optional(Str),
  networkIdentifier: Type.Optional(Str),
  ipAddress: Type.Optional(Str),
  requestedIp: Type.Optional(Str),
  eid: Type.Optional(Str),
  state: Type.Optional(NullableEnum(SUBSCRIPTION_STATES)),
  appletGeneration: Type.Optional(NullableEnum(APPLET_GENERATIONS)),
  formFactor: Type.Optional(NullableEnum(FORM_FACTORS)),
  confType: Type.Optional(NullableEnum(CONF_TYPES)),
  technology: Type.Optional(NullableEnum(TECHNOLOGIES)),
  orderId: Type.Optional(Str),
  productRefName: Type.Optional(Str),
  activationImei: Type.Optional(Str),
  imeiLock: Type.Optional(Type.Union([Type.Object({
    imeiLock: Type.Optional(Type.Union([Type.Boolean(), Type.String(), Type.Null()])),
    imeiLockDate: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    imeiUnlockedDate: Type.Optional(Type.Union([Type.Integer(), Type.Null()]))
  }), Type.Null()]))
})

const Communication = Type.Object({
  msci: Type.Optional(Type.Union([Type.Object({ host: Type.Optional(Str), user: Type.Optional(Str), password: Type.Optional(Str) }), Type.Null()])),
  m3da: Type.Optional(Type.Union([Type.Object({ registrationPassword: Type.Optional(Str), password: Type.Optional(Str) }), Type.Null()])),
  rest: Type.Optional(Type.Union([Type.Object({ password: Type.Optional(Str) }), Type.Null()])),
  mqtt: Type.Optional(Type.Union([Type.Object({ password: Type.Optional(Str) }), Type.Null()]))
})

/** A System fragment (fleet-api.md §Create system, §Edit system); read-only fields are accepted and ignored. */
export const SystemBody = Type.Object({
  name: Type.Optional(Str),
  type: Type.Optional(Str),
  labels: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()])),
  metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()])),
  communication: Type.Optional(Type.Union([Communication, Type.Null()])),
  lifeCycleState: Type.Optional(Type.Enum([...LIFE_CYCLE_STATES])),
  state: Type.Optional(Type.Enum([...SYSTEM_STATES])),
  gateway: Type.Optional(Type.Union([GatewayInput, Type.Null()])),
  subscription: Type.Optional(Type.Union([SubscriptionInput, Type.Null()])),
  applications: Type.Optional(Type.Union([Type.Array(Type.Object({ uid: Type.Optional(Type.String()) })), Type.Null()]))
})

export const SystemView = Type.Object({}, { additionalProperties: true, description: 'fleet-api.md §System' })

const dateBounds = Object.fromEntries(DATE_BOUNDS.map((b) => [b, Type.Optional(Type.Integer())]))

export const SystemFindQuery = Type.Object({
  company: Type.Optional(Uid),
  uid: Type.Optional(ListParam),
  labels: Type.Optional(ListParam),
  name: Type.Optional(Type.String()),
  states: Type.Optional(ListParam),
  lifeCycleStates: Type.Optional(ListParam),
  activityStates: Type.Optional(ListParam),
  metadata: Type.Optional(ListParam),
  commStatus: Type.Optional(ListParam),
  syncStatus: Type.Optional(ListParam),
  lastAppliedTemplate: Type.Optional(Type.String()),
  lastConfigName: Type.Optional(Type.String()),
  type: Type.Optional(Type.String()),
  application: Type.Optional(ListParam),
  gateway: Type.Optional(ListParam),
  subscription: Type.Optional(ListParam),
  data: Type.Optional(ListParam),
  usageStatus: Type.Optional(Type.Enum(['WITHIN_PLAN', 'NEARING_PLAN', 'EXCEEDING_PLAN'])),
  offer: Type.Optional(Type.String()),
  notOffer: Type.Optional(Type.String()),
  options: Type.Optional(ListParam),
  notOptions: Type.Optional(ListParam),
  ...dateBounds,
  ...PageQuery
})

export const DeleteQuery = Type.Object({
  company: Type.Optional(Uid),
  deleteGateway: Type.Optional(Type.Boolean()),
  deleteSubscription: Type.Optional(Type.Boolean())
})

export const SystemOptionView = Type.Object({
  type: Type.String(), uid: Type.String(), name: Type.String(), config: Type.Optional(Type.String())
})

const ApplicationData = Type.Object({ id: Type.String({ minLength: 1 }), type: Type.String(), settable: Type.Boolean() })
const ApplicationAction = Type.Object({ id: Type.String({ minLength: 1 }), kind: Type.Enum([...ACTION_KINDS]) })

export const ApplicationView = Type.Object({
  uid: Type.String(),
  name: Type.String(),
  revision: Type.String(),
  type: Type.String(),
  category: Type.String(),
  protocols: Type.Array(Type.String()),
  data: Type.Array(ApplicationData),
  actions: Type.Array(ApplicationAction),
  public: Type.Boolean()
})

export const ApplicationCreateBody = Type.Object({
  name: Type.String({ minLength: 1 }),
  revision: Type.String({ minLength: 1 }),
  type: Type.String({ minLength: 1 }),
  category: Type.Enum([...APPLICATION_CATEGORIES]),
  protocols: Type.Optional(Type.Array(Type.Enum([...PROTOCOLS]))),
  data: Type.Optional(Type.Array(ApplicationData)),
  actions: Type.Optional(Type.Array(ApplicationAction))
})

export const ApplicationFindQuery = Type.Object({
  company: Type.Optional(Uid),
  uid: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  type: Type.Optional(Type.String()),
  revision: Type.Optional(Type.String()),
  category: Type.Optional(Type.Enum([...APPLICATION_CATEGORIES])),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  size: Type.Optional(Type.Integer({ minimum: 0 }))
})
