// What a simulated device can be asked (docs/api.md#applications-and-templates, docs/devices.md): the settings of the
// generic firmware with their factory values, and the ids of its actions. They are the ids the service's seeded generic
// applications declare (core/domain/generic-applications.ts; test/unit/simulator/device-tasks.test.ts checks that
// they agree), written out here because the simulator shares nothing with the service but protocols/: it talks to
// it over the network, as devices do.
import type { DataValue } from '../../protocols/airvantage/index.js'

export type SettingType = 'int' | 'double' | 'boolean' | 'string'

export interface SettingDefinition { id: string, type: SettingType, factory: DataValue }

/** The settings every simulated device keeps, with the values it has out of the factory (and after a reset). */
export const DEVICE_SETTINGS: readonly SettingDefinition[] = [
  { id: 'config.reportPeriodS', type: 'int', factory: 60 },
  { id: 'config.serverUrl', type: 'string', factory: 'https://fleet.local' },
  { id: 'config.gpsEnabled', type: 'boolean', factory: true },
  { id: 'config.temperatureThreshold', type: 'double', factory: 80.5 },
  { id: 'config.apn', type: 'string', factory: 'internet' },
  // The machine's own setting, reported since the first simulator.
  { id: 'machine.threshold', type: 'double', factory: 70 }
]

/** The ids of the generic firmware's actions (the `command` task of reboot, reset and wake-up carries them). */
export const ACTIONS = {
  reboot: 'system.reboot',
  reset: 'system.reset',
  connect: 'system.connect'
} as const

/** The application type of the generic firmware of each protocol (one public application each in the catalogue). */
export const GENERIC_APPLICATION_TYPES = { mqtt: 'generic.mqtt', rest: 'generic.rest', m3da: 'generic.m3da', sparkplug: 'generic.sparkplug' } as const

const accepts: Record<SettingType, (v: DataValue) => boolean> = {
  int: (v) => typeof v === 'number' && Number.isInteger(v),
  double: (v) => typeof v === 'number' && Number.isFinite(v),
  boolean: (v) => typeof v === 'boolean',
  string: (v) => typeof v === 'string'
}

const byId = new Map(DEVICE_SETTINGS.map((s) => [s.id, s]))

/** Why the device refuses this write (the message of its ERROR ack), or undefined when every setting is known and of its type. */
export function refuseWrite (settings: ReadonlyArray<Record<string, DataValue>>): string | undefined {
  for (const s of settings) {
    for (const [id, value] of Object.entries(s)) {
      const def = byId.get(id)
      if (def === undefined) return `unknown setting ${id}`
      if (!accepts[def.type](value)) return `setting ${id} takes a ${def.type}, got ${JSON.stringify(value)}`
    }
  }
  return undefined
}
