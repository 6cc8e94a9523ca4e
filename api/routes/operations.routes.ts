import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { OperationsService } from '../../core/services/operations/index.js'
import { CompanyQuery, errors, Page, uidParams } from '../schemas/common.schema.js'
import { DeleteBody, ExportBody, FileResponse, LabelBody, OperationListQuery, OperationRef, OperationView, SwapSimBody, TaskListQuery, TaskView, TransferBody } from '../schemas/operations.schema.js'

export interface OperationsRoutesOptions { operations: OperationsService }

// Reading operations needs the view right on systems: an operation is a view of what was done to systems.
const VIEW = 'entities.systems.view'
const OperationUid = uidParams('uid of the operation')
// Every operation answers {operation} at once and runs in the background (fleet-api.md §Conventions 10).
const ASYNC = 'Answers the uid of the created operation at once; follow it with GET /api/v1/operations/{uid}.'

/** fleet-api.md §Operations on systems, and the operation resource of conventions.md §Operations. */
const operationsRoutes: FastifyPluginAsyncTypebox<OperationsRoutesOptions> = async (app, { operations }) => {
  app.post('/operations/systems/label', {
    config: { right: 'entities.systems.edit' },
    schema: { tags: ['operations'], summary: 'Label systems', description: `Adds and removes labels (at most 100 each) on the systems chosen by criteria, dependsOn or identifiers; all the company's systems when none is set. ${ASYNC}`, querystring: CompanyQuery, body: LabelBody, response: { 200: OperationRef, ...errors } }
  }, async (req) => await operations.label(req.access, req.actor, req.body))

  app.post('/operations/systems/delete', {
    config: { right: 'entities.systems.delete' },
    schema: { tags: ['operations'], summary: 'Delete systems', description: `The systems are chosen by systems: exactly one of label, uids (at most 100), dependsOn or criteria. ${ASYNC}`, querystring: CompanyQuery, body: DeleteBody, response: { 200: OperationRef, ...errors } }
  }, async (req) => await operations.remove(req.access, req.actor, req.body))

  app.post('/operations/systems/:uid/export/data/historical', {
    config: { right: 'entities.systems.export' },
    schema: { tags: ['operations'], summary: 'Export the data history of a system to a CSV file', description: `The file is read with GET /api/v1/operations/{uid}/file once the operation has finished. ${ASYNC}`, params: uidParams('uid of the system'), querystring: CompanyQuery, body: ExportBody, response: { 200: OperationRef, ...errors } }
  }, async (req) => await operations.exportHistory(req.access, req.actor, req.params.uid, req.body))

  // The create right in the destination is checked by the service (fleet-api.md §Authentication).
  app.post('/operations/systems/transfer', {
    config: { right: 'entities.systems.transfers.create' },
    schema: { tags: ['operations'], summary: 'Transfer systems to a partner company', description: `The systems are chosen by systems: exactly one of label, uids (at most 100), dependsOn or criteria. The caller needs entities.systems.create in the destination too. ${ASYNC}`, querystring: CompanyQuery, body: TransferBody, response: { 200: OperationRef, ...errors } }
  }, async (req) => await operations.transfer(req.access, req.actor, req.body))

  app.post('/operations/systems/swapsim', {
    config: { right: 'entities.systems.network.swapsim' },
    schema: { tags: ['operations'], summary: 'Swap the SIM between systems', description: `Each source (ACTIVE, SUSPENDED or TEST_READY) gives its SIM to its target (INVENTORY, without gateway) of the same operator account. ${ASYNC}`, querystring: CompanyQuery, body: SwapSimBody, response: { 200: OperationRef, ...errors } }
  }, async (req) => await operations.swapSim(req.access, req.actor, req.body))

  app.get('/operations', {
    config: { right: VIEW },
    schema: { tags: ['operations'], summary: 'Find operations', description: 'The context company\'s operations matching every filter given, newest first.', querystring: OperationListQuery, response: { 200: Page(OperationView), ...errors } }
  }, async (req) => await operations.find(req.access, req.query))

  app.get('/operations/:uid', {
    config: { right: VIEW },
    schema: { tags: ['operations'], summary: 'An operation', description: 'Its state, counters of tasks per state, and parameters.', params: OperationUid, querystring: CompanyQuery, response: { 200: OperationView, ...errors } }
  }, async (req) => await operations.get(req.access, req.params.uid))

  app.get('/operations/:uid/tasks', {
    config: { right: VIEW },
    schema: { tags: ['operations'], summary: 'Tasks of an operation', description: 'One task per system, with its state and error.', params: OperationUid, querystring: TaskListQuery, response: { 200: Page(TaskView), ...errors } }
  }, async (req) => await operations.tasks(req.access, req.params.uid, req.query))

  // The service also asks for the right that creating the operation's type needs (core/operations/rights.ts).
  app.post('/operations/:uid/cancel', {
    config: { right: VIEW },
    schema: { tags: ['operations'], summary: 'Cancel what has not finished', description: 'Pending tasks are cancelled at once, tasks at a device when it answers; needs the right that creating this type of operation needs. Answers the operation.', params: OperationUid, querystring: CompanyQuery, response: { 200: OperationView, ...errors } }
  }, async (req) => await operations.cancel(req.access, req.params.uid))

  app.get('/operations/:uid/file', {
    config: { right: VIEW },
    schema: { tags: ['operations'], summary: 'The file an export produced', description: 'The CSV file of a finished export; company.file.not.found before.', params: OperationUid, querystring: CompanyQuery, response: { 200: FileResponse, ...errors } }
  }, async (req, reply) => {
    const f = await operations.file(req.access, req.params.uid)
    return await reply.type(f.contentType).header('content-disposition', `attachment; filename="${f.name}"`).send(f.data)
  })
}

export default operationsRoutes
