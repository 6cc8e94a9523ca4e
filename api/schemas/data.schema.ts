// The data and message endpoints of fleet-api.md §Systems (§Last data points ... §Messages).
import { Type } from 'typebox'
import { ListParam, Uid } from './common.schema.js'

/** Epoch ms; seconds and microseconds are tolerated (conventions.md §HTTP basics). */
const Timestamp = Type.Number()
const Size = Type.Integer({ minimum: 0 })

export const LastDataQuery = Type.Object({
  company: Type.Optional(Uid),
  ids: Type.Optional(ListParam),
  idPrefix: Type.Optional(Type.String())
})

const rangeQuery = {
  company: Type.Optional(Uid),
  targetIds: Type.Optional(ListParam),
  dataIds: Type.Optional(ListParam),
  from: Type.Optional(Timestamp),
  to: Type.Optional(Timestamp),
  size: Type.Optional(Size)
}

export const RawDataQuery = Type.Object(rangeQuery)

const aggregatedQuery = { ...rangeQuery, interval: Type.Optional(Type.String()), fn: Type.Optional(Type.String()) }

export const AggregatedDataQuery = Type.Object(aggregatedQuery)

export const FleetDataQuery = Type.Object({ ...aggregatedQuery, fleetFn: Type.Optional(Type.String()) })

/** fleet-api.md §Data point shapes. */
const LastPoint = Type.Object({ value: Type.Unknown(), timestamp: Type.Integer() })
const Point = Type.Object({ ts: Type.Integer(), v: Type.Union([Type.Number(), Type.String(), Type.Null()]) })

export const LastDataView = Type.Record(Type.String(), Type.Array(LastPoint), { description: 'data id → [last point]' })

export const PointsView = Type.Record(Type.String(), Type.Record(Type.String(), Type.Array(Point)),
  { description: 'system (or company) uid → data id → points, most recent first' })

export const MessagesQuery = Type.Object({
  company: Type.Optional(Uid),
  from: Type.Optional(Timestamp),
  to: Type.Optional(Timestamp),
  fromDate: Type.Optional(Timestamp),
  toDate: Type.Optional(Timestamp),
  size: Type.Optional(Size),
  cursor: Type.Optional(Type.String({ description: 'set by the `next` URL' }))
})

export const MessageParams = Type.Object({ uid: Uid, messageUid: Uid })

/** fleet-api.md §Device message. */
const MessageFields = {
  uid: Type.String(),
  timestamp: Type.Integer(),
  protocol: Type.String(),
  nbDataPoints: Type.Integer()
}

export const MessagesView = Type.Object({
  next: Type.Union([Type.String(), Type.Null()], { description: 'URL of the following page, null on the last' }),
  messages: Type.Array(Type.Object(MessageFields))
})

export const MessageDetailView = Type.Object({ ...MessageFields, data: LastDataView })
