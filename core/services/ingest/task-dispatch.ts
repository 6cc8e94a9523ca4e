// The dispatch policy of outgoing device tasks (core/ports/devices.ts TaskDispatch): once the operations have
// committed device tasks, a device connected here over a transport that pushes the task's protocol gets them at once;
// a device that is not connected gets them at its next connection or poll (the transports take them with `again`),
// and is asked to connect when the operation says so (requestConnection, wake-up: the SMS shoulder tap).
// docs/decisions/0013-protocol-modules.md: why the policy is core's and the transports only register as pushers.
import type { ConnectionRequester, DeviceTasksRepository, DispatchRequest, TaskDispatch, TaskPusher, TaskPushers } from '../../ports/devices.js'
import type { DeviceProtocol } from '../../domain/device-message.js'
import type { Logger } from '../../logger.js'

/** The subscription mobile numbers of systems (absent: the system has none, or no subscription). */
export interface DispatchSystems {
  mobileNumbers (systemUids: readonly string[]): Promise<Map<string, string>>
}

export interface TaskDispatchDeps {
  /** The transports of this process that push (registered as they are built: bin/serve.ts). */
  pushers: Pick<TaskPushers, 'find'>
  deviceTasks: Pick<DeviceTasksRepository, 'takeMany' | 'withPending'>
  systems: DispatchSystems
  connectionRequester: ConnectionRequester
  log: Logger
  now: () => number
}

interface Target { pusher: TaskPusher, r: DispatchRequest }

// Pushes and connection requests in flight at once: enough to overlap the store and the network for a large
// operation without one dispatch holding every connection of the store's pool.
const PARALLEL = 16

async function eachLimited<T> (items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T
      await fn(item)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
}

/** One request per system and protocol (requestConnection if any asks for it), grouped by protocol. */
function byProtocol (requests: readonly DispatchRequest[]): Map<DeviceProtocol, DispatchRequest[]> {
  const unique = new Map<string, DispatchRequest>()
  for (const r of requests) {
    const key = `${r.protocol}\u0000${r.systemUid}`
    const seen = unique.get(key)
    unique.set(key, seen === undefined ? r : { ...seen, requestConnection: seen.requestConnection || r.requestConnection })
  }
  const out = new Map<DeviceProtocol, DispatchRequest[]>()
  for (const r of unique.values()) out.set(r.protocol, [...(out.get(r.protocol) ?? []), r])
  return out
}

/**
 * Takes the PENDING tasks of the systems connected here (marked SENT), in one statement, and pushes them. When a
 * push answers false (the device went away, or has not subscribed to its tasks yet) its tasks stay SENT and
 * unanswered, which is what the transports deliver again at the device's next connection, subscription or poll
 * (`takeTasks` with `again`): nothing is lost, and a device ignores by uid a task it already ran.
 */
async function pushAll (deps: TaskDispatchDeps, targets: readonly Target[]): Promise<void> {
  if (targets.length === 0) return
  const { log } = deps
  const taken = await deps.deviceTasks.takeMany(targets.map(({ r }) => ({ systemUid: r.systemUid, protocol: r.protocol })), deps.now())
  // A push is a write on the device's connection: all of them at once, so that a chunk of an operation reaches
  // its hundred devices in one turn rather than sixteen at a time.
  await Promise.all(targets.map(async ({ pusher, r }, i) => {
    const tasks = taken[i] ?? []
    if (tasks.length === 0) return
    try {
      const sent = await pusher.push(r.systemUid, tasks)
      if (!sent) log.debug({ systemUid: r.systemUid, transport: pusher.name, tasks: tasks.length }, 'device tasks not pushed; delivered at the next connection')
    } catch (err) {
      // One device never stops the others (TaskDispatch): its tasks wait for its next connection.
      log.warn({ err, systemUid: r.systemUid, protocol: r.protocol }, 'device tasks not dispatched; they wait for the next connection')
    }
  }))
}

async function requestConnections (deps: TaskDispatchDeps, requests: readonly DispatchRequest[]): Promise<void> {
  if (requests.length === 0) return
  const { log } = deps
  const numbers = await deps.systems.mobileNumbers(requests.map((r) => r.systemUid))
  await eachLimited(requests, PARALLEL, async (r) => {
    const mobileNumber = numbers.get(r.systemUid)
    if (mobileNumber === undefined) {
      log.info({ systemUid: r.systemUid }, 'connection request impossible: the system has no mobile number; its tasks wait for its next connection')
      return
    }
    const outcome = await deps.connectionRequester.request({ systemUid: r.systemUid, mobileNumber, protocol: r.protocol })
    if (outcome === 'unavailable') log.info({ systemUid: r.systemUid }, 'connection request not sent: no SMS gateway configured (SMS_GATEWAY_URL)')
    else log.debug({ systemUid: r.systemUid, outcome }, 'connection request')
  })
}

/**
 * Pushes the tasks of one protocol's systems that still have PENDING tasks (a device that polled meanwhile took
 * them: one query per protocol); answers those to ask for a connection (not connected here, requestConnection).
 */
async function dispatchProtocol (deps: TaskDispatchDeps, protocol: DeviceProtocol, list: readonly DispatchRequest[]): Promise<DispatchRequest[]> {
  const { log } = deps
  let pending: Set<string>
  try {
    pending = new Set(await deps.deviceTasks.withPending(list.map((r) => r.systemUid), protocol))
  } catch (err) {
    log.warn({ err, protocol, systems: list.length }, 'device tasks not dispatched; they wait for the next connection of each device')
    return []
  }
  const targets: Target[] = []
  const waiting: DispatchRequest[] = []
  for (const r of list) {
    if (!pending.has(r.systemUid)) continue
    const pusher = deps.pushers.find(r.systemUid, r.protocol)
    if (pusher !== undefined) targets.push({ pusher, r })
    else if (r.requestConnection) waiting.push(r)
  }
  try {
    await pushAll(deps, targets)
  } catch (err) {
    log.warn({ err, protocol, systems: targets.length }, 'device tasks not dispatched; they wait for the next connection of each device')
  }
  return waiting
}

export function createTaskDispatch (deps: TaskDispatchDeps): TaskDispatch {
  return {
    async dispatch (requests) {
      const waiting: DispatchRequest[] = []
      for (const [protocol, list] of byProtocol(requests)) waiting.push(...await dispatchProtocol(deps, protocol, list))
      try {
        await requestConnections(deps, waiting)
      } catch (err) {
        deps.log.warn({ err, systems: waiting.length }, 'connection requests not sent; the tasks wait for the next connection of each device')
      }
    }
  }
}
