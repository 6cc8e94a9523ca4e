import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { DataPoint } from '../../core/domain/device-message.js'
import {
  applyPoints, coerceSystemValue, ecioLevel, initialSystemData, mappedField, rsrpLevel, rsrqLevel, rssiLevel,
  SIGNAL_LEVELS, signalStrength, SYSTEM_DATA_IDS, type SignalLevel, type SystemData
} from '../../core/domain/system-data.js'

const TS = 1_700_000_000_000
const pt = (dataId: string, value: DataPoint['value'], ts = TS): DataPoint => ({ dataId, ts, value })

describe('SYSTEM_DATA_IDS', () => {
  it('is exactly the table of conventions.md §Data', () => {
    const listed = '_RSSI→rssi, _ECIO→ecio, _RSRP→rsrp, _RSRQ→rsrq, _SIGNAL_BARS→signalBars, _LATITUDE→latitude, ' +
      '_LONGITUDE→longitude, _CELL_ID→cellId, _APN→apn, _SID→sid, _NID→nid, _PN_OFFSET→pnOffset, ' +
      '_NETWORK_SERVICE_TYPE→networkServiceType, _NETWORK_OPERATOR→networkOperator, _BYTES_SENT→bytesSent, ' +
      '_BYTES_RECEIVED→bytesReceived, _PACKETS_SENT→packetsSent, _PACKETS_RECEIVED→packetsReceived, ' +
      '_BOARD_TEMPERATURE→boardTemp, _RADIO_MODULE_TEMPERATURE→radioModuleTemp, _NUMBER_OF_RESETS→numberOfResets, ' +
      '_ROAMING_STATUS→roamingStatus, _FIRMWARE_VERSION→firmwareVersion, _FIRMWARE_COMPONENTS→firmwareComponents'
    const expected = Object.fromEntries(listed.split(', ').map((pair) => pair.split('→')))
    expect(Object.fromEntries(Object.entries(SYSTEM_DATA_IDS).map(([id, m]) => [id, m.field]))).toEqual(expected)
  })

  it('types each field as fleet-api.md §System data does', () => {
    const types = Object.fromEntries(Object.values(SYSTEM_DATA_IDS).map((m) => [m.field, m.type]))
    expect(types).toMatchObject({
      rssi: 'double',
      ecio: 'double',
      rsrp: 'double',
      rsrq: 'double',
      latitude: 'double',
      longitude: 'double',
      signalBars: 'integer',
      bytesSent: 'integer',
      bytesReceived: 'integer',
      packetsSent: 'integer',
      packetsReceived: 'integer',
      boardTemp: 'integer',
      radioModuleTemp: 'integer',
      numberOfResets: 'integer',
      apn: 'string',
      cellId: 'string',
      sid: 'string',
      nid: 'string',
      pnOffset: 'string',
      networkServiceType: 'string',
      networkOperator: 'string',
      roamingStatus: 'string',
      firmwareVersion: 'string',
      firmwareComponents: 'string'
    })
  })

  it('maps nothing else, prototype names included', () => {
    expect(mappedField('machine.temperature')).toBeUndefined()
    expect(mappedField('constructor')).toBeUndefined()
    expect(mappedField('_rssi')).toBeUndefined()
    expect(mappedField('_RSSI')).toEqual({ field: 'rssi', type: 'double' })
  })
})

describe('initialSystemData', () => {
  it('has every field of fleet-api.md §System data: levels NO_REPORT, UNKNOWN states, the rest null', () => {
    const fields = ['apn', 'cellId', 'sid', 'nid', 'pnOffset', 'latitude', 'longitude', 'rssi', 'rssiLevel', 'ecio',
      'ecioLevel', 'rsrp', 'rsrpLevel', 'rsrq', 'rsrqLevel', 'signalBars', 'signalStrength', 'networkServiceType',
      'networkOperator', 'bytesSent', 'bytesReceived', 'packetsSent', 'packetsReceived', 'boardTemp',
      'radioModuleTemp', 'numberOfResets', 'roamingStatus', 'firmwareVersion', 'firmwareComponents',
      'monthBytesTotal', 'monthBytesTotalTime', 'usagesBytesTotal', 'lastCommFailureDate', 'lastTemplateName',
      'alertState', 'alertStateChangeDate', 'ipAddress']
    const data = initialSystemData()
    expect(Object.keys(data).sort()).toEqual([...fields].sort())
    const notNull = Object.fromEntries(Object.entries(data).filter(([, v]) => v !== null))
    expect(notNull).toEqual({
      rssiLevel: 'NO_REPORT',
      ecioLevel: 'NO_REPORT',
      rsrpLevel: 'NO_REPORT',
      rsrqLevel: 'NO_REPORT',
      signalStrength: 'NO_REPORT',
      networkServiceType: 'UNKNOWN',
      roamingStatus: 'UNKNOWN'
    })
  })
})

describe('levels', () => {
  it.each<[number | null, SignalLevel]>([
    [null, 'NO_REPORT'], [-40, 'EXCELLENT'], [-65, 'EXCELLENT'], [-65.5, 'VERY_GOOD'], [-75, 'VERY_GOOD'],
    [-76, 'GOOD'], [-85, 'GOOD'], [-86, 'LOW'], [-95, 'LOW'], [-96, 'VERY_LOW'], [-105, 'VERY_LOW'],
    [-106, 'NO_SIGNAL'], [-140, 'NO_SIGNAL']
  ])('rssi %s dBm → %s (conventions.md §Data)', (v, level) => {
    expect(rssiLevel(v)).toBe(level)
  })

  it.each<[number | null, SignalLevel]>([
    [null, 'NO_REPORT'], [0, 'EXCELLENT'], [-3, 'EXCELLENT'], [-6, 'VERY_GOOD'], [-10, 'GOOD'], [-15, 'LOW'],
    [-20, 'VERY_LOW'], [-20.5, 'NO_SIGNAL']
  ])('ecio %s dB → %s', (v, level) => {
    expect(ecioLevel(v)).toBe(level)
  })

  it.each<[number | null, SignalLevel]>([
    [null, 'NO_REPORT'], [-440, 'EXCELLENT'], [-800, 'EXCELLENT'], [-900, 'VERY_GOOD'], [-1000, 'GOOD'],
    [-1100, 'LOW'], [-1200, 'VERY_LOW'], [-1201, 'NO_SIGNAL']
  ])('rsrp %s (1/10 dBm) → %s', (v, level) => {
    expect(rsrpLevel(v)).toBe(level)
  })

  it.each<[number | null, SignalLevel]>([
    [null, 'NO_REPORT'], [-30, 'EXCELLENT'], [-100, 'EXCELLENT'], [-120, 'VERY_GOOD'], [-150, 'GOOD'],
    [-180, 'LOW'], [-200, 'VERY_LOW'], [-201, 'NO_SIGNAL']
  ])('rsrq %s (1/10 dB) → %s', (v, level) => {
    expect(rsrqLevel(v)).toBe(level)
  })

  it.each<[number | null, SignalLevel]>([
    [null, 'NO_REPORT'], [0, 'NO_SIGNAL'], [1, 'VERY_LOW'], [2, 'LOW'], [3, 'GOOD'], [4, 'VERY_GOOD'],
    [5, 'EXCELLENT'], [7, 'EXCELLENT'], [-1, 'NO_SIGNAL']
  ])('signalBars %s → signalStrength %s (fleet-api.md §System data)', (v, level) => {
    expect(signalStrength(v)).toBe(level)
  })

  it('never decrease when the raw value increases', () => {
    const rank = (l: SignalLevel): number => SIGNAL_LEVELS.indexOf(l)
    const value = fc.double({ min: -3000, max: 100, noNaN: true })
    for (const fn of [rssiLevel, ecioLevel, rsrpLevel, rsrqLevel, signalStrength]) {
      fc.assert(fc.property(value, value, (a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a]
        expect(rank(fn(lo))).toBeLessThanOrEqual(rank(fn(hi)))
        expect(fn(lo)).not.toBe('NO_REPORT')
      }), { numRuns: 300 })
    }
  })
})

describe('coerceSystemValue', () => {
  const rssi = { field: 'rssi', type: 'double' } as const
  const bars = { field: 'signalBars', type: 'integer' } as const
  const cell = { field: 'cellId', type: 'string' } as const
  const roaming = { field: 'roamingStatus', type: 'string' } as const
  it.each<[string, Parameters<typeof coerceSystemValue>[0], DataPoint['value'], unknown]>([
    ['double from number', rssi, -71.5, { value: -71.5 }],
    ['double from numeric text', rssi, ' -71.5 ', { value: -71.5 }],
    ['double refuses text', rssi, 'strong', undefined],
    ['double refuses empty text', rssi, '', undefined],
    ['double refuses a boolean', rssi, true, undefined],
    ['integer rounds', bars, 2.6, { value: 3 }],
    ['integer from text', bars, '4', { value: 4 }],
    ['string from number', cell, 20313, { value: '20313' }],
    ['string from boolean', cell, false, { value: 'false' }],
    ['null clears', rssi, null, { value: null }],
    ['null resets roamingStatus to UNKNOWN', roaming, null, { value: 'UNKNOWN' }]
  ])('%s', (_name, mapped, v, expected) => {
    expect(coerceSystemValue(mapped, v)).toEqual(expected)
  })
})

describe('applyPoints', () => {
  it('folds mapped ids into System data and recomputes levels', () => {
    const data = applyPoints(initialSystemData(), [
      pt('_RSSI', -80), pt('_ECIO', -8.5), pt('_RSRP', -950), pt('_RSRQ', '-110'), pt('_SIGNAL_BARS', 3),
      pt('_CELL_ID', 20313), pt('_BYTES_SENT', 1024.4), pt('_NETWORK_SERVICE_TYPE', 'LTE'), pt('machine.temperature', 23)
    ])
    expect(data).toMatchObject({
      rssi: -80,
      rssiLevel: 'GOOD',
      ecio: -8.5,
      ecioLevel: 'GOOD',
      rsrp: -950,
      rsrpLevel: 'GOOD',
      rsrq: -110,
      rsrqLevel: 'VERY_GOOD',
      signalBars: 3,
      signalStrength: 'GOOD',
      cellId: '20313',
      bytesSent: 1024,
      networkServiceType: 'LTE',
      roamingStatus: 'UNKNOWN'
    })
    expect(data).not.toHaveProperty('machine.temperature')
  })

  it('takes the latest point by ts, the later one on a tie, whatever the order', () => {
    const data = applyPoints(initialSystemData(), [
      pt('_RSSI', -60, TS + 2000), pt('_RSSI', -100, TS), pt('_APN', 'a', TS), pt('_APN', 'b', TS)
    ])
    expect(data).toMatchObject({ rssi: -60, rssiLevel: 'EXCELLENT', apn: 'b' })
  })

  it('keeps a field when the latest value cannot be coerced, and clears it on null', () => {
    const before = applyPoints(initialSystemData(), [pt('_RSSI', -70), pt('_SIGNAL_BARS', 4)])
    const after = applyPoints(before, [pt('_RSSI', 'n/a'), pt('_SIGNAL_BARS', null)])
    expect(after).toMatchObject({ rssi: -70, rssiLevel: 'VERY_GOOD', signalBars: null, signalStrength: 'NO_REPORT' })
  })

  it('does not modify its input, and changes nothing for application data only', () => {
    const current = initialSystemData()
    const copy: SystemData = { ...current }
    const next = applyPoints(current, [pt('machine.temperature', 23), pt('constructor', 1), pt('__proto__', 2)])
    expect(current).toEqual(copy)
    expect(next).toEqual(copy)
    expect(next).not.toBe(current)
  })
})
