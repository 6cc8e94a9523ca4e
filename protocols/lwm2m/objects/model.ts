// The shape of an LwM2M object model (OMA LwM2M object definitions, the DDF files of the OMA registry) and a helper
// that keeps the object files one resource a line.
import type { ResourceType } from '../types.js'

/** R, W, RW, E; '' for resources only a bootstrap server reaches (the Security object, some of Server 1.1). */
export type Operations = 'R' | 'W' | 'RW' | 'E' | ''

export interface ResourceModel {
  readonly id: number
  readonly name: string
  readonly type: ResourceType
  readonly operations: Operations
  /** Multiple-instance resource: its values are at `/o/i/r/<resource instance>`. */
  readonly multiple: boolean
  readonly mandatory: boolean
  readonly units?: string
  /** The meaning of each value of an enumerated resource (Update Result 8 → "Firmware update failed"). */
  readonly values?: Readonly<Record<number, string>>
}

export interface ObjectModel {
  readonly id: number
  readonly name: string
  /** The object version these resources come from (the `ver` a client registers with). */
  readonly version: string
  readonly multiple: boolean
  readonly mandatory: boolean
  readonly resources: readonly ResourceModel[]
}

type Instances = 'single' | 'multiple'
type Presence = 'mandatory' | 'optional'
interface Extra { units?: string, values?: Readonly<Record<number, string>> }

/** One resource definition: `r(0, 'Manufacturer', 'String', 'R', 'single', 'optional')`. */
export function r (id: number, name: string, type: ResourceType, operations: Operations, instances: Instances,
  presence: Presence, extra: Extra = {}): ResourceModel {
  return { id, name, type, operations, multiple: instances === 'multiple', mandatory: presence === 'mandatory', ...extra }
}
