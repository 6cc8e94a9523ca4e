// What reboot, reset to factory and wake-up share (docs/operations.md#bulk-operations,
// docs/api.md#applications-and-templates): the action they run is an `action` element of the systems' applications, of
// one actionType (REBOOT, RESET, CONNECT), sent as a `command` device task whose id is the action's id. The request may
// name the action (checked against the selected systems: 400 when it is not of the right kind); without one, each
// system's applications say which (reboot: the first firmware's; reset: every RESET action; wake-up: the CONNECT
// action of an application that communicates). Per system: no such action, no protocol, or no identifiers for it
// fail that system's task with the code (docs/operations.md#bulk-operations).
import { FleetError, type ErrorCode } from '../../errors.js'
import type { Repositories } from '../../ports/repositories.js'
import type { ActionType } from '../../domain/application-model.js'
import { flattenData } from '../../domain/application-model.js'
import type { DeviceProtocol } from '../../domain/device-message.js'
import type { Application } from '../../domain/system.js'
import type { OperationType, Task } from '../../domain/operation.js'
import { launch, newOperation, type Caller, type CommonParams, type OperationDeps } from '../common.js'
import { resolveSelection, type SelectionInput } from '../selection.js'
import { DEVICE_ERROR } from '../engine.js'
import type { OperationHandler, TaskContext, TaskOutcome } from '../handler.js'
import { chooseProtocol, hasCommIdentifiers, type DeviceTarget, type Element } from './targets.js'
import { perSystem, present, someSystemDefines } from './per-system.js'
import { rolloutParams, type RolloutFields } from './rollout-params.js'
import { issueDeviceTask } from './issue.js'
import { declareHint } from './declare-hint.js'

/** How one action operation differs from the others. */
export interface ActionSpec {
  actionType: ActionType
  /** 400 at creation: the requested action is not an action of actionType on the selected systems. */
  invalidAction: ErrorCode
  /** A system's task: the system has no (such) action of actionType. */
  missingAction: ErrorCode
  /** The actions to run on a system when the request names none, in order (empty: missingAction). */
  defaults: (applications: readonly Application[]) => Element[]
}

/** What the operation keeps of the request (its `parameters`). */
export interface ActionParameters {
  action: string | null
  protocol: string | null
  requestConnection: boolean
}

/** One command of a task's plan: the action and the protocol that carries it. */
interface Step { id: string, protocol: DeviceProtocol }

/** The operation task's own parameters: the commands to run in turn and the one the device has now. */
interface Plan { steps: Step[], step: number }

/** Every action element of actionType, application by application (tree order inside one). */
export function actionsOf (applications: readonly Application[], actionType: ActionType): Element[] {
  const out: Element[] = []
  for (const application of applications) {
    for (const def of flattenData(application.data)) {
      if (def.elementType === 'action' && def.actionType === actionType) out.push({ def, application })
    }
  }
  return out
}

const isAction = (e: Element, actionType: ActionType): boolean => e.def.elementType === 'action' && e.def.actionType === actionType

/**
 * The requested action against the selected systems (AirVantage: "an action identifier of the right kind"): refused
 * when a system defines that id as anything but an action of the type, or when none of them defines it at all. A
 * system that does not define it fails its own task (spec.missingAction). @throws spec.invalidAction
 */
export async function checkAction (repos: Pick<Repositories, 'applications'>, spec: ActionSpec, action: string, systemUids: readonly string[]): Promise<void> {
  const right = (e: Element): boolean => isAction(e, spec.actionType)
  if (await someSystemDefines(repos, systemUids, [action], (e) => !right(e))) {
    throw new FleetError(spec.invalidAction, [action, `a selected system defines it as something else than a ${spec.actionType} action`])
  }
  if (!(await someSystemDefines(repos, systemUids, [action], right))) {
    throw new FleetError(spec.invalidAction, [action, `no ${spec.actionType} action of that id on the selected systems`])
  }
}

/**
 * The commands a system's task sends, each with its protocol, checked before anything is written.
 * @throws spec.missingAction, operation.protocol.not.found.on.system.for.encoding, operation.no.communication.id.on.system.for.protocol
 */
function planFor (spec: ActionSpec, target: DeviceTarget, p: ActionParameters): Step[] {
  const uid = target.system.uid
  let elements: Element[]
  if (p.action !== null) {
    const e = target.elements.get(p.action)
    if (e === undefined || !isAction(e, spec.actionType)) throw new FleetError(spec.missingAction, [uid, p.action, declareHint(`${p.action} as a ${spec.actionType} action`)])
    elements = [e]
  } else {
    elements = spec.defaults(target.applications)
    if (elements.length === 0) throw new FleetError(spec.missingAction, [uid, `no ${spec.actionType} action`, declareHint(`a ${spec.actionType} action`)])
  }
  return elements.map((e) => {
    const protocol = chooseProtocol(target, p.protocol, e)
    if (!hasCommIdentifiers(target, protocol)) throw new FleetError('operation.no.communication.id.on.system.for.protocol', [uid, protocol])
    return { id: e.def.id, protocol }
  })
}

/** Writes the device task of one step: the first under the operation task's uid, the next ones under `<uid>-<n>`. */
async function issueStep (ctx: Pick<TaskContext, 'tx' | 'op' | 'task' | 'now'>, plan: Plan, requestConnection: boolean): Promise<TaskOutcome> {
  const step = plan.steps[plan.step] as Step
  return await issueDeviceTask(ctx, step.protocol, { command: { id: step.id, params: {} } }, {
    requestConnection,
    params: { ...plan },
    ...(plan.step === 0 ? {} : { uid: `${ctx.task.uid}-${plan.step}` })
  })
}

function planOf (task: Task): Plan | undefined {
  const p = task.params as Partial<Plan> | null
  return Array.isArray(p?.steps) && typeof p?.step === 'number' ? { steps: p.steps, step: p.step } : undefined
}

/**
 * The handler of an action operation. `alwaysConnect`: wake-up asks every device not connected to connect (the SMS
 * shoulder tap), whatever the request says.
 */
export function actionHandler (spec: ActionSpec, alwaysConnect = false): OperationHandler {
  const params = (op: TaskContext['op']): ActionParameters => op.parameters as unknown as ActionParameters
  const connect = (op: TaskContext['op']): boolean => alwaysConnect || params(op).requestConnection

  async function runOne (ctx: TaskContext, target: DeviceTarget | undefined): Promise<TaskOutcome> {
    const plan = { steps: planFor(spec, present(ctx, target), params(ctx.op)), step: 0 }
    return await issueStep(ctx, plan, connect(ctx.op))
  }

  return {
    ...perSystem(runOne),
    // docs/devices.md: ERROR ends the task with the device's message; OK runs the next step, if any
    // (reset: every RESET action of the system, one after the other), else ends it SUCCESS. A task being cancelled
    // sends nothing more: it ends with what the device answered.
    async answered (ctx) {
      const { answer, task } = ctx
      if (answer.status === 'ERROR') throw new FleetError(DEVICE_ERROR, answer.message === null ? [] : [answer.message])
      const plan = planOf(task)
      if (plan === undefined || plan.step + 1 >= plan.steps.length || task.state === 'BEING_CANCELLED') return { state: 'SUCCESS' }
      return await issueStep(ctx, { ...plan, step: plan.step + 1 }, connect(ctx.op))
    }
  }
}

/** The request of an action operation (its schema: DeviceCommon + action, in each kind's file). */
export interface ActionBody extends CommonParams, RolloutFields {
  action?: string | null
  requestConnection?: boolean | null
  protocol?: string | null
  systems?: SelectionInput | null
}

/**
 * Validates and creates an action operation: set S, set T and the callback, then the action against the selected
 * systems (a selection by dependsOn is known only when its parent ends: its systems are judged task by task).
 * `alwaysConnect`: wake-up, which always asks for a connection. @throws set S, set T, spec.invalidAction
 */
export async function createActionOperation (deps: OperationDeps, caller: Caller, type: OperationType, spec: ActionSpec, body: ActionBody, alwaysConnect = false): Promise<{ operation: string }> {
  const selection = await resolveSelection(deps.repos, caller.access.company.uid, body.systems)
  const action = body.action == null || body.action.trim() === '' ? null : body.action
  const protocol = body.protocol == null || body.protocol.trim() === '' ? null : body.protocol.toUpperCase()
  const parameters: ActionParameters & Record<string, unknown> = {
    action, protocol, requestConnection: alwaysConnect || body.requestConnection === true, ...rolloutParams(body)
  }
  const op = await newOperation(deps, caller, type, body, parameters, selection)
  if (action !== null && selection.resolved) await checkAction(deps.repos, spec, action, selection.tasks.map((t) => t.systemUid))
  return await launch(deps, op, selection.tasks)
}
