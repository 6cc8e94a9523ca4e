import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { OperationsService } from '../../core/operations/service.js'
import { CompanyQuery, errors, Page, uidParams } from '../schemas/common.schema.js'
import { FileResponse, OperationListQuery, OperationRef, OperationView, TaskListQuery, TaskView } from '../schemas/operations.schema.js'
import { OPERATION_RIGHTS } from '../../core/operations/rights.js'
import csvOperationsRoutes from './csv-operations.routes.js'

export interface OperationsRoutesOptions { operations: OperationsService }

// Reading operations needs the view right on systems: an operation is a view of what was done to systems.
const VIEW = 'entities.systems.view'
const OperationUid = uidParams('uid of the operation')
// Every operation answers {operation} at once and runs in the background (docs/api.md#using-the-api).
const ASYNC = 'Answers the uid of the created operation at once; follow it with GET /api/v1/operations/{uid}.'

/** docs/operations.md#bulk-operations, and the operation resource of docs/operations.md#bulk-operations. */
const operationsRoutes: FastifyPluginAsyncTypebox<OperationsRoutesOptions> = async (app, { operations }) => {
  // One route per operation type (core/operations/kinds/index.ts), with the right of its docs/api.md row.
  for (const kind of operations.kinds) {
    if (kind.route.upload !== undefined) continue // read from a file: ./csv-operations.routes.ts
    const onSystem = kind.route.path.includes(':uid')
    app.post(kind.route.path, {
      config: { right: OPERATION_RIGHTS[kind.type] },
      schema: {
        tags: ['operations'],
        summary: kind.route.summary,
        description: `${kind.route.description} ${ASYNC}`,
        ...(onSystem ? { params: uidParams('uid of the system') } : {}),
        querystring: CompanyQuery,
        body: kind.route.body,
        response: { 200: OperationRef, ...errors }
      }
    }, async (req) => {
      const systemUid = onSystem ? (req.params as { uid: string }).uid : undefined
      return await operations.create(kind, req.access, req.actor, req.body, systemUid)
    })
  }

  await app.register(csvOperationsRoutes, { operations })

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

  // docs/operations.md#safe-rollouts: the same right as cancel; a FINISHED operation answers as it is, as cancel does.
  const pauseRoutes = [
    { action: 'pause', summary: 'Pause the release of tasks', description: 'No new task leaves until the operation is resumed; tasks already sent go on, and still fail at timeoutDate. Any operation not FINISHED (a FINISHED one answers unchanged); needs the right that creating this type of operation needs. Answers the operation (rollout.paused: true).' },
    { action: 'resume', summary: 'Resume a paused operation', description: 'Tasks leave again, as its rollout allows (maxPerMinute, waves, maintenance window). An operation not paused or FINISHED answers unchanged; needs the right that creating this type of operation needs. Answers the operation.' }
  ] as const
  for (const { action, summary, description } of pauseRoutes) {
    app.post(`/operations/:uid/${action}`, {
      config: { right: VIEW },
      schema: { tags: ['operations'], summary, description, params: OperationUid, querystring: CompanyQuery, response: { 200: OperationView, ...errors } }
    }, async (req) => await operations[action](req.access, (req.params as { uid: string }).uid))
  }

  app.get('/operations/:uid/file', {
    config: { right: VIEW },
    schema: { tags: ['operations'], summary: 'The file an export produced', description: 'The CSV file of a finished export (or the failed rows of a CSV operation); needs the right that creating this type of operation needs; company.file.not.found before.', params: OperationUid, querystring: CompanyQuery, response: { 200: FileResponse, ...errors } }
  }, async (req, reply) => {
    const f = await operations.file(req.access, req.params.uid)
    return await reply.type(f.contentType).header('content-disposition', `attachment; filename="${f.name}"`).send(f.data)
  })
}

export default operationsRoutes
