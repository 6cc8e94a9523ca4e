// Outgoing device tasks (issue 9, "Delivery"; core/ports/devices.ts TaskDispatch): once the operations have committed
// device tasks, a device connected here over a push transport of the task's protocol gets them at once; a device
// that is not connected gets them at its next connection or poll (the transports take them with `again`), and is
// asked to connect when the operation says so (requestConnection, wake-up: the SMS shoulder tap).
import type { ConnectionRequester, DeviceTasksRepository, DispatchRequest, TaskDispatch } from '../core/ports/devices.js'
import type { DeviceProtocol } from '../core/domain/device-message.js'
import type { Logger } from '../core/logger.js'
import type { DeviceTransport } from './transport.js'

/** The subscription mobile numbers of systems (absent: the system has none, or no subscription). */
export interface DispatchSystems {
  mobileNumbers (systemUids: readonly string[]): Promise<Map<string, string>>
}

export interface TaskDispatchDeps {
  /**
   * The transports of this process. A function: the transports are built after the services that are given this
   * dispatch (bin/serve.ts), so the list is read at each dispatch, not when the dispatch is created.
   */
  transports: () => readonly DeviceTransport[]
  deviceTasks: Pick<DeviceTasksRepository, 'takeMany' | 'withPending'>
  systems: DispatchSystems
  connectionRequester: ConnectionRequester
  log: Logger
  now: () => number
}

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

export function createTaskDispatch (deps: TaskDispatchDeps): TaskDispatch {
  const { log } = deps

  /** The push transport of the protocol that has the system connected here, if any. */
  function pusher (systemUid: string, protocol: DeviceProtocol): DeviceTransport | undefined {
    return deps.transports().find((t) => t.protocols.includes(protocol) && t.push !== undefined && t.connected(systemUid))
  }

  /**
   * Takes the PENDING tasks of the systems connected here (marked SENT), in one statement, and pushes them. When a
   * push answers false (the device went away, or has not subscribed to its tasks yet) its tasks stay SENT and
   * unanswered, which is what the transports deliver again at the device's next connection, subscription or poll
   * (`takeTasks` with `again`): nothing is lost, and a device ignores by uid a task it already ran.
   */
  async function pushAll (targets: ReadonlyArray<{ transport: DeviceTransport, r: DispatchRequest }>): Promise<void> {
    if (targets.length === 0) return
    const taken = await deps.deviceTasks.takeMany(targets.map(({ r }) => ({ systemUid: r.systemUid, protocol: r.protocol })), deps.now())
    // A push is a write on the device's connection: all of them at once, so that a chunk of an operation reaches
    // its hundred devices in one turn rather than sixteen at a time.
    await Promise.all(targets.map(async ({ transport, r }, i) => {
      const tasks = taken[i] ?? []
      if (tasks.length === 0) return
      try {
        const sent = await transport.push?.(r.systemUid, tasks) ?? false
        if (!sent) log.debug({ systemUid: r.systemUid, transport: transport.name, tasks: tasks.length }, 'device tasks not pushed; delivered at the next connection')
      } catch (err) {
        // One device never stops the others (TaskDispatch): its tasks wait for its next connection.
        log.warn({ err, systemUid: r.systemUid, protocol: r.protocol }, 'device tasks not dispatched; they wait for the next connection')
      }
    }))
  }

  async function requestConnections (requests: readonly DispatchRequest[]): Promise<void> {
    if (requests.length === 0) return
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

  return {
    async dispatch (requests) {
      // One request per system and protocol; requestConnection if any of them asks for it.
      const unique = new Map<string, DispatchRequest>()
      for (const r of requests) {
        const key = `${r.protocol}\u0000${r.systemUid}`
        const seen = unique.get(key)
        unique.set(key, seen === undefined ? r : { ...seen, requestConnection: seen.requestConnection || r.requestConnection })
      }
      // Only systems that still have PENDING tasks (a device that polled meanwhile took them): one query per protocol.
      const byProtocol = new Map<DeviceProtocol, DispatchRequest[]>()
      for (const r of unique.values()) byProtocol.set(r.protocol, [...(byProtocol.get(r.protocol) ?? []), r])
      const waiting: DispatchRequest[] = []
      for (const [protocol, list] of byProtocol) {
        let pending: Set<string>
        try {
          pending = new Set(await deps.deviceTasks.withPending(list.map((r) => r.systemUid), protocol))
        } catch (err) {
          log.warn({ err, protocol, systems: list.length }, 'device tasks not dispatched; they wait for the next connection of each device')
          continue
        }
        const targets: Array<{ transport: DeviceTransport, r: DispatchRequest }> = []
        for (const r of list) {
          if (!pending.has(r.systemUid)) continue
          const transport = pusher(r.systemUid, r.protocol)
          if (transport !== undefined) targets.push({ transport, r })
          else if (r.requestConnection) waiting.push(r)
        }
        try {
          await pushAll(targets)
        } catch (err) {
          log.warn({ err, protocol, systems: targets.length }, 'device tasks not dispatched; they wait for the next connection of each device')
        }
      }
      try {
        await requestConnections(waiting)
      } catch (err) {
        log.warn({ err, systems: waiting.length }, 'connection requests not sent; the tasks wait for the next connection of each device')
      }
    }
  }
}
