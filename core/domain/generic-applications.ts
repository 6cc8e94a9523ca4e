// The public generic firmware applications (docs/api.md#applications-and-templates): one per protocol, seeded at every
// start, so that any system can be read, configured, rebooted, reset and woken up without a company writing its own
// model. The simulator and the tests name their data ids through the constants here.
import type { ActionType, DataNode, ValueType } from './application-model.js'
import type { DeviceProtocol } from './device-message.js'
import { SYSTEM_DATA_IDS, type FieldType } from './system-data.js'

/** Application type of each generic firmware. */
export const GENERIC_APPLICATION_TYPES = {
  MQTT: 'generic.mqtt',
  REST: 'generic.rest',
  M3DA: 'generic.m3da',
  MSCI: 'generic.msci',
  SPARKPLUG: 'generic.sparkplug'
} as const satisfies Partial<Record<DeviceProtocol, string>>
export type GenericProtocol = keyof typeof GENERIC_APPLICATION_TYPES

export const GENERIC_APPLICATION_REVISION = '1.0'

/** The settings under node `config`, by their full data id. */
export const GENERIC_SETTINGS = {
  reportPeriodS: 'config.reportPeriodS',
  serverUrl: 'config.serverUrl',
  gpsEnabled: 'config.gpsEnabled',
  temperatureThreshold: 'config.temperatureThreshold',
  apn: 'config.apn'
} as const

/** The actions under node `system`, by their full data id (what an operation's `action` parameter names). */
export const GENERIC_ACTIONS = {
  reboot: 'system.reboot',
  reset: 'system.reset',
  connect: 'system.connect'
} as const

const SETTING_TYPES: Record<keyof typeof GENERIC_SETTINGS, ValueType> = {
  reportPeriodS: 'int', serverUrl: 'string', gpsEnabled: 'boolean', temperatureThreshold: 'double', apn: 'string'
}
const ACTION_TYPES_BY_ID: Record<keyof typeof GENERIC_ACTIONS, ActionType> = { reboot: 'REBOOT', reset: 'RESET', connect: 'CONNECT' }
const VALUE_TYPE_OF: Record<FieldType, ValueType> = { double: 'double', integer: 'int', string: 'string' }

/**
 * The data tree every generic firmware declares: the device-management variables of docs/devices.md at the
 * top (typed as the System data field they feed), the settings under `config`, the actions under `system`.
 */
export function genericDataTree (): DataNode[] {
  const variables: DataNode[] = Object.entries(SYSTEM_DATA_IDS)
    .map(([id, m]) => ({ id, label: id, elementType: 'variable', type: VALUE_TYPE_OF[m.type] }))
  const settings: DataNode[] = Object.entries(SETTING_TYPES)
    .map(([id, type]) => ({ id, label: id, elementType: 'setting', type }))
  const actions: DataNode[] = Object.entries(ACTION_TYPES_BY_ID)
    .map(([id, actionType]) => ({ id, label: id, elementType: 'action', actionType }))
  return [
    ...variables,
    { id: 'config', label: 'Configuration', elementType: 'node', data: settings },
    { id: 'system', label: 'System', elementType: 'node', data: actions }
  ]
}

export interface GenericApplication {
  protocol: GenericProtocol
  name: string
  type: string
  revision: string
  category: 'FIRMWARE'
}

/** The five generic firmware applications ("Generic MQTT firmware", ...). */
export const GENERIC_APPLICATIONS: readonly GenericApplication[] = (Object.entries(GENERIC_APPLICATION_TYPES) as Array<[GenericProtocol, string]>)
  .map(([protocol, type]) => ({
    protocol,
    name: `Generic ${protocol === 'SPARKPLUG' ? 'Sparkplug' : protocol} firmware`,
    type,
    revision: GENERIC_APPLICATION_REVISION,
    category: 'FIRMWARE'
  }))
