// A device: a model of what it measures, a transport to the service, and the task loop of docs/devices.md: `read` →
// publish the current values then ack OK; `write` → apply the settings (reported with the next data) and ack OK, or
// ERROR for an unknown setting; the actions of settings.ts (reboot, reset, connect); software tasks (software.ts:
// download, check, install, then the answer). Each task uid runs once: a task
// delivered again (a redelivery, a resubscription after a reboot) is acknowledged again with the status it had, unless
// the service already acknowledged that ack (then it has it: the copy is ignored, as a device is free to,
// docs/devices.md).
import { setTimeout as sleep } from 'node:timers/promises'
import type { Ack, Point, Task } from '../../protocols/airvantage/index.js'
import type { DeviceTransport } from '../transports/transport.js'
import type { DeviceModel } from './device-model.js'
import type { DeviceIdentity } from './identity.js'
import { ACTIONS } from './settings.js'
import { isSoftwareTask, runSoftwareTask, SoftwareStopped, type SoftwareOptions } from './software.js'

export interface DeviceEvents {
  /** A data message was acknowledged by the service. */
  onData?: (device: SimulatedDevice, points: readonly Point[]) => void
  /** A task was answered (its ack acknowledged by the service), the first time it was received. */
  onTask?: (device: SimulatedDevice, task: Task, ack: Ack) => void
  onError?: (device: SimulatedDevice, err: unknown) => void
}

export interface SimulatedDevice {
  readonly identity: DeviceIdentity
  /** The system uid the service gave the device at registration. */
  readonly systemUid: string
  readonly transport: DeviceTransport
  readonly model: DeviceModel
  /** True for a device of the failing share of a fleet: it acknowledges every task ERROR without running it. */
  readonly failsTasks: boolean
  /** Times it was woken (an SMS shoulder tap). */
  readonly wakes: number
  /** Samples the model and sends one data message; resolves once the service acknowledged it (after a reboot in progress). */
  publish (now?: number): Promise<readonly Point[]>
  /** Asks the service for its tasks now (REST: GET /device/tasks; MQTT: nothing, the service pushes them). */
  poll (): Promise<void>
  /** A connection request reached the device (SMS shoulder tap): it polls at once. */
  wake (): Promise<void>
  /** Resolves when the tasks received so far are answered. */
  idle (): Promise<void>
  close (): Promise<void>
}

export interface SimulatedDeviceInit {
  identity: DeviceIdentity
  systemUid: string
  transport: DeviceTransport
  model: DeviceModel
  events?: DeviceEvents
  /** Acknowledge every task ERROR (the failing share of a fleet, failureRate). */
  failsTasks?: boolean
  /** How long a reboot keeps the device off (ms, default 1000). */
  rebootMs?: number
  /** How it downloads and whether it fails its installs (software.ts). */
  software?: SoftwareOptions
}

const REMEMBERED_TASKS = 1000
export const FAILURE_MESSAGE = 'simulated failure: this device fails its tasks (failure rate)'

const ok = (task: Task): Ack => ({ uid: task.uid, status: 'OK', message: null })
const error = (task: Task, message: string): Ack => ({ uid: task.uid, status: 'ERROR', message })

/** What running a task uses of its device. */
interface TaskContext {
  model: DeviceModel
  failsTasks: boolean
  software: SoftwareOptions
  /** The device's clock for what it reports. */
  stamp: () => number
  /** Sends values and tells the events (onData). */
  report: (points: readonly Point[]) => Promise<void>
  reboot: () => Promise<void>
}

/** Runs one task; `flush` sends the acks gathered so far (a reboot must not take them down with the connection). */
async function runTask (task: Task, c: TaskContext, flush: () => Promise<void>): Promise<Ack> {
  if (c.failsTasks) return error(task, FAILURE_MESSAGE)
  if ('read' in task) {
    const values = c.model.read(task.read, c.stamp())
    // A retrieve succeeds once the values and the ack have both arrived (docs/devices.md).
    if (values.length === 0) return error(task, `no such data: ${task.read.join(', ')}`)
    await c.report(values)
    return ok(task)
  }
  if ('write' in task) {
    const refused = c.model.write(task.write)
    return refused === undefined ? ok(task) : error(task, refused)
  }
  if (isSoftwareTask(task)) {
    await flush() // a download takes a while: what was answered before it leaves now
    return await runSoftwareTask(task, c.model.applications, c.software)
  }
  if (!('command' in task)) return error(task, 'not a task this device knows')
  switch (task.command.id) {
    case ACTIONS.reboot:
      await flush()
      await c.reboot()
      return ok(task)
    case ACTIONS.reset:
      c.model.reset()
      return ok(task)
    case ACTIONS.connect:
      return ok(task) // it is connected: this very answer shows it
    default:
      return error(task, `unknown command ${task.command.id}`)
  }
}

/**
 * Answers each batch of tasks the transport delivers: a task uid runs once; delivered again, its ack is sent again
 * unless the service acknowledged it. `answered` is told of each task run, once its ack is sent.
 */
function taskAnswers (transport: DeviceTransport, run: (task: Task, flush: () => Promise<void>) => Promise<Ack>, answered: (task: Task, ack: Ack) => void): (tasks: Task[]) => Promise<void> {
  // The ack of each task already run, by uid (the oldest forgotten past REMEMBERED_TASKS), and whether the service
  // acknowledged it.
  const known = new Map<string, { ack: Ack, delivered: boolean }>()
  return async (tasks) => {
    const acks: Ack[] = []
    const fresh: Array<{ task: Task, ack: Ack }> = []
    const flush = async (): Promise<void> => {
      if (acks.length === 0) return
      const sent = acks.splice(0)
      await transport.sendAcks(sent)
      for (const a of sent) { const k = known.get(a.uid); if (k !== undefined) k.delivered = true }
    }
    for (const task of tasks) {
      const before = known.get(task.uid)
      if (before !== undefined) { if (!before.delivered) acks.push(before.ack); continue }
      const ack = await run(task, flush)
      // Remembered before its ack leaves: should that fail, the task is not run again, only acknowledged again.
      known.set(task.uid, { ack, delivered: false })
      if (known.size > REMEMBERED_TASKS) known.delete(known.keys().next().value as string)
      acks.push(ack)
      fresh.push({ task, ack })
    }
    await flush()
    for (const f of fresh) answered(f.task, f.ack)
  }
}

export function createSimulatedDevice (init: SimulatedDeviceInit): SimulatedDevice {
  const { transport, model, events = {} } = init
  const failsTasks = init.failsTasks ?? false
  const rebootMs = init.rebootMs ?? 1000
  let answering: Promise<void> = Promise.resolve()
  // Set while the device is off (a reboot): its data and polls wait for it to be back.
  let booting: Promise<void> | undefined
  let wakes = 0
  // Its clock for what it reports: strictly increasing, so two answers in one millisecond (a read after a reset)
  // stay in order and the latest value is the one sent last.
  let lastStamp = 0
  const stamp = (): number => { lastStamp = Math.max(Date.now(), lastStamp + 1); return lastStamp }

  async function report (points: readonly Point[]): Promise<void> {
    await transport.sendData(points)
    model.countTraffic(transport.lastTraffic.sent, transport.lastTraffic.received)
    events.onData?.(self, points)
  }

  /** Off for a moment, one more restart, back on; the restart count is reported as the device comes back. */
  async function reboot (): Promise<void> {
    let up = (): void => {}
    booting = new Promise<void>((resolve) => { up = resolve })
    try {
      await transport.disconnect()
      await sleep(rebootMs)
      model.reboot()
      await transport.reconnect()
    } finally {
      booting = undefined
      up()
    }
    await report(model.read(['_NUMBER_OF_RESETS'], stamp()))
  }

  const context: TaskContext = { model, failsTasks, software: init.software ?? {}, stamp, report, reboot }
  const answerAll = taskAnswers(transport, async (task, flush) => await runTask(task, context, flush), (task, ack) => { events.onTask?.(self, task, ack) })
  transport.onTasks((tasks) => {
    answering = answering.then(async () => { await answerAll(tasks) })
      .catch((err: unknown) => { if (!(err instanceof SoftwareStopped)) events.onError?.(self, err) })
  })

  const self: SimulatedDevice = {
    identity: init.identity,
    systemUid: init.systemUid,
    transport,
    model,
    failsTasks,
    get wakes () { return wakes },
    async publish (now?: number) {
      if (booting !== undefined) await booting
      const points = model.sample(now ?? stamp())
      await report(points)
      return points
    },
    async poll () {
      if (booting !== undefined) await booting
      await transport.checkTasks()
    },
    async wake () {
      wakes++
      await self.poll()
    },
    async idle () {
      let current: Promise<void>
      do { current = answering; await current } while (current !== answering)
    },
    async close () { await transport.close() }
  }
  return self
}
