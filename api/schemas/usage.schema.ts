// The usage record endpoints of docs/usage.md and the record of docs/usage.md.
import { Type } from 'typebox'
import { CompanyParam, documented, listParam, UidOf } from './common.schema.js'
import { EpochTime } from './numbers.schema.js'

const time = (description: string) => Type.Optional(EpochTime({ description: `${description} (epoch ms; seconds and microseconds are converted)` }))
const range = {
  company: Type.Optional(CompanyParam),
  from: time('Start, included, on the record start; default 3 months ago'),
  to: time('End, excluded; default now')
}

export const UsageRecordsQuery = Type.Object({
  ...range,
  size: Type.Optional(Type.Integer({ minimum: 0, description: 'Records, most recent first: default 100, at most 500 (larger is clamped)', ...documented({ maximum: 500, default: 100 }) }))
})

export const UsageRecordsManyQuery = Type.Object({
  ...range,
  targetIds: Type.Optional(listParam('Required: system uids, at most 50')),
  size: Type.Optional(Type.Integer({ minimum: 0, description: 'Records per system and type, most recent first: default 100, at most 500 (larger is clamped)', ...documented({ maximum: 500, default: 100 }) }))
})

export const UsageRecordParams = Type.Object({ uid: UidOf('uid of the system'), recordUid: UidOf('uid of the record (of a session: the same for its interim records)') })

const text = (description: string) => Type.Optional(Type.Union([Type.String(), Type.Null()], { description }))
const long = (description: string) => Type.Optional(Type.Union([Type.Integer(), Type.Null()], { description }))

/** docs/usage.md: the common fields, then those of each type (a record has its type's only). */
export const UsageRecordView = Type.Object({
  uid: Type.String({ description: 'Constant for one session, the same for all its interim records' }),
  type: Type.String({ description: 'DATA, SMS_SENT, SMS_RECEIVED, VOICE_IN, VOICE_OUT or MSU' }),
  visitedNetwork: text('Visited network'),
  visitedCountry: text('Visited country'),
  visitedMnc: text('Visited MNC'),
  visitedMcc: text('Visited MCC'),
  servedImsi: text('Served IMSI'),
  servedImei: text('Served IMEI'),
  servedMsisdn: text('Served MSISDN'),
  start: Type.Integer({ description: 'Start of the session, or date of the SMS or message unit (epoch ms)' }),
  end: Type.Optional(Type.Integer({ description: 'DATA and voice: end of the session (epoch ms); equals start for an interim record' })),
  partial: Type.Optional(Type.Boolean({ description: 'DATA: true for an interim record' })),
  bytesSent: long('DATA: bytes sent'),
  bytesReceived: long('DATA: bytes received'),
  bytesTotal: long('DATA: bytes sent and received'),
  roundedBytesTotal: long('DATA: bytesTotal rounded up to the billing increment of the offer'),
  apn: text('DATA: access point name'),
  pdpAddress: text('DATA: PDP address'),
  ratType: text('DATA: radio access technology'),
  phoneNumber: text('SMS and voice: the peer (callee, caller, sender)'),
  roundedDuration: long('Voice: duration in seconds rounded up to the billing increment of the offer')
}, {
  description: 'A usage record',
  examples: [{ uid: 'session-4711', type: 'DATA', visitedNetwork: null, visitedCountry: 'FR', visitedMnc: '01', visitedMcc: '208', servedImsi: '208011234567890', servedImei: null, servedMsisdn: null, start: 1767398400000, end: 1767402000000, partial: false, bytesSent: 1200, bytesReceived: 3400, bytesTotal: 4600, roundedBytesTotal: 5120, apn: 'm2m.example', pdpAddress: '10.0.0.7', ratType: 'LTE' }]
})

export const UsageRecordsView = Type.Array(UsageRecordView, { description: 'Usage records, most recent first' })

const UsagePoint = Type.Object({
  ts: Type.Integer({ description: 'Start of the record (epoch ms)' }),
  v: Type.Object({
    uid: Type.String({ description: 'uid of the record' }),
    end: Type.Optional(Type.Integer({ description: 'DATA and voice: end of the session (epoch ms)' }))
  })
})

export const UsagePointsView = Type.Record(Type.String(), Type.Record(Type.String(), Type.Array(UsagePoint)), {
  description: 'System uid → usage type → records, most recent first',
  examples: [{ '3f9c2b7a1d4e4f6a8b0c2d4e6f8a0b1c': { DATA: [{ ts: 1767398400000, v: { uid: 'session-4711', end: 1767402000000 } }], SMS_SENT: [{ ts: 1767390000000, v: { uid: 'sms-12' } }] } }]
})
