import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { OperationsService } from '../../core/services/operations/index.js'
import { CompanyQuery, errors, Page, UidParams } from '../schemas/common.schema.js'
import { DeleteBody, ExportBody, LabelBody, OperationListQuery, OperationRef, OperationView, SwapSimBody, TaskListQuery, TransferBody } from '../schemas/operations.schema.js'

export interface OperationsRoutesOptions { operations: OperationsService }

// Reading operations needs the view right on systems: an operation is a view of what was done to systems.
const VIEW = 'entities.systems.view'

/** fleet-api.md §Operations on systems, and the operation resource of conventions.md §Operations. */
const operationsRoutes: FastifyPluginAsyncTypebox<OperationsRoutesOptions> = async (app, { operations }) => {
  app.post('/operations/systems/label', {
    config: { right: 'entities.systems.edit' },
    schema: { tags: ['operations'], summary: 'Label systems', querystring: CompanyQuery, body: LabelBody, response: { 200: OperationRef, ...errors } }
  }, async (req) => await operations.label(req.access, req.actor, req.body))

  app.post('/operations/systems/delete', {
    config: { right: 'entities.systems.delete' },
    schema: { tags: ['operations'], summary: 'Delete systems', querystring: CompanyQuery, body: DeleteBody, response: { 200: OperationRef, ...errors } }
  }, async (req) => await operations.remove(req.access, req.actor, req.body))

  app.post('/operations/systems/:uid/export/data/historical', {
    config: { right: 'entities.systems.export' },
    schema: { tags: ['operations'], summary: 'Export the data history of a system to a CSV file', params: UidParams, querystring: CompanyQuery, body: ExportBody, response: { 200: OperationRef, ...errors } }
  }, async (req) => await operations.exportHistory(req.access, req.actor, req.params.uid, req.body))

  // The create right in the destination is checked by the service (fleet-api.md §Authentication).
  app.post('/operations/systems/transfer', {
    config: { right: 'entities.systems.transfers.create' },
    schema: { tags: ['operations'], summary: 'Transfer systems to a partner company', querystring: CompanyQuery, body: TransferBody, response: { 200: OperationRef, ...errors } }
  }, async (req) => await operations.transfer(req.access, req.actor, req.body))

  app.post('/operations/systems/swapsim', {
    config: { right: 'entities.systems.network.swapsim' },
    schema: { tags: ['operations'], summary: 'Swap the SIM between systems', querystring: CompanyQuery, body: SwapSimBody, response: { 200: OperationRef, ...errors } }
  }, async (req) => await operations.swapSim(req.access, req.actor, req.body))

  app.get('/operations', {
    config: { right: VIEW },
    schema: { tags: ['operations'], summary: 'Find operations', querystring: OperationListQuery, response: { 200: Page(OperationView), ...errors } }
  }, async (req) => await operations.find(req.access, req.query))

  app.get('/operations/:uid', {
    config: { right: VIEW },
    schema: { tags: ['operations'], summary: 'An operation', params: UidParams, querystring: CompanyQuery, response: { 200: OperationView, ...errors } }
  }, async (req) => await operations.get(req.access, req.params.uid))

  app.get('/operations/:uid/tasks', {
    config: { right: VIEW },
    schema: { tags: ['operations'], summary: 'Tasks of an operation', params: UidParams, querystring: TaskListQuery, response: { 200: Page(OperationView), ...errors } }
  }, async (req) => await operations.tasks(req.access, req.params.uid, req.query))

  app.post('/operations/:uid/cancel', {
    config: { right: VIEW },
    schema: { tags: ['operations'], summary: 'Cancel what has not finished', params: UidParams, querystring: CompanyQuery, response: { 200: OperationView, ...errors } }
  }, async (req) => await operations.cancel(req.access, req.params.uid))

  app.get('/operations/:uid/file', {
    config: { right: VIEW },
    schema: { tags: ['operations'], summary: 'The file an export produced', params: UidParams, querystring: CompanyQuery }
  }, async (req, reply) => {
    const f = await operations.file(req.access, req.params.uid)
    return await reply.type(f.contentType).header('content-disposition', `attachment; filename="${f.name}"`).send(f.data)
  })
}

export default operationsRoutes
