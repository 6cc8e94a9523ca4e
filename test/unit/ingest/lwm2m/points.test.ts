// LwM2M values → data points and System data ids (ingest/lwm2m/points.ts), and what is observed by default or by the
// application's data tree (ingest/lwm2m/lwm2m-devices.ts observedPaths).
import { describe, expect, it } from 'vitest'
import { dataValue, pathOfDataId, pointsOf } from '../../../../ingest/lwm2m/points.js'
import { DEFAULT_OBSERVED, observedPaths, pskOf } from '../../../../ingest/lwm2m/lwm2m-devices.js'
import type { Application } from '../../../../core/domain/system.js'

const at = (o: number, i: number, r: number, ri?: number) => ({ objectId: o, instanceId: i, resourceId: r, ...(ri === undefined ? {} : { resourceInstanceId: ri }) })

describe('pointsOf', () => {
  it('every value under lwm2m.<o>.<i>.<r>, plus the System data ids of objects 3, 4 and 6', () => {
    const points = pointsOf([
      { path: at(3, 0, 3), value: '1.0.7', type: 'String' },
      { path: at(4, 0, 2), value: -80, type: 'Integer' },
      { path: at(4, 0, 8), value: 42, type: 'Integer' },
      { path: at(4, 0, 9), value: 5, type: 'Integer' },
      { path: at(4, 0, 10), value: 234, type: 'Integer' },
      { path: at(4, 0, 4, 1), value: '10.0.0.2', type: 'String' },
      { path: at(6, 0, 0), value: -33.5, type: 'Float', timestamp: 7 }
    ], 1000)
    expect(points.map((p) => [p.dataId, p.value, p.ts])).toEqual([
      ['lwm2m.3.0.3', '1.0.7', 1000], ['_FIRMWARE_VERSION', '1.0.7', 1000],
      ['lwm2m.4.0.2', -80, 1000], ['_RSSI', -80, 1000],
      ['lwm2m.4.0.8', 42, 1000], ['_CELL_ID', '42', 1000],
      ['lwm2m.4.0.9', 5, 1000],
      ['lwm2m.4.0.10', 234, 1000],
      ['lwm2m.4.0.4.1', '10.0.0.2', 1000],
      ['lwm2m.6.0.0', -33.5, 7], ['_LATITUDE', -33.5, 7],
      ['_NETWORK_OPERATOR', '23405', 1000]
    ])
  })

  it('no networkOperator without both MCC and MNC; a resource of instance 1 feeds no System data', () => {
    const points = pointsOf([{ path: at(4, 0, 10), value: 208, type: 'Integer' }, { path: at(4, 1, 2), value: -50, type: 'Integer' }], 1)
    expect(points.map((p) => p.dataId)).toEqual(['lwm2m.4.0.10', 'lwm2m.4.1.2'])
  })

  it('stored values: big integers as text, bytes as base64, times as ms, object links as o:i', () => {
    expect(dataValue(2n ** 60n)).toBe('1152921504606846976')
    expect(dataValue(12n)).toBe(12)
    expect(dataValue(Buffer.from([1, 2, 3]))).toBe('AQID')
    expect(dataValue(new Date(5000))).toBe(5000)
    expect(dataValue({ objectId: 3, instanceId: 0 })).toBe('3:0')
    expect(dataValue(true)).toBe(true)
  })

  it('pathOfDataId: lwm2m ids and the System data ids read where they come from', () => {
    expect(pathOfDataId('lwm2m.3.0.3')).toEqual(at(3, 0, 3))
    expect(pathOfDataId('_RSSI')).toEqual(at(4, 0, 2))
    expect(pathOfDataId('_FIRMWARE_VERSION')).toEqual(at(3, 0, 3))
    expect(pathOfDataId('_NETWORK_OPERATOR')).toBeUndefined()
    expect(pathOfDataId('config.apn')).toBeUndefined()
  })
})

const app = (communication: string[], data: Application['data']): Application =>
  ({ uid: 'a', name: 'a', revision: '1', type: 't', category: 'FIRMWARE', companyUid: null, communication: communication.map((type) => ({ type, commIdType: 'SERIAL' })), data } as unknown as Application)

describe('observedPaths', () => {
  it('the default /3/0, /4/0, /6/0 when the tree names no lwm2m ids', () => {
    expect(observedPaths([])).toEqual(DEFAULT_OBSERVED)
    expect(observedPaths([app(['LWM2M'], [{ id: '_RSSI', label: 'r', elementType: 'variable', type: 'double' }])])).toEqual(DEFAULT_OBSERVED)
  })

  it('each instance the tree names once; ids of an application not speaking LWM2M are not its', () => {
    const tree: Application['data'] = [{
      id: 'lwm2m',
      label: 'l',
      elementType: 'node',
      data: [
        {
          id: '3',
          label: '3',
          elementType: 'node',
          data: [{
            id: '0',
            label: '0',
            elementType: 'node',
            data: [
              { id: '0', label: 'm', elementType: 'variable', type: 'string' }, { id: '3', label: 'f', elementType: 'variable', type: 'string' }]
          }]
        },
        { id: '5', label: '5', elementType: 'variable', type: 'int' }
      ]
    }]
    expect(observedPaths([app(['LWM2M'], tree)])).toEqual([{ objectId: 3, instanceId: 0 }])
    expect(observedPaths([app(['MQTT'], tree)])).toEqual(DEFAULT_OBSERVED)
  })
})

describe('pskOf', () => {
  it('hex keys of 1 to 64 bytes; anything else is none', () => {
    expect(pskOf({ lwm2m: { pskSecretHex: '0aFF' } })).toEqual(Buffer.from([0x0a, 0xff]))
    for (const hex of ['', 'abc', 'zz', 'aa'.repeat(65), null, undefined]) expect(pskOf({ lwm2m: { pskSecretHex: hex } })).toBeUndefined()
    expect(pskOf({})).toBeUndefined()
  })
})
