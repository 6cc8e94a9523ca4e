// Apply settings (docs/operations.md#bulk-operations: its errors, the system's syncStatus / lastSyncDate /
// data.lastTemplateName and the lastAppliedTemplate / lastConfigName criteria; "Devices and telemetry"): a
// `write` device task `[{key: value}, ...]`, then, when `reboot` (default true), the system's reboot as a second
// device task. The write's OK marks the system in sync (syncStatus OK, lastSyncDate, the template's name); its ERROR,
// or no answer by the timeout, marks it syncStatus ERROR.
import { Type } from 'typebox'
import { FleetError } from '../../errors.js'
import type { Repositories } from '../../ports/repositories.js'
import type { DataValue, DeviceProtocol } from '../../domain/device-message.js'
import { flattenData, type ValueType } from '../../domain/application-model.js'
import type { Operation } from '../../domain/operation.js'
import type { Application } from '../../domain/system.js'
import { DEVICE_ERROR } from '../engine.js'
import type { OperationHandler, TaskContext, TaskOutcome } from '../handler.js'
import { launch, newOperation, type Caller, type CommonParams, type OperationDeps } from '../common.js'
import { resolveSelection, type SelectionInput } from '../selection.js'
import { operationKind } from '../kind.js'
import { Nullable } from '../body.schema.js'
import { DeviceCommon } from '../device/body.schema.js'
import { rolloutParams, type RolloutFields } from '../device/rollout-params.js'
import { chooseProtocol, hasCommIdentifiers, loadTargets, type Element } from '../device/targets.js'
import { issueDeviceTask } from '../device/issue.js'
import { perSystem, present, someSystemDefines } from '../device/per-system.js'
import { declareHint } from '../device/declare-hint.js'

/** One setting of the request: a data id and a value whose JSON type is its type (docs/operations.md#bulk-operations).
 */
export interface Setting { key: string, value: boolean | number | string }

export interface ApplySettingsBody extends CommonParams, RolloutFields {
  reboot?: boolean | null
  requestConnection?: boolean | null
  protocol?: string | null
  systems?: SelectionInput | null
  settings?: Setting[] | null
  templateId?: string | null
  templateName?: string | null
}

/** What the operation keeps of the request (its `parameters`): the settings after the template's overwrite. */
interface SettingsParameters {
  settings: Setting[]
  templateId: string | null
  templateName: string
  reboot: boolean
  protocol: string | null
  requestConnection: boolean
}

/** docs/operations.md#bulk-operations: "templateName (string, default Custom; informative only)". */
const DEFAULT_TEMPLATE_NAME = 'Custom'

const isSetting = (e: Element | undefined): e is Element => e?.def.elementType === 'setting'
const blank = (s: string | null | undefined): s is null | undefined | '' => s == null || s.trim() === ''

/**
 * The settings to write: the template's when `templateId` is set (its name becomes the templateName), else the
 * request's; each key once. @throws operation.missing.settings, settings.unknown, operation.invalid.multiple.entries.for.same.key
 */
async function settingsOf (repos: Pick<Repositories, 'catalogue'>, companyUid: string, body: ApplySettingsBody): Promise<{ settings: Setting[], templateId: string | null, templateName: string }> {
  const templateId = blank(body.templateId) ? null : body.templateId
  if (templateId === null && (body.settings == null || body.settings.length === 0)) throw new FleetError('operation.missing.settings', [])
  let settings = body.settings ?? []
  let templateName = blank(body.templateName) ? DEFAULT_TEMPLATE_NAME : body.templateName
  if (templateId !== null) {
    // AirVantage's apply-settings errors: settings.unknown, "template name does not exist" (in the company).
    const template = await repos.catalogue.template(companyUid, templateId)
    if (template === undefined) throw new FleetError('settings.unknown', [templateId])
    settings = template.settings as Setting[]
    templateName = template.name
    if (settings.length === 0) throw new FleetError('operation.missing.settings', [templateId])
  }
  const keys = new Set<string>()
  for (const s of settings) {
    if (keys.has(s.key)) throw new FleetError('operation.invalid.multiple.entries.for.same.key', [s.key])
    keys.add(s.key)
  }
  return { settings: settings.map((s) => ({ key: s.key, value: s.value })), templateId, templateName }
}

/**
 * Validates and creates an apply settings: the settings (or the template), set S, set T and the callback, then the
 * keys against the selected systems (a dependsOn selection is judged task by task once its parent ends).
 * @throws operation.missing.settings, settings.unknown, operation.invalid.multiple.entries.for.same.key, set S, set T,
 *   operation.all.settings.undefined
 */
export async function applySettingsOperation (deps: OperationDeps, caller: Caller, body: ApplySettingsBody): Promise<{ operation: string }> {
  const companyUid = caller.access.company.uid
  const chosen = await settingsOf(deps.repos, companyUid, body)
  const selection = await resolveSelection(deps.repos, companyUid, body.systems)
  const parameters: SettingsParameters & Record<string, unknown> = {
    ...chosen,
    reboot: body.reboot !== false,
    protocol: blank(body.protocol) ? null : body.protocol.toUpperCase(),
    requestConnection: body.requestConnection === true,
    ...rolloutParams(body)
  }
  const op = await newOperation(deps, caller, 'SYSTEM_APPLY_SETTINGS', body, parameters, selection)
  const keys = chosen.settings.map((s) => s.key)
  if (selection.resolved && !(await someSystemDefines(deps.repos, selection.tasks.map((t) => t.systemUid), keys, isSetting))) {
    throw new FleetError('operation.all.settings.undefined', [...keys, declareHint('them as settings')])
  }
  return await launch(deps, op, selection.tasks)
}

/** The JSON type of a value as AirVantage names setting types: true/false boolean, 1.0 double, 1 integer, string. */
function jsonType (v: DataValue): string {
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'double'
  return v === null ? 'null' : typeof v
}

/**
 * Whether a value of this JSON type may be written to a setting of that declared type. A request's 1.0 reaches the
 * service as the number 1 (JSON.parse keeps no trace of the ".0"), so a whole number is taken for a double too; a
 * date takes epoch milliseconds or a string, a binary a (base64) string; a setting without a type takes any value.
 */
function fits (type: ValueType | null, v: DataValue): boolean {
  switch (type) {
    case null: return true
    case 'int': return typeof v === 'number' && Number.isInteger(v)
    case 'double': return typeof v === 'number' && Number.isFinite(v)
    case 'boolean': return typeof v === 'boolean'
    case 'date': return (typeof v === 'number' && Number.isInteger(v)) || typeof v === 'string'
    case 'string':
    case 'binary': return typeof v === 'string'
  }
}

/** The operation task's own parameters: which device task the device has now. */
type Step = 'write' | 'reboot'
const stepOf = (ctx: Pick<TaskContext, 'task'>): Step | undefined => ctx.task.params?.step as Step | undefined
const parametersOf = (op: Operation): SettingsParameters => op.parameters as unknown as SettingsParameters

/**
 * Each system checks the settings against its own applications. AirVantage's errors have no code of their own for one
 * system that lacks a setting or declares it with another type, so its task fails with the row's settings.unknown
 * naming the keys (and, for a type, what it declares and what was given): the row's operation.all.settings.undefined
 * is the 400 for the whole selection.
 * @throws settings.unknown, operation.protocol.not.found.on.system.for.encoding, operation.on.system.missing.comm.identifiers
 */
const runOne = perSystem(async (ctx, found) => {
  const target = present(ctx, found)
  const p = parametersOf(ctx.op)
  const missing = p.settings.filter((s) => !isSetting(target.elements.get(s.key))).map((s) => s.key)
  if (missing.length > 0) throw new FleetError('settings.unknown', [...missing, declareHint('them as settings')])
  for (const s of p.settings) {
    const type = target.elements.get(s.key)?.def.type ?? null
    if (!fits(type, s.value)) throw new FleetError('settings.unknown', [s.key, `declared ${type ?? 'untyped'}`, `given ${jsonType(s.value)}`])
  }
  const protocol = chooseProtocol(target, p.protocol, target.elements.get(p.settings[0]?.key ?? ''))
  if (!hasCommIdentifiers(target, protocol)) throw new FleetError('operation.on.system.missing.comm.identifiers', [target.system.uid, protocol])
  return await issueDeviceTask(ctx, protocol, { write: p.settings.map((s) => ({ [s.key]: s.value })) }, {
    requestConnection: p.requestConnection, params: { step: 'write' satisfies Step }
  })
})

/** The REBOOT action of the system's first firmware application that has one (the order of forSystems). */
function rebootAction (applications: readonly Application[]): Element | undefined {
  for (const application of applications.filter((a) => a.category === 'FIRMWARE')) {
    const def = flattenData(application.data).find((d) => d.elementType === 'action' && d.actionType === 'REBOOT')
    if (def !== undefined) return { def, application }
  }
  return undefined
}

/**
 * The reboot after the settings: over the action's own protocol when the system can be reached there, else over
 * the one that carried the settings (the device just answered on it). Never throws: the settings are applied and
 * their sync recorded in this transaction, which a failure here would undo.
 */
async function issueReboot (ctx: TaskContext): Promise<TaskOutcome> {
  const p = parametersOf(ctx.op)
  const target = (await loadTargets(ctx.tx, ctx.op.companyUid, [ctx.task.systemUid])).get(ctx.task.systemUid)
  const action = target === undefined ? undefined : rebootAction(target.applications)
  // No firmware with a REBOOT action: AirVantage's reboot "after a successful operation" has nothing to run, and
  // the settings are applied: SUCCESS without a reboot.
  if (target === undefined || action === undefined) return { state: 'SUCCESS' }
  const written = ctx.task.params?.protocol as DeviceProtocol
  let protocol = written
  try {
    const own = chooseProtocol(target, p.protocol, action)
    if (hasCommIdentifiers(target, own)) protocol = own
  } catch (err) {
    if (!(err instanceof FleetError)) throw err
  }
  return await issueDeviceTask(ctx, protocol, { command: { id: action.def.id, params: {} } }, {
    requestConnection: p.requestConnection, uid: `${ctx.task.uid}-reboot`, params: { step: 'reboot' satisfies Step }
  })
}

/** Tasks read per page while marking the systems of timed-out writes. */
const PAGE = 500

export const applySettingsHandler: OperationHandler = {
  ...runOne,
  // The write's OK: the system is in sync with the template, then reboots when asked (and not being cancelled); the
  // reboot's OK ends the task. ERROR ends it with the device's message (failed() marks the write's).
  async answered (ctx): Promise<TaskOutcome> {
    if (ctx.answer.status === 'ERROR') throw new FleetError(DEVICE_ERROR, ctx.answer.message === null ? [] : [ctx.answer.message])
    if (stepOf(ctx) !== 'write') return { state: 'SUCCESS' }
    const p = parametersOf(ctx.op)
    await ctx.tx.systems.recordSync([ctx.task.systemUid], { status: 'OK', at: ctx.now, template: p.templateName })
    if (!p.reboot || ctx.task.state === 'BEING_CANCELLED') return { state: 'SUCCESS' }
    return await issueReboot(ctx)
  },
  // After the failure is recorded and answered()'s changes undone: a write the device refused leaves the system out
  // of sync. A failure before any write (run's checks) or of the reboot (the settings were applied) changes nothing.
  async failed (ctx) {
    if (stepOf(ctx) === 'write') await ctx.tx.systems.recordSync([ctx.task.systemUid], { status: 'ERROR' })
  },
  // A write still unanswered at the timeout (docs/operations.md#bulk-operations: FAILURE operation.timeout) leaves its
  // system out of sync too; the operation finishes right after its tasks time out.
  async finished (tx, op) {
    for (let offset = 0; ; offset += PAGE) {
      const page = await tx.operations.tasks(op.uid, ['FAILURE'], { offset, size: PAGE })
      const late = page.items.filter((t) => t.errorCode === 'operation.timeout' && t.params?.step === 'write').map((t) => t.systemUid)
      await tx.systems.recordSync(late, { status: 'ERROR' })
      if (page.items.length < PAGE) return
    }
  }
}

const SettingSchema = Type.Object({
  key: Type.String({ minLength: 1, description: 'Data id of a setting of the systems\' applications' }),
  value: Type.Union([Type.Boolean(), Type.Number(), Type.String()], { description: 'Its JSON type is the setting\'s: true/false boolean, 1.0 double, 1 integer, "x" string' })
})

const ApplySettingsBodySchema = Type.Object({
  ...DeviceCommon,
  reboot: Type.Optional(Type.Union([Type.Null(), Type.Boolean()], { description: 'Reboot after the settings are applied (default true)' })),
  settings: Type.Optional(Type.Union([Type.Null(), Type.Array(SettingSchema)], { description: 'Settings to write; required unless templateId is set' })),
  templateId: Type.Optional(Nullable(Type.String({ description: 'Uid of a setting template of the company (GET /api/v1/templates): its settings replace `settings`' }))),
  templateName: Type.Optional(Nullable(Type.String({ description: 'Name recorded as the systems\' lastAppliedTemplate (default Custom; the template\'s with templateId)' })))
}, {
  description: 'Write settings on the selected systems\' devices, then reboot them',
  examples: [{ systems: { uids: ['3f9c2b7a1d4e4f6a8b0c2d4e6f8a0b1c'] }, settings: [{ key: 'config.reportPeriodS', value: 300 }], templateName: 'Night', reboot: false }]
})

export const applySettingsKind = operationKind({
  type: 'SYSTEM_APPLY_SETTINGS',
  route: {
    path: '/operations/systems/settings',
    summary: 'Apply settings to systems',
    description: 'The systems are chosen by systems: exactly one of label, uids (at most 100), dependsOn or criteria. Each task ends once its device has acknowledged the settings, and the reboot that follows when reboot is true.',
    body: ApplySettingsBodySchema
  },
  create: async (deps, caller, body) => await applySettingsOperation(deps, caller, body as ApplySettingsBody),
  handler: applySettingsHandler
})
