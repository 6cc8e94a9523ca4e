import { Readable } from 'node:stream'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { DataServices } from '../../core/services/data/index.js'
import { errors, uidParams } from '../schemas/common.schema.js'
import { AggregatedDataQuery, FleetDataQuery, LastDataQuery, LastDataView, PointsView, RawDataQuery } from '../schemas/data.schema.js'

export interface DataRoutesOptions { data: Pick<DataServices, 'last' | 'raw' | 'aggregated' | 'fleet'> }

const right = 'entities.systems.view'
const SystemUid = uidParams('uid of the system')

/**
 * docs/api.md#systems: last, raw, aggregated and fleet data points. The static segments of /systems/data/...
 * win over the /systems/:uid parameter in the router, so these never reach the system routes.
 */
const dataRoutes: FastifyPluginAsyncTypebox<DataRoutesOptions> = async (app, { data }) => {
  app.get('/systems/:uid/data', {
    config: { right },
    schema: { tags: ['data'], summary: 'Last data points of a system', description: 'The last value of each data id (all, those listed in ids, or those starting with idPrefix), application data and device-management ids (_RSSI...) alike.', params: SystemUid, querystring: LastDataQuery, response: { 200: LastDataView, ...errors } }
  }, async (req) => await data.last(req.access, req.params.uid, req.query))

  app.get('/systems/data/raw', {
    config: { right },
    schema: { tags: ['data'], summary: 'Raw data points of several systems', description: 'The stored points of each system and data id in [from, to), most recent first.', querystring: RawDataQuery, response: { 200: PointsView, ...errors } }
  }, async (req, reply) => {
    // The answer comes written, in pieces (core/services/data/points.service.ts raw): streamed with a JSON content
    // type, not serialized again (the schema above still documents it).
    const pieces = await data.raw(req.access, req.query)
    return await reply.type('application/json; charset=utf-8').send(Readable.from(pieces) as never)
  })

  app.get('/systems/data/aggregated', {
    config: { right },
    schema: { tags: ['data'], summary: 'Aggregated data points of several systems', description: 'fn folds the points of each system and data id in calendar intervals (UTC); one point per interval, most recent first, null where an interval has no point. Usage ids (DATA_BYTES_TOTAL, SMS_SENT...) are computed from the usage records.', querystring: AggregatedDataQuery, response: { 200: PointsView, ...errors } }
  }, async (req) => await data.aggregated(req.access, req.query))

  app.get('/systems/data/fleet', {
    config: { right },
    schema: { tags: ['data'], summary: 'Fleet aggregated data points of companies', description: 'fn per system and interval first, then fleetFn over the systems of each company in that interval.', querystring: FleetDataQuery, response: { 200: PointsView, ...errors } }
  }, async (req) => await data.fleet(req.actor, req.query))
}

export default dataRoutes
