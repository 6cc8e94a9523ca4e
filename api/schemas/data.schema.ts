// The data and message endpoints of docs/api.md#systems (§Last data points ... §Messages).
import { Type } from 'typebox'
import { CompanyParam, documented, listParam, UidOf } from './common.schema.js'
import { EpochTime } from './numbers.schema.js'
import { AGGREGATE_FN_NAMES, DEFAULT_AGGREGATE_FN, INTERVAL_PATTERN } from '../../core/domain/aggregation.js'

/** Epoch ms; seconds and microseconds are tolerated (docs/api.md#using-the-api). */
const time = (description: string) => Type.Optional(EpochTime({ description: `${description} (epoch ms; seconds and microseconds are converted)` }))
const size = (description: string) => Type.Optional(Type.Integer({ minimum: 0, description, ...documented({ maximum: 500, default: 100 }) }))
const company = Type.Optional(CompanyParam)

export const LastDataQuery = Type.Object({
  company,
  ids: Type.Optional(listParam('Data ids to read (not with idPrefix); all data when neither is set')),
  idPrefix: Type.Optional(Type.String({ description: 'Read the data ids starting with this prefix (not empty, not with ids)' }))
})

// docs/devices.md: targetIds and dataIds are required, checked by the service (its own error codes).
const rangeQuery = {
  company,
  targetIds: Type.Optional(listParam('Required: system uids, at most 5')),
  dataIds: Type.Optional(listParam('Required: data ids, at most 10')),
  from: time('Start, included; default 3 months ago'),
  to: time('End, excluded; default now'),
  size: size('Points per system and data id, most recent first: default 100, at most 500 (larger is clamped)')
}

export const RawDataQuery = Type.Object(rangeQuery)

const aggregatedQuery = {
  ...rangeQuery,
  targetIds: Type.Optional(listParam('Required: system uids, at most 50')),
  dataIds: Type.Optional(listParam('Required: data ids, at most 10; usage ids such as DATA_BYTES_TOTAL or SMS_SENT allowed')),
  from: time('Start, included; default: as many intervals before `to` as `size` asks'),
  size: size('Intervals per system and data id, most recent first: default 100, at most 500 (larger is clamped)'),
  interval: Type.Optional(Type.String({
    description: 'Interval length: a multiplier from 1 to 50 and a unit hour, day, month or year (UTC calendar buckets); default 1hour',
    ...documented({ pattern: INTERVAL_PATTERN, default: '1hour' })
  })),
  fn: Type.Optional(Type.String({
    description: 'Folding function inside each interval: mean (default), min, max, sum, stddev, ss (sum of squares), cnt (count); count and standarddeviation are aliases',
    ...documented({ enum: AGGREGATE_FN_NAMES, default: DEFAULT_AGGREGATE_FN })
  }))
}

export const AggregatedDataQuery = Type.Object(aggregatedQuery)

export const FleetDataQuery = Type.Object({
  ...aggregatedQuery,
  targetIds: Type.Optional(listParam('Required: company uids, at most 5')),
  size: size('Intervals per company and data id, most recent first: default 100, at most 500 (larger is clamped)'),
  fleetFn: Type.Optional(Type.String({
    description: 'Function over the systems of a company in each interval, applied to the per-system fn values: mean (default), min, max, sum, stddev, ss, cnt',
    ...documented({ enum: AGGREGATE_FN_NAMES, default: DEFAULT_AGGREGATE_FN })
  }))
})

/** docs/devices.md. */
const LastPoint = Type.Object({
  value: Type.Unknown({ description: 'The value: number, string, boolean or null' }),
  timestamp: Type.Integer({ description: 'When it was measured (epoch ms)' })
})
const Point = Type.Object({
  ts: Type.Integer({ description: 'Time of the point, or start of the interval (epoch ms)' }),
  v: Type.Union([Type.Number(), Type.String(), Type.Null()], { description: 'The value; null for an interval without points' })
})

export const LastDataView = Type.Record(Type.String(), Type.Array(LastPoint), {
  description: 'Data id → its last point, in a one-item array',
  examples: [{ 'machine.temperature': [{ value: 21.5, timestamp: 1767398400000 }], _RSSI: [{ value: -71, timestamp: 1767398400000 }] }]
})

export const PointsView = Type.Record(Type.String(), Type.Record(Type.String(), Type.Array(Point)), {
  description: 'System (or company) uid → data id → points, most recent first',
  examples: [{ '3f9c2b7a1d4e4f6a8b0c2d4e6f8a0b1c': { 'machine.temperature': [{ ts: 1767398400000, v: 21.5 }, { ts: 1767394800000, v: 20.9 }] } }]
})

export const MessagesQuery = Type.Object({
  company,
  from: time('Start, included; default 3 months ago'),
  to: time('End, excluded; default now'),
  fromDate: time('Deprecated: see from'),
  toDate: time('Deprecated: see to'),
  size: size('Messages per page, most recent first: default 100, at most 500 (larger is clamped)'),
  cursor: Type.Optional(Type.String({ description: 'Where the page starts; set by the `next` URL of the previous page' }))
})

export const MessageParams = Type.Object({ uid: UidOf('uid of the system'), messageUid: UidOf('uid of the message') })

/** docs/devices.md. */
const MessageFields = {
  uid: Type.String({ description: 'uid of the message' }),
  timestamp: Type.Integer({ description: 'Time of the message (epoch ms)' }),
  protocol: Type.String({ description: 'MQTT, REST, M3DA, MSCI, SPARKPLUG...' }),
  nbDataPoints: Type.Integer({ description: 'Number of data points it carried' })
}

export const MessagesView = Type.Object({
  next: Type.Union([Type.String(), Type.Null()], { description: 'URL of the following page, null on the last' }),
  messages: Type.Array(Type.Object(MessageFields), { description: 'The messages, most recent first' })
}, { description: 'A page of messages' })

export const MessageDetailView = Type.Object({
  ...MessageFields,
  data: Type.Record(Type.String(), Type.Array(LastPoint), { description: 'Data id → its points in this message' })
}, { description: 'A message with its data points' })
