import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { applyPoints, initialSystemData } from '../../../core/domain/system-data.js'
import { normaliseAirVantage } from '../../../ingest/normalise/airvantage.normaliser.js'
import { decodeData, type Point } from '../../../protocols/airvantage/index.js'

const FIXTURES = fileURLToPath(new URL('../../fixtures/airvantage/', import.meta.url))
const DEVICE = { systemUid: 'sys0000000000000000000000000001', companyUid: 'cmp0000000000000000000000000001' }
const AT = 1_700_000_090_000

function decodeFixture (name: string): Point[] {
  const expected = JSON.parse(readFileSync(FIXTURES + name + '.expected.json', 'utf8'))
  const r = decodeData(readFileSync(FIXTURES + name + '.payload.json'), expected.opts)
  if (!r.ok) throw new Error(r.reason)
  return r.points
}

describe('normaliseAirVantage', () => {
  it('builds one device message carrying every point, application ids included', () => {
    const points = decodeFixture('device-management')
    const msg = normaliseAirVantage(points, DEVICE, 'MQTT', AT, () => 'msg-1')
    expect(msg).toEqual({
      uid: 'msg-1',
      ...DEVICE,
      protocol: 'MQTT',
      receivedAt: AT,
      timestamp: 1_700_000_060_000, // the latest point, not the reception time
      points,
      nbDataPoints: 20
    })
    expect(msg.points.filter((p) => p.dataId === 'machine.temperature').map((p) => p.value)).toEqual([23.2, 23.4])
  })

  it('counts duplicates in nbDataPoints (fleet-api.md §Device message)', () => {
    const msg = normaliseAirVantage(decodeFixture('duplicates'), DEVICE, 'REST', AT, () => 'msg-2')
    expect(msg.nbDataPoints).toBe(3)
    expect(msg.points).toHaveLength(3)
    expect(msg.protocol).toBe('REST')
  })

  it('stamps a message without points at receivedAt', () => {
    expect(normaliseAirVantage([], DEVICE, 'MQTT', AT, () => 'm').timestamp).toBe(AT)
  })

  it('takes the latest timestamp even when points come out of order', () => {
    const points = [{ dataId: 'a', ts: 30, value: 1 }, { dataId: 'a', ts: 50, value: 2 }, { dataId: 'b', ts: 10, value: 3 }]
    expect(normaliseAirVantage(points, DEVICE, 'MQTT', AT, () => 'm').timestamp).toBe(50)
  })

  it('owns its points: changing the decoded array afterwards does not change the message', () => {
    const points: Point[] = [{ dataId: 'a', ts: 1, value: 1 }]
    const msg = normaliseAirVantage(points, DEVICE, 'MQTT', AT, () => 'm')
    points[0]!.value = 99
    points.push({ dataId: 'b', ts: 2, value: 2 })
    expect(msg.points).toEqual([{ dataId: 'a', ts: 1, value: 1 }])
  })

  it('calls the uid generator once per message', () => {
    let n = 0
    const next = (): string => `uid-${++n}`
    const a = normaliseAirVantage(decodeFixture('flat'), DEVICE, 'REST', AT, next)
    const b = normaliseAirVantage(decodeFixture('flat'), DEVICE, 'REST', AT, next)
    expect([a.uid, b.uid]).toEqual(['uid-1', 'uid-2'])
  })

  it('feeds System data downstream: payload → message → applyPoints', () => {
    const msg = normaliseAirVantage(decodeFixture('device-management'), DEVICE, 'MQTT', AT, () => 'm')
    expect(applyPoints(initialSystemData(), msg.points)).toMatchObject({
      rssi: -66, // the later of the two _RSSI points
      rssiLevel: 'VERY_GOOD',
      ecio: -8.5,
      ecioLevel: 'GOOD',
      rsrp: -950,
      rsrpLevel: 'GOOD',
      rsrq: -110,
      rsrqLevel: 'VERY_GOOD',
      signalBars: 3,
      signalStrength: 'GOOD',
      latitude: 45.1875,
      longitude: 5.7357,
      cellId: '20313',
      apn: 'internet.m2m',
      networkServiceType: 'LTE',
      networkOperator: 'Orange F',
      bytesSent: 1024,
      bytesReceived: 2048,
      boardTemp: 41,
      roamingStatus: 'HOME',
      firmwareVersion: '4.9.3',
      firmwareComponents: 'ALEOS 4.9.3,Radio SWI9X30C_02.24'
    })
  })
})
