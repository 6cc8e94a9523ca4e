// Retrieve data (docs/operations.md#bulk-operations, with its errors; "Devices and telemetry"): a `read`
// device task with the data ids asked for. Readable are the `variable` and `setting` elements of a system's
// applications (docs/api.md#applications-and-templates: a command or an action is run, not read). The request is refused
// when no selected system defines any of the ids (operation.all.data.undefined); a system that lacks some of them fails
// its own task (operation.data.undefined, naming them), as do a system without a protocol for them or without the
// identifiers its protocol needs. "A retrieve succeeds when the device has acked it and sent the values read": the
// values arrive as an ordinary device message (stored like any other) before or after the ack, and the task ends
// SUCCESS when both are in.
import { Type } from 'typebox'
import { FleetError } from '../../errors.js'
import { DEVICE_ERROR } from '../engine.js'
import type { OperationHandler, TaskContext, TaskOutcome } from '../handler.js'
import { launch, newOperation, type Caller, type CommonParams, type OperationDeps } from '../common.js'
import { resolveSelection, type SelectionInput } from '../selection.js'
import { operationKind } from '../kind.js'
import { DeviceCommon } from '../device/body.schema.js'
import { rolloutParams, type RolloutFields } from '../device/rollout-params.js'
import { chooseProtocol, hasCommIdentifiers, type Element } from '../device/targets.js'
import { issueDeviceTask } from '../device/issue.js'
import { perSystem, present, someSystemDefines } from '../device/per-system.js'
import { declareHint } from '../device/declare-hint.js'

export interface RetrieveBody extends CommonParams, RolloutFields {
  data?: string[] | null
  requestConnection?: boolean | null
  protocol?: string | null
  systems?: SelectionInput | null
}

/** What the operation keeps of the request (its `parameters`). */
interface RetrieveParameters { data: string[], protocol: string | null, requestConnection: boolean }

const readable = (e: Element | undefined): e is Element => e !== undefined && (e.def.elementType === 'variable' || e.def.elementType === 'setting')

/**
 * Validates and creates a retrieve: the data ids, set S, set T and the callback, then the ids against the selected
 * systems (a dependsOn selection is known only when its parent ends: its systems are judged task by task).
 * @throws operation.missing.data.ids, set S, set T, operation.all.data.undefined
 */
export async function retrieveOperation (deps: OperationDeps, caller: Caller, body: RetrieveBody): Promise<{ operation: string }> {
  const data = [...new Set(body.data ?? [])]
  if (data.length === 0) throw new FleetError('operation.missing.data.ids', [])
  const selection = await resolveSelection(deps.repos, caller.access.company.uid, body.systems)
  const protocol = body.protocol == null || body.protocol.trim() === '' ? null : body.protocol.toUpperCase()
  const parameters: RetrieveParameters & Record<string, unknown> = { data, protocol, requestConnection: body.requestConnection === true, ...rolloutParams(body) }
  const op = await newOperation(deps, caller, 'SYSTEM_RETRIEVE_DATA', body, parameters, selection)
  if (selection.resolved && !(await someSystemDefines(deps.repos, selection.tasks.map((t) => t.systemUid), data, readable))) {
    throw new FleetError('operation.all.data.undefined', [...data, declareHint('them as variables or settings')])
  }
  return await launch(deps, op, selection.tasks)
}

const parametersOf = (ctx: Pick<TaskContext, 'op'>): RetrieveParameters => ctx.op.parameters as unknown as RetrieveParameters

/**
 * Whether the system sent every id asked for in messages received since its read task was written (params.since,
 * else the task's start).
 */
async function valuesArrived (ctx: TaskContext): Promise<boolean> {
  const { data } = parametersOf(ctx)
  const since = typeof ctx.task.params?.since === 'number' ? ctx.task.params.since : ctx.task.startDate ?? 0
  const received = await ctx.tx.telemetry.receivedIds(ctx.task.systemUid, data, since)
  return received.length === data.length
}

/** @throws operation.data.undefined, operation.protocol.not.found.on.system.for.encoding, operation.on.system.missing.comm.identifiers */
const runOne = perSystem(async (ctx, found) => {
  const target = present(ctx, found)
  const p = parametersOf(ctx)
  const missing = p.data.filter((id) => !readable(target.elements.get(id)))
  if (missing.length > 0) throw new FleetError('operation.data.undefined', [...missing, declareHint('them as variables or settings')])
  const protocol = chooseProtocol(target, p.protocol, target.elements.get(p.data[0] as string))
  if (!hasCommIdentifiers(target, protocol)) throw new FleetError('operation.on.system.missing.comm.identifiers', [target.system.uid, protocol])
  return await issueDeviceTask(ctx, protocol, { read: p.data }, { requestConnection: p.requestConnection, params: { since: ctx.now } })
})

export const retrieveHandler: OperationHandler = {
  ...runOne,
  // The device's ERROR ends the task with its message. Its OK ends it when the values are in; otherwise the task
  // waits for them, marked acked (reported() below). A task being cancelled ends with the device's OK.
  async answered (ctx): Promise<TaskOutcome> {
    if (ctx.answer.status === 'ERROR') throw new FleetError(DEVICE_ERROR, ctx.answer.message === null ? [] : [ctx.answer.message])
    if (ctx.task.state === 'BEING_CANCELLED' || await valuesArrived(ctx)) return { state: 'SUCCESS' }
    return { state: 'IN_PROGRESS', params: { ...ctx.task.params, acked: true } }
  },
  // Values of the system were stored: an acked task whose values are now all in succeeds.
  async reported (ctx) {
    if (ctx.task.params?.acked !== true) return undefined
    return await valuesArrived(ctx) ? { state: 'SUCCESS' } : undefined
  }
}

const RetrieveBodySchema = Type.Object({
  ...DeviceCommon,
  data: Type.Optional(Type.Union([Type.Null(), Type.Array(Type.String({ description: 'A data id (variable or setting) of the systems\' applications' }))], {
    description: 'Data ids to read from each system (required, not empty)'
  }))
}, {
  description: 'Read data from the selected systems\' devices; the values are stored as a device message',
  examples: [{ systems: { uids: ['3f9c2b7a1d4e4f6a8b0c2d4e6f8a0b1c'] }, data: ['_RSSI', 'config.reportPeriodS'], requestConnection: true }]
})

export const retrieveDataKind = operationKind({
  type: 'SYSTEM_RETRIEVE_DATA',
  route: {
    path: '/operations/systems/data/retrieve',
    summary: 'Retrieve data from systems',
    description: 'The systems are chosen by systems: exactly one of label, uids (at most 100), dependsOn or criteria. Each task ends once its device has acknowledged the read and sent the values, which GET /systems/{uid}/data then shows.',
    body: RetrieveBodySchema
  },
  create: async (deps, caller, body) => await retrieveOperation(deps, caller, body as RetrieveBody),
  handler: retrieveHandler
})
