// The simulated M3DA agent names what it reports the way the service reads it (simulator/devices/m3da-paths.ts
// against ingest/m3da/sys-paths.ts, the service's one table): every id the device model sends goes out under the
// path the service maps back to that id, and a retrieve the service asks for reaches the value the device has.
import { describe, expect, it } from 'vitest'
import { dataIdOf, pathOf } from '../../ingest/m3da/sys-paths.js'
import { createDeviceModel } from '../../simulator/devices/device-model.js'
import { dataIdOfPath, dataIdsOfNode, m3daPathOf, SYS_VARIABLES } from '../../simulator/devices/m3da-paths.js'
import { DEVICE_SETTINGS } from '../../simulator/devices/settings.js'

const model = createDeviceModel({ random: () => 0.5 })
const reported = [...new Set([...model.sample(1000).map((p) => p.dataId), ...DEVICE_SETTINGS.map((s) => s.id)])]

describe('simulated M3DA agent paths', () => {
  it('has a row for each device-management id the model reports, and no other', () => {
    expect(reported.filter((id) => id.startsWith('_')).sort()).toEqual(Object.keys(SYS_VARIABLES).sort())
  })

  it.each(reported)('%s goes out where the service reads it, and comes back as itself', (id) => {
    expect(m3daPathOf(id)).toBe(pathOf(id))
    expect(dataIdOf(m3daPathOf(id))).toBe(id)
    expect(dataIdOfPath(pathOf(id))).toBe(id)
  })

  it('reads the node a service retrieve names (a @sys node, a setting, application data)', () => {
    const has = (id: string): boolean => reported.includes(id)
    for (const id of reported) {
      // The service asks ReadNode for its path inside @sys, or the asset path of application data (§2.7).
      const full = pathOf(id)
      const node = full.startsWith('@sys.') ? full.slice('@sys.'.length) : full
      expect(dataIdsOfNode(node).filter(has)).toEqual([id])
      expect(dataIdsOfNode(full).filter(has)).toEqual([id])
    }
  })

  it('keeps a @sys path it does not know, and drops empty segments (protocols.md §2.3)', () => {
    expect(dataIdOfPath('@sys.system.unknown.value')).toBe('@sys.system.unknown.value')
    expect(dataIdOfPath('@sys..config.apn.')).toBe('config.apn')
    expect(dataIdOfPath('.machine..temperature')).toBe('machine.temperature')
  })
})
