// The simulator's pure parts: identities the service accepts, the device model, the command line.
import { describe, expect, it } from 'vitest'
import { localSmsGatewayPort } from '../../../bin/simulate.js'
import { validImei } from '../../../core/domain/identifiers.js'
import { parseSimulateArgs, progressLine, UsageError, type SimulateDefaults } from '../../../simulator/cli.js'
import { createDeviceModel, signalBars, startingPoint } from '../../../simulator/devices/device-model.js'
import { deviceIdentity, luhnDigit, newRunTag } from '../../../simulator/devices/identity.js'

describe('device identity', () => {
  it('makes IMEIs with a valid check digit, 20-digit ICCIDs with theirs, and distinct serial numbers', () => {
    const run = newRunTag()
    const ids = Array.from({ length: 50 }, (_, i) => deviceIdentity(run, i + 1))
    for (const id of ids) {
      expect(validImei(id.imei)).toBe(true)
      expect(id.iccid).toMatch(/^8933\d{16}$/)
      expect(luhnDigit(id.iccid.slice(0, 19))).toBe(id.iccid[19])
      expect(id.serialNumber).toMatch(/^SIM[0-9A-Z]{6}\d{5}$/)
    }
    expect(new Set(ids.map((i) => i.serialNumber)).size).toBe(50)
    expect(new Set(ids.map((i) => i.imei)).size).toBe(50)
    expect(luhnDigit('7992739871')).toBe('3') // the textbook example
  })
})

describe('device model', () => {
  it('drifts RSSI around -75 dBm, keeps counters growing and numbers its messages', () => {
    let seed = 1
    const random = (): number => { seed = (seed * 16807) % 2147483647; return seed / 2147483647 }
    const model = createDeviceModel({ random })
    const rssi: number[] = []
    let sent = -1
    for (let i = 1; i <= 500; i++) {
      model.countTraffic(100, 10)
      const points = model.sample(i * 1000)
      const get = (id: string): unknown => points.find((p) => p.dataId === id)?.value
      rssi.push(get('_RSSI') as number)
      expect(get('_SIGNAL_BARS')).toBe(signalBars(get('_RSSI') as number))
      expect(get('_BYTES_SENT')).toBeGreaterThan(sent)
      sent = get('_BYTES_SENT') as number
      expect(get('sim.seq')).toBe(i)
    }
    const mean = rssi.reduce((a, b) => a + b, 0) / rssi.length
    expect(mean).toBeGreaterThan(-80)
    expect(mean).toBeLessThan(-70)
    expect(new Set(rssi).size).toBeGreaterThan(50)
  })

  it('starts a fleet\'s devices in towns across Europe, not all at one map dot', () => {
    let seed = 7
    const random = (): number => { seed = (seed * 16807) % 2147483647; return seed / 2147483647 }
    const starts = Array.from({ length: 40 }, () => {
      const points = createDeviceModel({ random }).sample(1000)
      return [points.find((p) => p.dataId === '_LATITUDE')?.value, points.find((p) => p.dataId === '_LONGITUDE')?.value] as [number, number]
    })
    // Rounded to a degree, the 40 starts fall on many places, spanning hundreds of kilometres.
    expect(new Set(starts.map(([lat, lon]) => `${Math.round(lat)},${Math.round(lon)}`)).size).toBeGreaterThan(10)
    const lats = starts.map(([lat]) => lat)
    const lons = starts.map(([, lon]) => lon)
    expect(Math.max(...lats) - Math.min(...lats)).toBeGreaterThan(5)
    expect(Math.max(...lons) - Math.min(...lons)).toBeGreaterThan(10)
    for (const [lat, lon] of starts) expect([lat > 35 && lat < 60, lon > -12 && lon < 20]).toEqual([true, true])
    expect(startingPoint(() => 0)).toEqual({ latitude: 45.14, longitude: 5.67 })
  })

  it('keeps written settings and reports them on read', () => {
    const model = createDeviceModel()
    expect(model.write([{ 'machine.threshold': 90 }, { 'config.apn': 'iot.m2m' }])).toBeUndefined()
    expect(model.read(['machine.threshold', 'config.apn', 'no.such.id'], 5).map((p) => [p.dataId, p.value]))
      .toEqual([['machine.threshold', 90], ['config.apn', 'iot.m2m']])
    expect(model.sample(6).find((p) => p.dataId === 'config.apn')?.value).toBe('iot.m2m')
  })
})

describe('fleet simulate command line', () => {
  const defaults: SimulateDefaults = { url: 'http://localhost:8080', mqttUrl: 'mqtt://localhost:1883', clientId: 'fleet-cli', clientSecret: 's', email: 'a@b.c', password: 'p' }

  it('reads the flags, with the service configuration as defaults', () => {
    const o = parseSimulateArgs(['--devices', '20', '--protocol', 'mqtt', '--mqtt-version', '5', '--rate', '0.5', '--duration', '30'], defaults)
    expect(o).toMatchObject({ devices: 20, protocol: 'mqtt', mqttVersion: 5, rate: 0.5, durationS: 30, mqttUrl: 'mqtt://localhost:1883' })
    expect(o.api).toEqual({ url: 'http://localhost:8080', clientId: 'fleet-cli', clientSecret: 's', email: 'a@b.c', password: 'p' })
    const rest = parseSimulateArgs(['--devices', '1', '--protocol', 'rest', '--url', 'http://h:1', '--client-secret', 'x'], { ...defaults, password: undefined })
    expect(rest).toMatchObject({ protocol: 'rest', rate: 1, durationS: undefined })
    expect(rest.api).toMatchObject({ url: 'http://h:1', clientSecret: 'x', email: undefined, password: undefined }) // client_credentials
  })

  it.each([
    [['--protocol', 'mqtt'], /--devices/],
    [['--devices', '0', '--protocol', 'mqtt'], /--devices/],
    [['--devices', '2.5', '--protocol', 'mqtt'], /--devices/],
    [['--devices', '3', '--protocol', 'coap'], /--protocol/],
    [['--devices', '3', '--protocol', 'mqtt', '--mqtt-version', '3'], /--mqtt-version/],
    [['--devices', '3', '--protocol', 'mqtt', '--rate', 'fast'], /--rate/],
    [['--devices', '3', '--protocol', 'mqtt', '--colour', 'red'], /colour/],
    [['--devices', '3', '--protocol', 'mqtt', '--failure-rate', '1.5'], /--failure-rate/],
    [['--devices', '3', '--protocol', 'mqtt', '--failure-rate', '-0.1'], /--failure-rate/],
    [['--devices', '3', '--protocol', 'rest', '--poll-period', '0'], /--poll-period/],
    [['--devices', '3', '--protocol', 'rest', '--sms-gateway-port', '70000'], /--sms-gateway-port/],
    [['--devices', '3', '--protocol', 'rest', '--sms-gateway-port', '80.5'], /--sms-gateway-port/]
  ])('refuses %j', (argv, message) => {
    expect(() => parseSimulateArgs(argv, defaults)).toThrow(UsageError)
    expect(() => parseSimulateArgs(argv, defaults)).toThrow(message)
  })

  it('reads the task flags: poll period, failure share, reboot time, SMS gateway port (by default the one SMS_GATEWAY_URL names here)', () => {
    const o = parseSimulateArgs(['--devices', '4', '--protocol', 'rest', '--poll-period', '600', '--failure-rate', '0.25', '--reboot-seconds', '0.2', '--sms-gateway-port', '0'], defaults)
    expect(o).toMatchObject({ taskPollMs: 600_000, failureRate: 0.25, rebootMs: 200, smsGatewayPort: 0 })
    expect(parseSimulateArgs(['--devices', '1', '--protocol', 'rest'], defaults)).toMatchObject({ taskPollMs: 5000, failureRate: 0, rebootMs: 1000, smsGatewayPort: undefined })
    expect(parseSimulateArgs(['--devices', '1', '--protocol', 'rest'], { ...defaults, smsGatewayPort: 9099 }).smsGatewayPort).toBe(9099)
    expect(localSmsGatewayPort('http://localhost:9099/sms')).toBe(9099)
    expect(localSmsGatewayPort('http://127.0.0.1/sms')).toBe(80)
    expect(localSmsGatewayPort('https://sms.example.com/send')).toBeUndefined()
    expect(localSmsGatewayPort(undefined)).toBeUndefined()
  })

  it('needs a client secret from the flags or the environment', () => {
    expect(() => parseSimulateArgs(['--devices', '1', '--protocol', 'rest'], { ...defaults, clientSecret: undefined })).toThrow(/client secret/)
  })

  it('shows progress on one line', () => {
    const s = { phase: 'running' as const, devices: 10, registered: 10, connected: 9, messages: 1234, points: 12340, tasksAnswered: 2, tasksFailed: 0, wakes: 0, errors: 1, lastError: 'mqtt publish: boom' }
    expect(progressLine(s, 98.4, 12)).toBe('[  12s] 9/10 connected | 98 msg/s | 1234 acked | 2 tasks answered | 1 errors (last: mqtt publish: boom)')
    expect(progressLine({ ...s, tasksFailed: 1, wakes: 3, errors: 0 }, 98.4, 12)).toBe('[  12s] 9/10 connected | 98 msg/s | 1234 acked | 2 tasks answered (1 ERROR) | 3 woken | 0 errors')
    expect(progressLine({ ...s, phase: 'starting', registered: 4, errors: 0 }, 0, 3)).toBe('[   3s] registering and connecting: 4/10 devices, 0 errors')
  })
})
