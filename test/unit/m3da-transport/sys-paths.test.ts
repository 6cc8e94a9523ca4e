// The table between M3DA paths and data ids (ingest/m3da/sys-paths.ts; docs/devices.md, docs/protocols/README.md.md
// §2.3, §2.7).
import { describe, expect, it } from 'vitest'
import { SYSTEM_DATA_IDS } from '../../../core/domain/system-data.js'
import { dataIdOf, normalisePath, pathOf, splitPath } from '../../../ingest/m3da/sys-paths.js'

describe('M3DA paths and data ids', () => {
  it('maps the Mihini status tree to System data ids, both ways', () => {
    expect(dataIdOf('@sys.system.cellular.link.rssi')).toBe('_RSSI')
    expect(dataIdOf('@sys.system.gps.latitude')).toBe('_LATITUDE')
    expect(dataIdOf('@sys.system.cellular.cdma.link.ecio')).toBe('_ECIO')
    expect(pathOf('_RSSI')).toBe('@sys.system.cellular.link.rssi')
    expect(pathOf('_ECIO')).toBe('@sys.system.cellular.gsm.link.ecio')
  })

  it('has a path for every System data id, and each path comes back as its id', () => {
    for (const id of Object.keys(SYSTEM_DATA_IDS)) {
      const path = pathOf(id)
      expect(path.startsWith('@sys.'), id).toBe(true)
      expect(dataIdOf(path)).toBe(id)
    }
  })

  it('keeps the agent configuration as config.*, other @sys paths as they are, and application paths as ids', () => {
    expect(dataIdOf('@sys.config.apn')).toBe('config.apn')
    expect(pathOf('config.reportPeriodS')).toBe('@sys.config.reportPeriodS')
    expect(dataIdOf('@sys.system.gps.speed')).toBe('@sys.system.gps.speed')
    expect(pathOf('@sys.system.gps.speed')).toBe('@sys.system.gps.speed')
    expect(dataIdOf('greenhouse.sensors.temperature')).toBe('greenhouse.sensors.temperature')
    expect(pathOf('greenhouse.temperature')).toBe('greenhouse.temperature')
  })

  it('drops empty path segments (protocols.md §2.3)', () => {
    expect(normalisePath('.a..b.')).toBe('a.b')
    expect(dataIdOf('@sys..system.cellular.link..rssi')).toBe('_RSSI')
  })

  it('splits a full path into the Message path and its key', () => {
    expect(splitPath('@sys.config.apn')).toEqual({ path: '@sys.config', key: 'apn' })
    expect(splitPath('temperature')).toEqual({ path: 'temperature', key: '' })
  })
})
