// What a simulated device does with its tasks (docs/devices.md), over a transport that records what
// the device sends: reads answered with data then the ack, writes applied (or refused), reboot, reset and connect,
// a task run once however often it is delivered, and the failing share of a fleet.
import { describe, expect, it } from 'vitest'
import { flattenData } from '../../../core/domain/application-model.js'
import { GENERIC_APPLICATION_TYPES as SERVICE_TYPES, genericDataTree } from '../../../core/domain/generic-applications.js'
import type { Ack, Point, Task } from '../../../protocols/airvantage/index.js'
import { createDeviceModel } from '../../../simulator/devices/device-model.js'
import { deviceIdentity } from '../../../simulator/devices/identity.js'
import { ACTIONS, DEVICE_SETTINGS, GENERIC_APPLICATION_TYPES, refuseWrite } from '../../../simulator/devices/settings.js'
import { createSimulatedDevice, FAILURE_MESSAGE, type SimulatedDevice } from '../../../simulator/devices/simulated-device.js'
import { failsTasks } from '../../../simulator/fleet.js'
import { smsTarget } from '../../../simulator/sms-receiver.js'
import type { DeviceTransport, TasksHandler } from '../../../simulator/transports/transport.js'

type Sent = { data: Point[] } | { acks: Ack[] } | { link: 'down' | 'up' } | { poll: true }

/**
 * A link that keeps, in order, what the device put on it; `deliver` is the service sending tasks; `down` resolves
 * once the device has gone off the first time.
 */
function recordingLink (protocol: 'MQTT' | 'REST' = 'MQTT') {
  const sent: Sent[] = []
  let handler: TasksHandler | undefined
  let connected = true
  let wentDown = (): void => {}
  const down = new Promise<void>((resolve) => { wentDown = resolve })
  const link = { refuseAcks: 0 }
  const transport: DeviceTransport = {
    protocol,
    async sendData (points) { if (!connected) throw new Error('sent while off'); sent.push({ data: [...points] }) },
    async sendAcks (acks) {
      if (!connected) throw new Error('acked while off')
      if (link.refuseAcks > 0) { link.refuseAcks--; throw new Error('ack lost') }
      sent.push({ acks: [...acks] })
    },
    onTasks (h) { handler = h },
    async checkTasks () { sent.push({ poll: true }) },
    async disconnect () { connected = false; sent.push({ link: 'down' }); wentDown() },
    async reconnect () { connected = true; sent.push({ link: 'up' }) },
    lastTraffic: { sent: 10, received: 4 },
    async close () {}
  }
  return { transport, sent, link, down, deliver: (tasks: Task[]) => { handler?.(tasks) } }
}

let uidSeq = 0
const task = (body: { read: string[] } | { write: Array<Record<string, number | string | boolean>> } | { command: { id: string } }): Task =>
  ({ uid: `t${++uidSeq}`, timestamp: 1_700_000_000_000, ...body }) as Task

function device (opts: { failsTasks?: boolean, protocol?: 'MQTT' | 'REST' } = {}): { d: SimulatedDevice, sent: Sent[], link: { refuseAcks: number }, down: Promise<void>, deliver: (tasks: Task[]) => void } {
  const link = recordingLink(opts.protocol)
  const d = createSimulatedDevice({
    identity: deviceIdentity('abc123', 1),
    systemUid: 'sys-1',
    transport: link.transport,
    model: createDeviceModel(),
    failsTasks: opts.failsTasks ?? false,
    rebootMs: 20
  })
  return { d, sent: link.sent, link: link.link, down: link.down, deliver: link.deliver }
}

const acks = (sent: Sent[]): Ack[] => sent.flatMap((s) => 'acks' in s ? s.acks : [])
const valueIn = (points: readonly Point[], id: string): unknown => points.find((p) => p.dataId === id)?.value

describe('a simulated device carries out its tasks', () => {
  it('read: publishes the current value of each id (settings and measurements), then acks OK', async () => {
    const { d, sent, deliver } = device()
    const sampled = await d.publish(1000)
    sent.length = 0
    const t = task({ read: ['config.reportPeriodS', '_RSSI', 'config.gpsEnabled', '_NUMBER_OF_RESETS'] })
    deliver([t])
    await d.idle()
    expect(sent).toEqual([
      {
        data: [
          { dataId: 'config.reportPeriodS', ts: expect.any(Number), value: 60 },
          { dataId: '_RSSI', ts: expect.any(Number), value: valueIn(sampled, '_RSSI') },
          { dataId: 'config.gpsEnabled', ts: expect.any(Number), value: true },
          { dataId: '_NUMBER_OF_RESETS', ts: expect.any(Number), value: 0 }
        ]
      },
      { acks: [{ uid: t.uid, status: 'OK', message: null }] }
    ])
  })

  it('read of ids the device does not have: ERROR, no data', async () => {
    const { d, sent, deliver } = device()
    const t = task({ read: ['no.such.id'] })
    deliver([t])
    await d.idle()
    expect(sent).toEqual([{ acks: [{ uid: t.uid, status: 'ERROR', message: 'no such data: no.such.id' }] }])
  })

  it('write: applies the settings, acks OK, and the next message carries them', async () => {
    const { d, sent, deliver } = device()
    const first = await d.publish(1000)
    for (const s of DEVICE_SETTINGS) expect(valueIn(first, s.id)).toEqual(s.factory) // the configuration at boot
    expect(valueIn(await d.publish(2000), 'config.apn')).toBeUndefined() // unchanged settings are not repeated
    const t = task({ write: [{ 'config.reportPeriodS': 300 }, { 'config.apn': 'iot.m2m' }, { 'config.temperatureThreshold': 71.5 }] })
    deliver([t])
    await d.idle()
    expect(acks(sent)).toEqual([{ uid: t.uid, status: 'OK', message: null }])
    const next = await d.publish(3000)
    expect([valueIn(next, 'config.reportPeriodS'), valueIn(next, 'config.apn'), valueIn(next, 'config.temperatureThreshold')]).toEqual([300, 'iot.m2m', 71.5])
    expect(valueIn(next, 'config.gpsEnabled')).toBeUndefined()
  })

  it.each<[Array<Record<string, number | string | boolean>>, string]>([
    [[{ 'config.reportPeriodS': 30 }, { 'no.such.setting': 1 }], 'unknown setting no.such.setting'],
    [[{ _RSSI: -50 }], 'unknown setting _RSSI'],
    [[{ 'config.reportPeriodS': 2.5 }], 'setting config.reportPeriodS takes a int, got 2.5'],
    [[{ 'config.gpsEnabled': 'yes' }], 'setting config.gpsEnabled takes a boolean, got "yes"'],
    [[{ 'config.apn': 12 }], 'setting config.apn takes a string, got 12']
  ])('write %j: ERROR with why, and nothing applied', async (write, message) => {
    const { d, sent, deliver } = device()
    const t = task({ write })
    deliver([t])
    await d.idle()
    expect(acks(sent)).toEqual([{ uid: t.uid, status: 'ERROR', message }])
    expect(d.model.read(['config.reportPeriodS'], 0)[0]?.value).toBe(60)
  })

  it('reboot: acks what came before, goes off, counts the restart, comes back, reports it, then acks OK', async () => {
    const { d, sent, down, deliver } = device()
    const write = task({ write: [{ 'config.apn': 'm2m' }] })
    const reboot = task({ command: { id: 'system.reboot' } })
    deliver([write, reboot])
    // Data the device would send while it is off waits for it to be back on (the link refuses it meanwhile).
    const during = down.then(async () => await d.publish(5000))
    await d.idle()
    await during
    expect(sent.slice(0, 4)).toEqual([
      { acks: [{ uid: write.uid, status: 'OK', message: null }] },
      { link: 'down' },
      { link: 'up' },
      { data: [{ dataId: '_NUMBER_OF_RESETS', ts: expect.any(Number), value: 1 }] }
    ])
    expect(sent.at(-1)).toEqual({ acks: [{ uid: reboot.uid, status: 'OK', message: null }] })
    expect(acks(sent)).toEqual([{ uid: write.uid, status: 'OK', message: null }, { uid: reboot.uid, status: 'OK', message: null }])
    expect(d.model.numberOfResets).toBe(1)
    // The message sent after the reboot is the boot report: every setting and the restart count.
    const after = sent.flatMap((s) => 'data' in s && s.data.length > 1 ? [s.data] : [])
    expect(after).toHaveLength(1)
    expect(valueIn(after[0] ?? [], '_NUMBER_OF_RESETS')).toBe(1)
    expect(valueIn(after[0] ?? [], 'config.apn')).toBe('m2m')
  })

  it('reset: settings back to factory values (reported next), acks OK; connect: OK; an unknown command: ERROR', async () => {
    const { d, sent, deliver } = device()
    await d.publish(1000)
    const write = task({ write: [{ 'config.reportPeriodS': 5 }, { 'config.gpsEnabled': false }] })
    const reset = task({ command: { id: 'system.reset' } })
    const connect = task({ command: { id: 'system.connect' } })
    const other = task({ command: { id: 'system.selfDestruct' } })
    deliver([write])
    await d.idle()
    await d.publish(2000)
    deliver([reset, connect, other])
    await d.idle()
    expect(acks(sent)).toEqual([
      { uid: write.uid, status: 'OK', message: null },
      { uid: reset.uid, status: 'OK', message: null },
      { uid: connect.uid, status: 'OK', message: null },
      { uid: other.uid, status: 'ERROR', message: 'unknown command system.selfDestruct' }
    ])
    const next = await d.publish(3000)
    expect([valueIn(next, 'config.reportPeriodS'), valueIn(next, 'config.gpsEnabled'), valueIn(next, 'config.apn')]).toEqual([60, true, undefined])
  })

  it('a task delivered again is not run again: the service has its acknowledged answer, nothing is sent', async () => {
    const { d, sent, deliver } = device()
    const first = task({ write: [{ 'config.reportPeriodS': 10 }] })
    const second = task({ write: [{ 'config.reportPeriodS': 20 }] })
    const refused = task({ write: [{ nope: 1 }] })
    const reboot = task({ command: { id: 'system.reboot' } })
    deliver([first, second, refused])
    deliver([first, refused]) // a redelivery
    deliver([reboot])
    deliver([reboot, reboot]) // the open reboot task, sent again when the device resubscribes after it
    await d.idle()
    expect(d.model.read(['config.reportPeriodS'], 0)[0]?.value).toBe(20) // the first write was not applied again
    expect(d.model.numberOfResets).toBe(1)
    expect(acks(sent).map((a) => [a.uid, a.status])).toEqual([
      [first.uid, 'OK'], [second.uid, 'OK'], [refused.uid, 'ERROR'],
      [reboot.uid, 'OK']
    ])
    expect(sent.filter((s) => 'link' in s)).toHaveLength(2) // one reboot: down and up once
  })

  it('a task delivered again whose answer was lost is answered again with the status it had, not run again', async () => {
    const { d, sent, link, deliver } = device()
    const write = task({ write: [{ 'config.reportPeriodS': 30 }] })
    const refused = task({ write: [{ nope: 1 }] })
    link.refuseAcks = 1
    deliver([write, refused]) // the answer of both is lost
    deliver([write, refused]) // sent again: answered again
    deliver([write]) // and again: that answer arrived, nothing more
    await d.idle()
    expect(acks(sent).map((a) => [a.uid, a.status])).toEqual([[write.uid, 'OK'], [refused.uid, 'ERROR']])
    expect(d.model.read(['config.reportPeriodS'], 0)[0]?.value).toBe(30)
  })

  it('a device of the failing share acks every task ERROR and runs none', async () => {
    const { d, sent, deliver } = device({ failsTasks: true })
    const tasks = [task({ read: ['_RSSI'] }), task({ write: [{ 'config.apn': 'x' }] }), task({ command: { id: 'system.reboot' } })]
    deliver(tasks)
    await d.idle()
    expect(sent).toEqual([{ acks: tasks.map((t) => ({ uid: t.uid, status: 'ERROR', message: FAILURE_MESSAGE })) }])
    expect(d.model.numberOfResets).toBe(0)
    expect(d.model.read(['config.apn'], 0)[0]?.value).toBe('internet')
  })

  it('woken, a REST device polls its tasks at once', async () => {
    const { d, sent } = device({ protocol: 'REST' })
    await d.wake()
    expect(sent).toEqual([{ poll: true }])
    expect(d.wakes).toBe(1)
  })
})

describe('the simulated firmware', () => {
  it('has the settings and actions of the generic applications the service seeds, with their types', () => {
    const tree = flattenData(genericDataTree())
    const settings = tree.filter((d) => d.elementType === 'setting').map((d) => [d.id, d.type])
    const own = DEVICE_SETTINGS.filter((s) => s.id.startsWith('config.')).map((s) => [s.id, s.type])
    expect(own.sort()).toEqual(settings.sort())
    for (const s of DEVICE_SETTINGS) expect(refuseWrite([{ [s.id]: s.factory }])).toBeUndefined()
    const actions = tree.filter((d) => d.elementType === 'action').map((d) => [d.actionType, d.id])
    expect(actions).toEqual([['REBOOT', ACTIONS.reboot], ['RESET', ACTIONS.reset], ['CONNECT', ACTIONS.connect]])
    expect(GENERIC_APPLICATION_TYPES).toEqual({ mqtt: SERVICE_TYPES.MQTT, rest: SERVICE_TYPES.REST, m3da: SERVICE_TYPES.M3DA, sparkplug: SERVICE_TYPES.SPARKPLUG })
  })
})

describe('the failing share of a fleet', () => {
  it('is round(devices × rate) devices, spread over the fleet', () => {
    const failing = (devices: number, rate: number): number[] => Array.from({ length: devices }, (_, i) => i + 1).filter((n) => failsTasks(n, rate))
    expect(failing(10, 0)).toEqual([])
    expect(failing(10, 1)).toHaveLength(10)
    expect(failing(10, 0.3)).toHaveLength(3)
    expect(failing(1000, 0.05)).toHaveLength(50)
    expect(failing(4, 0.5)).toEqual([1, 3])
  })
})

describe('SMS gateway requests', () => {
  it('names the device by the number in "to"', () => {
    expect(smsTarget(JSON.stringify({ to: '+33700000000001', text: 'connect', system: 'u' }))).toEqual({ to: '+33700000000001' })
    expect(smsTarget('{"text": "x"}')).toEqual({ refused: 'to (the mobile number) is missing' })
    expect(smsTarget('not json')).toEqual({ refused: 'body is not JSON' })
    expect(smsTarget('null')).toEqual({ refused: 'to (the mobile number) is missing' })
    expect(smsTarget(undefined)).toEqual({ refused: 'body too large' })
  })
})
