// System data from device traffic (docs/devices.md): device-management ids
// (_RSSI, _RSRP, ...) set System data fields and their levels (thresholds in core/domain/system-data.ts), whatever
// the protocol; every id is also a time series. A late message never overwrites a newer value.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { getSystem } from '../../helpers/systems.js'
import { connectDevice, createDevice, deviceFetch, endAll, publish, settle, type Device } from '../../helpers/devices.js'

let stack: Stack
beforeAll(async () => { stack = await startStack({ listen: true }) })
afterAll(async () => { await stack.close() })

const T = Date.UTC(2024, 0, 1)

async function mqttSend (d: Device, payload: unknown, version: 4 | 5 = 4): Promise<void> {
  const c = await connectDevice(stack.mqttUrl, d.imei, d.mqttPassword ?? '', { version })
  expect(await publish(c, `${d.imei}/messages/json`, JSON.stringify(payload))).toBe(0)
  await endAll(c)
  await settle(stack)
}

async function restSend (d: Device, payload: unknown): Promise<void> {
  const res = await deviceFetch(stack, 'POST', '/device/messages', { user: d.serial, password: d.restPassword ?? '', body: JSON.stringify(payload) })
  expect(res.status).toBe(200)
  await settle(stack)
}

describe('device-management ids → System data', () => {
  it('sets the fields and their levels (MQTT, timestamp-keyed form)', async () => {
    const d = await createDevice(stack)
    await mqttSend(d, {
      [T]: {
        _RSSI: -80,
        _ECIO: -8,
        _RSRP: -950,
        _RSRQ: -110,
        _SIGNAL_BARS: 4,
        _NETWORK_SERVICE_TYPE: 'LTE',
        _ROAMING_STATUS: 'ROAMING',
        _LATITUDE: 48.8566,
        _LONGITUDE: 2.3522,
        _CELL_ID: 12345,
        _APN: 'internet.test',
        _NETWORK_OPERATOR: 'Orange F',
        _BYTES_SENT: '1000',
        _BYTES_RECEIVED: 2000.4,
        _BOARD_TEMPERATURE: 41,
        _NUMBER_OF_RESETS: 3,
        _FIRMWARE_VERSION: '7.1.2',
        _FIRMWARE_COMPONENTS: 'a,b',
        'machine.temperature': 20
      }
    }, 5)
    const s = await getSystem(stack, d.uid)
    expect(s.data).toMatchObject({
      rssi: -80,
      rssiLevel: 'GOOD',
      ecio: -8,
      ecioLevel: 'GOOD',
      rsrp: -950,
      rsrpLevel: 'GOOD',
      rsrq: -110,
      rsrqLevel: 'VERY_GOOD',
      signalBars: 4,
      signalStrength: 'VERY_GOOD',
      networkServiceType: 'LTE',
      roamingStatus: 'ROAMING',
      latitude: 48.8566,
      longitude: 2.3522,
      cellId: '12345',
      apn: 'internet.test',
      networkOperator: 'Orange F',
      bytesSent: 1000,
      bytesReceived: 2000,
      boardTemp: 41,
      numberOfResets: 3,
      firmwareVersion: '7.1.2',
      firmwareComponents: 'a,b'
    })
    expect(s.data['machine.temperature']).toBeUndefined() // application data is not System data
    // Every id is a time series too, readable through the data endpoints.
    const last = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${d.uid}/data?ids=_RSSI,_CELL_ID,machine.temperature` })
    expect(last.json()).toEqual({
      _RSSI: [{ value: -80, timestamp: T }],
      _CELL_ID: [{ value: 12345, timestamp: T }],
      'machine.temperature': [{ value: 20, timestamp: T }]
    })
  })

  it('levels across their bounds (REST, list form)', async () => {
    const cases: Array<[number, number, string, string]> = [
      [-60, 5, 'EXCELLENT', 'EXCELLENT'], [-70, 4, 'VERY_GOOD', 'VERY_GOOD'], [-90, 2, 'LOW', 'LOW'],
      [-100, 1, 'VERY_LOW', 'VERY_LOW'], [-110, 0, 'NO_SIGNAL', 'NO_SIGNAL']
    ]
    for (const [rssi, bars, rssiLevel, signalStrength] of cases) {
      const d = await createDevice(stack)
      await restSend(d, [{ _RSSI: [{ timestamp: T, value: rssi }], _SIGNAL_BARS: [{ timestamp: T, value: bars }] }])
      expect((await getSystem(stack, d.uid)).data).toMatchObject({ rssi, rssiLevel, signalBars: bars, signalStrength })
    }
  })

  it('a late message (older timestamps) does not overwrite newer values; fields it is newer for are set', async () => {
    const d = await createDevice(stack)
    await mqttSend(d, { [T + 60_000]: { _RSSI: -60, _NETWORK_SERVICE_TYPE: 'LTE' } })
    await restSend(d, { [T]: { _RSSI: -100, _NETWORK_SERVICE_TYPE: 'UMTS', _APN: 'late.apn' } })
    const s = await getSystem(stack, d.uid)
    expect(s.data).toMatchObject({ rssi: -60, rssiLevel: 'EXCELLENT', networkServiceType: 'LTE', apn: 'late.apn' })
    const last = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${d.uid}/data?ids=_RSSI` })
    expect(last.json()).toEqual({ _RSSI: [{ value: -60, timestamp: T + 60_000 }] })
    // Both points are in the series.
    const { rows } = await stack.db.query<{ n: number }>("SELECT count(*)::int AS n FROM data_points WHERE system_uid = $1 AND data_id = '_RSSI'", [d.uid])
    expect(rows[0]?.n).toBe(2)
    // A newer one wins again; within one payload the latest point wins whatever its place.
    await mqttSend(d, [{ _RSSI: [{ timestamp: T + 120_000, value: -90 }, { timestamp: T + 90_000, value: -70 }] }])
    expect((await getSystem(stack, d.uid)).data).toMatchObject({ rssi: -90, rssiLevel: 'LOW' })
  })

  it('a null value clears a field (UNKNOWN for networkServiceType and roamingStatus, NO_REPORT for levels)', async () => {
    const d = await createDevice(stack)
    await restSend(d, { [T]: { _RSSI: -70, _ROAMING_STATUS: 'HOME' } })
    await restSend(d, { [T + 1000]: { _RSSI: null, _ROAMING_STATUS: null } })
    expect((await getSystem(stack, d.uid)).data).toMatchObject({ rssi: null, rssiLevel: 'NO_REPORT', roamingStatus: 'UNKNOWN' })
  })

  it('find with data=rssiLevel:GOOD answers the system', async () => {
    const good = await createDevice(stack)
    const excellent = await createDevice(stack)
    await mqttSend(good, { _RSSI: -84, _NETWORK_SERVICE_TYPE: 'HSPA' })
    await mqttSend(excellent, { _RSSI: -50 })
    const find = async (q: string): Promise<string[]> => {
      const res = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems?${q}&uid=${good.uid}&uid=${excellent.uid}&fields=uid` })
      expect(res.statusCode).toBe(200)
      return res.json().items.map((s: { uid: string }) => s.uid)
    }
    expect(await find('data=rssiLevel:GOOD')).toEqual([good.uid])
    expect(await find('data=rssiLevel:EXCELLENT')).toEqual([excellent.uid])
    expect(await find('data=networkServiceType:HSPA')).toEqual([good.uid])
    expect(await find('data=rssiLevel:LOW')).toEqual([])
  })
})
