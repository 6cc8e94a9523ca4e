// What a simulated M3DA agent puts in its envelopes and reads from the service's replies (simulator/transports/
// m3da-objects.ts; docs/protocols/m3da.md): points grouped into Messages with POSIX-second timestamps, the
// service's Messages as tasks of the simulator's loop, and acknowledgements as Responses of their tickets. The
// payloads go through the real codec (protocols/m3da) both ways, and the service's own point decoder
// (ingest/m3da/points.ts) reads back what the agent sent.
import { describe, expect, it } from 'vitest'
import { pointsOf } from '../../ingest/m3da/points.js'
import { decodePayload, encodePayload, type M3daMessage } from '../../protocols/m3da/index.js'
import { ACTIONS } from '../../simulator/devices/settings.js'
import { FAILED, messagesOf, responsesOf, tasksOf, ticketUid } from '../../simulator/transports/m3da-objects.js'

const message = (path: string, body: Record<string, unknown>, ticketId: number | null = 7): M3daMessage =>
  ({ kind: 'message', path, ticketId, body: new Map(Object.entries(body).map(([k, v]) => [k, typeof v === 'string' ? Buffer.from(v) : v as never])) })

/** The Messages as the service receives them: through the codec. */
function received (objects: ReturnType<typeof messagesOf>): M3daMessage[] {
  const decoded = decodePayload(encodePayload(objects))
  if (!decoded.ok) throw new Error(decoded.reason)
  return decoded.objects.filter((o): o is M3daMessage => o.kind === 'message')
}

describe('simulated M3DA agent payloads', () => {
  it('sends one Message per path and timestamp, and the service reads the same points back', () => {
    const ts = 1_700_000_000_123
    const points = [
      { dataId: '_RSSI', ts, value: -71.5 },
      { dataId: '_SIGNAL_BARS', ts, value: 4 },
      { dataId: 'machine.temperature', ts, value: 41.25 },
      { dataId: 'config.apn', ts, value: 'internet' },
      { dataId: 'config.gpsEnabled', ts, value: true },
      { dataId: 'sim.seq', ts, value: 12 },
      { dataId: 'sim.seq', ts: ts + 1, value: 13 }
    ]
    const objects = messagesOf(points)
    expect(objects.map((o) => o.kind === 'message' ? o.path : '')).toEqual(['@sys.system.cellular.link', 'machine', '@sys.config', 'sim', 'sim'])
    const back = pointsOf(received(objects), 0)
    expect(back.ok && back.points).toEqual(points.map((p) => ({ ...p })))
  })

  it('reads the actions, a ReadNode and a settings write as tasks, their tickets as uids (protocols.md §2.7)', () => {
    const tasks = tasksOf([
      message('@sys.commands.Reboot', { delay: 42 }, 1),
      message('@sys.commands', { ResetToFactoryDefault: new Map([['restart', false]]) }, 2),
      message('@sys.commands.Connect', { x: 1 }, 3),
      message('@sys.commands.ReadNode', { 1: 'system.cellular.link.rssi', 2: 'config.apn', 3: 'machine.temperature' }, 4),
      message('@sys.config', { apn: 'iot.m2m', reportPeriodS: 300 }, 5),
      message('@sys.commands.SelfDestruct', { now: true }, 6)
    ], 1000)
    expect(tasks).toEqual([
      { uid: ticketUid(1), timestamp: 1000, command: { id: ACTIONS.reboot, params: {} } },
      { uid: ticketUid(2), timestamp: 1000, command: { id: ACTIONS.reset, params: {} } },
      { uid: ticketUid(3), timestamp: 1000, command: { id: ACTIONS.connect, params: {} } },
      { uid: ticketUid(4), timestamp: 1000, read: ['_RSSI', 'config.apn', '@sys.machine.temperature', 'machine.temperature'] },
      { uid: ticketUid(5), timestamp: 1000, write: [{ 'config.apn': 'iot.m2m' }, { 'config.reportPeriodS': 300 }] },
      { uid: ticketUid(6), timestamp: 1000, command: { id: 'SelfDestruct', params: {} } }
    ])
  })

  it('makes one write of the Messages of one ticket, whatever their paths (one Response answers them)', () => {
    const tasks = tasksOf([message('@sys.config', { apn: 'a' }, 8), message('machine', { threshold: 71 }, 8), message('@sys.commands.Connect', { latency: 0 }, 9)], 1)
    expect(tasks).toEqual([
      { uid: ticketUid(8), timestamp: 1, write: [{ 'config.apn': 'a' }, { 'machine.threshold': 71 }] },
      { uid: ticketUid(9), timestamp: 1, command: { id: ACTIONS.connect, params: {} } }
    ])
  })

  it('gives a Message without ticket a uid no Response answers', () => {
    const [task] = tasksOf([message('@sys.commands.Connect', { x: 1 }, 0)], 1)
    expect(task?.uid.startsWith('m3da-unticketed-')).toBe(true)
    expect(responsesOf([{ uid: task?.uid ?? '', status: 'OK', message: null }])).toEqual([])
  })

  it('answers each ticket with a Response: status 0, or -1 with the message (protocols.md §2.3)', () => {
    const responses = responsesOf([
      { uid: ticketUid(9), status: 'OK', message: null },
      { uid: ticketUid(10), status: 'ERROR', message: 'unknown setting x' }
    ])
    expect(responses).toEqual([
      { kind: 'response', ticketId: 9, status: 0, data: null },
      { kind: 'response', ticketId: 10, status: FAILED, data: 'unknown setting x' }
    ])
    const decoded = decodePayload(encodePayload(responses))
    expect(decoded.ok && decoded.objects).toEqual(responses)
  })
})
