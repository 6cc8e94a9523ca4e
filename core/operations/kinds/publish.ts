// Publish (docs/packages.md#release-and-publish): POST /api/v1/operations/applications/publish {application}, an
// operation of type APPLICATION_PUBLISH with one task, which makes one of the company's applications PUBLISHED (AirVantage
// clients install only a PUBLISHED application).
//
// Choices where the spec is silent (docs/packages.md#release-and-publish):
// - An application that is not the company's own (a public one, another company's, none) answers 400
//   application.unknown at once, as the other application routes do; the operation names it in its parameters
//   (`application`), so that it cannot be deleted while the operation runs.
// - Publishing a PUBLISHED application succeeds and keeps its first `published` date; a DEPRECATED one is published
//   again.
import { Type } from 'typebox'
import { FleetError } from '../../errors.js'
import type { OperationHandler } from '../handler.js'
import { launch, newOperation, type Caller, type OperationDeps } from '../common.js'
import { Common } from '../body.schema.js'
import { operationKind } from '../kind.js'

export interface PublishBody { application: string, notify?: boolean | null, callback?: string | null }

/** @throws application.unknown, callback.invalid, callback.forbidden */
export async function publishOperation (deps: OperationDeps, caller: Caller, body: PublishBody): Promise<{ operation: string }> {
  const companyUid = caller.access.company.uid
  const [found] = await deps.repos.applications.findByUids(companyUid, [body.application])
  if (found?.companyUid !== companyUid) throw new FleetError('application.unknown', [body.application])
  const op = await newOperation(deps, caller, 'APPLICATION_PUBLISH', { notify: body.notify, callback: body.callback }, { application: found.uid })
  return await launch(deps, op, [{ systemUid: '', systemName: null }])
}

export const publishHandler: OperationHandler = {
  async run ({ tx, op, now }) {
    const uid = String(op.parameters.application)
    const [found] = await tx.applications.findByUids(op.companyUid, [uid])
    // Deleted since the request: nothing to publish.
    if (found?.companyUid !== op.companyUid) throw new FleetError('application.unknown', [uid])
    await tx.applications.publish(uid, now)
    return { state: 'SUCCESS', params: { application: uid } }
  }
}

const PublishBodySchema = Type.Object({
  application: Type.String({ minLength: 1, description: 'uid of one of the company\'s applications' }),
  notify: Common.notify,
  callback: Common.callback
}, {
  description: 'Publish an application released from a package',
  examples: [{ application: '9b0c2d4e6f8a0b1c3f9c2b7a1d4e4f6a' }]
})

export const publishKind = operationKind({
  type: 'APPLICATION_PUBLISH',
  route: {
    path: '/operations/applications/publish',
    summary: 'Publish an application',
    description: 'Makes one of the context company\'s applications PUBLISHED (its published date is the first publication): AirVantage clients install only a PUBLISHED application. One task, which names no system. Any other application answers 400 application.unknown.',
    body: PublishBodySchema
  },
  create: async (deps, caller, body) => await publishOperation(deps, caller, body as PublishBody),
  handler: publishHandler
})
