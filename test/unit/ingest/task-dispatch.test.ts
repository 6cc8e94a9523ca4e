// The dispatch policy (core/services/ingest/task-dispatch.ts) over the pushers registry (task-pushers.ts), with the
// store and the SMS gateway faked: the connected pusher of the task's protocol pushes what is still PENDING, a device
// connected nowhere is asked to connect only when an operation says so, one request per system and protocol; and the
// capabilities the protocol modules share (ingest/capabilities.ts).
import { describe, expect, it } from 'vitest'
import { pino } from 'pino'
import type { DeviceProtocol } from '../../../core/domain/device-message.js'
import type { DeviceTask } from '../../../core/domain/device-task.js'
import type { TaskPusher } from '../../../core/ports/devices.js'
import { createTaskDispatch } from '../../../core/services/ingest/task-dispatch.js'
import { createTaskPushers } from '../../../core/services/ingest/task-pushers.js'
import { createCapabilities, type Capability } from '../../../ingest/capabilities.js'

const task = (uid: string): DeviceTask => ({ uid, timestamp: 1, command: { id: 'reboot', params: {} } })

function pusher (name: string, protocols: DeviceProtocol[], connected: readonly string[], pushed: Array<[string, string, string[]]>): TaskPusher {
  return {
    name,
    protocols,
    connected: (uid) => connected.includes(uid),
    push: async (uid, tasks) => { pushed.push([name, uid, tasks.map((t) => t.uid)]); return true }
  }
}

function dispatchOver (pending: readonly string[], numbers: Record<string, string>) {
  const pushed: Array<[string, string, string[]]> = []
  const sms: string[] = []
  const taken: string[][] = []
  const pushers = createTaskPushers()
  const dispatch = createTaskDispatch({
    pushers,
    deviceTasks: {
      withPending: async (uids) => uids.filter((u) => pending.includes(u)),
      takeMany: async (requests) => { taken.push(requests.map((r) => `${r.protocol}:${r.systemUid}`)); return requests.map((r) => [task(`t-${r.systemUid}`)]) }
    },
    systems: { mobileNumbers: async (uids) => new Map(uids.flatMap((u) => numbers[u] === undefined ? [] : [[u, numbers[u] as string]])) },
    connectionRequester: { request: async ({ systemUid }) => { sms.push(systemUid); return 'sent' } },
    log: pino({ level: 'silent' }),
    now: () => 1000
  })
  return { pushers, dispatch, pushed, sms, taken }
}

describe('task dispatch', () => {
  it('the first registered pusher of the protocol that has the system connected pushes; others are asked to connect', async () => {
    const d = dispatchOver(['a', 'b', 'c', 'd'], { b: '+33600000001', c: '+33600000002' })
    d.pushers.register(pusher('rest-like', ['REST'], ['a', 'b'], d.pushed))
    d.pushers.register(pusher('mqtt', ['MQTT'], ['a'], d.pushed))
    d.pushers.register(pusher('mqtt-too', ['MQTT'], ['a', 'd'], d.pushed))
    await d.dispatch.dispatch([
      { systemUid: 'a', protocol: 'MQTT', requestConnection: false },
      { systemUid: 'a', protocol: 'MQTT', requestConnection: true },
      { systemUid: 'd', protocol: 'MQTT', requestConnection: false },
      { systemUid: 'b', protocol: 'MQTT', requestConnection: true },
      { systemUid: 'c', protocol: 'MQTT', requestConnection: false },
      { systemUid: 'e', protocol: 'MQTT', requestConnection: true }
    ])
    expect(d.taken).toEqual([['MQTT:a', 'MQTT:d']])
    expect(d.pushed.sort()).toEqual([['mqtt', 'a', ['t-a']], ['mqtt-too', 'd', ['t-d']]])
    // b: not connected over MQTT, asked to connect; c: not asked; e: no PENDING task.
    expect(d.sms).toEqual(['b'])
  })

  it('with no pusher registered, nothing is pushed and a request for a connection still goes out', async () => {
    const d = dispatchOver(['a'], { a: '+33600000001' })
    await d.dispatch.dispatch([{ systemUid: 'a', protocol: 'M3DA', requestConnection: true }])
    expect(d.pushed).toEqual([])
    expect(d.sms).toEqual(['a'])
  })
})

describe('capabilities', () => {
  it('what a module offers, a later one gets; an offer is made once', () => {
    const key: Capability<{ n: number }> = { name: 'test.key' }
    const caps = createCapabilities()
    expect(caps.get(key)).toBeUndefined()
    caps.offer(key, { n: 1 })
    expect(caps.get(key)).toEqual({ n: 1 })
    expect(() => { caps.offer(key, { n: 2 }) }).toThrow(/offered twice/)
  })
})
