// A device: a model of what it measures, a transport to the service, and the task loop of protocols.md §3.1:
// `read` → publish the current values then ack OK, `write` → keep the settings then ack OK, `command` → ack OK.
import type { Ack, Point, Task } from '../../protocols/airvantage/index.js'
import type { DeviceTransport } from '../transports/transport.js'
import type { DeviceModel } from './device-model.js'
import type { DeviceIdentity } from './identity.js'

export interface DeviceEvents {
  /** A data message was acknowledged by the service. */
  onData?: (device: SimulatedDevice, points: readonly Point[]) => void
  /** A task was answered (its ack acknowledged by the service). */
  onTask?: (device: SimulatedDevice, task: Task) => void
  onError?: (device: SimulatedDevice, err: unknown) => void
}

export interface SimulatedDevice {
  readonly identity: DeviceIdentity
  /** The system uid the service gave the device at registration. */
  readonly systemUid: string
  readonly transport: DeviceTransport
  readonly model: DeviceModel
  /** Samples the model and sends one data message; resolves once the service acknowledged it. */
  publish (now?: number): Promise<readonly Point[]>
  /** Resolves when the tasks received so far are answered. */
  idle (): Promise<void>
  close (): Promise<void>
}

const REMEMBERED_TASKS = 1000

export function createSimulatedDevice (init: {
  identity: DeviceIdentity
  systemUid: string
  transport: DeviceTransport
  model: DeviceModel
  events?: DeviceEvents
}): SimulatedDevice {
  const { transport, model, events = {} } = init
  // The service hands a task out again until it is acknowledged (a REST poll during our answer, a resubscribe):
  // answer each uid once.
  const seen = new Set<string>()
  let answering: Promise<void> = Promise.resolve()

  async function send (points: readonly Point[]): Promise<void> {
    await transport.sendData(points)
    model.countTraffic(transport.lastTraffic.sent, transport.lastTraffic.received)
  }

  async function answer (task: Task): Promise<Ack> {
    if ('read' in task) {
      const values = model.read(task.read, Date.now())
      if (values.length > 0) await send(values)
      if (values.length > 0) events.onData?.(self, values)
    } else if ('write' in task) {
      model.write(task.write)
    }
    return { uid: task.uid, status: 'OK', message: null }
  }

  async function answerAll (tasks: Task[]): Promise<void> {
    const fresh = tasks.filter((t) => !seen.has(t.uid))
    if (fresh.length === 0) return
    for (const t of fresh) seen.add(t.uid)
    if (seen.size > REMEMBERED_TASKS) for (const uid of [...seen].slice(0, seen.size - REMEMBERED_TASKS)) seen.delete(uid)
    const acks: Ack[] = []
    for (const t of fresh) acks.push(await answer(t))
    await transport.sendAcks(acks)
    for (const t of fresh) events.onTask?.(self, t)
  }

  transport.onTasks((tasks) => {
    answering = answering.then(async () => { await answerAll(tasks) })
      .catch((err: unknown) => { for (const t of tasks) seen.delete(t.uid); events.onError?.(self, err) })
  })

  const self: SimulatedDevice = {
    identity: init.identity,
    systemUid: init.systemUid,
    transport,
    model,
    async publish (now = Date.now()) {
      const points = model.sample(now)
      await send(points)
      events.onData?.(self, points)
      return points
    },
    async idle () {
      let current: Promise<void>
      do { current = answering; await current } while (current !== answering)
    },
    async close () { await transport.close() }
  }
  return self
}
