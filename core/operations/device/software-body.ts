// The request of an install, uninstall, start or stop (docs/packages.md#installs) and what the operation keeps of it.
// AirVantage clients send every field, unset ones as null, "" or false (`scheduledTime: null, timeout: null,
// protocol: "", parameters: null, reboot: false`): each of those means the default.
import { Type } from 'typebox'
import type { ApplicationManager } from '../../domain/application-package.js'
import type { SoftwareAction } from '../../domain/software-task.js'
import type { CommonParams } from '../common.js'
import type { SelectionInput } from '../selection.js'
import { Nullable } from '../body.schema.js'
import { DeviceCommon } from './body.schema.js'
import type { RolloutFields } from './rollout-params.js'

export interface SoftwareRequest extends CommonParams, RolloutFields {
  application?: string | null
  systems?: SelectionInput | null
  requestConnection?: boolean | null
  protocol?: string | null
  reboot?: boolean | null
  parameters?: Record<string, unknown> | null
}

/**
 * The operation's `parameters`: the application (its uid under `application`, which DELETE /applications/{uid}
 * reads to refuse deleting an application an unfinished operation installs) and how to reach the systems. The
 * binaries' artifact keys are not kept here (the operation JSON shows its parameters): each task reads them.
 */
export interface SoftwareParameters {
  action: SoftwareAction
  application: string
  applicationType: string
  applicationName: string
  applicationRevision: string
  manager: ApplicationManager
  protocol: string | null
  requestConnection: boolean
  reboot: boolean
  /** The request's `parameters` object, kept for the record (no update path takes options today). */
  options: Record<string, unknown> | null
}

export const softwareParameters = (op: { parameters: Record<string, unknown> }): SoftwareParameters => op.parameters as unknown as SoftwareParameters

const EXAMPLE_UID = '3f9c2b7a1d4e4f6a8b0c2d4e6f8a0b1c'

/** The body schema of one of the four kinds. */
export function softwareBodySchema (verb: string) {
  return Type.Object({
    ...DeviceCommon,
    application: Type.Optional(Nullable(Type.String({ description: `Uid of the application to ${verb}: the context company's or a public one, with an application manager` }))),
    reboot: Type.Optional(Type.Union([Type.Null(), Type.Boolean()], { description: 'Accepted as AirVantage clients send it (false); the package\'s own installer decides whether the device restarts' })),
    parameters: Type.Optional(Type.Union([Type.Null(), Type.Record(Type.String(), Type.Unknown())], { description: 'Accepted as AirVantage clients send it (null); kept in the operation\'s parameters as options' }))
  }, {
    description: `${verb[0]?.toUpperCase() ?? ''}${verb.slice(1)} an application on the selected systems' devices`,
    examples: [{ application: EXAMPLE_UID, systems: { uids: ['9a8b7c6d5e4f40312a1b2c3d4e5f6a7b'] }, scheduledTime: null, timeout: null, notify: false, reboot: false, protocol: '', parameters: null }]
  })
}
