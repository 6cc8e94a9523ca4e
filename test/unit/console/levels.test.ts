import { describe, expect, it } from 'vitest'
import { levelsOf } from '../../../console/src/pages/system/levels.js'
import { firstChart } from '../../../console/src/pages/system/series.js'

describe('system levels and first chart', () => {
  it('puts each level beside its raw value, and leaves out NO_REPORT', () => {
    const levels = Object.fromEntries(levelsOf({ rssi: -71, rssiLevel: 'VERY_GOOD', ecio: -8, ecioLevel: 'NO_REPORT', monthBytesTotal: 2048, alertState: false }))
    expect(levels['Signal (RSSI)']).toBe('-71 (very good)')
    expect(levels['Ec/Io']).toBe('-8')
    expect(levels['Bytes this month']).toBe('2.0 KB')
    expect(levels.Alert).toBe('false')
    expect(levels.Firmware).toBe('')
  })

  it('charts first the number sent most recently, application data before _ ids and config.* settings', () => {
    const p = (value: unknown, timestamp: number): Array<{ value: unknown, timestamp: number }> => [{ value, timestamp }]
    expect(firstChart({ _RSSI: p(-70, 9), 'config.period': p(60, 9), 'machine.temp': p(21, 5), 'machine.hum': p(40, 8), 'machine.state': p('on', 9) })).toBe('machine.hum')
    expect(firstChart({ _RSSI: p(-70, 9), 'config.period': p(60, 9) })).toBe('_RSSI')
    expect(firstChart({ 'machine.state': p('on', 9) })).toBe('machine.state')
    expect(firstChart({})).toBeNull()
  })
})
