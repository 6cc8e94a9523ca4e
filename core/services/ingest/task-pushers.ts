// The registry of the transports that push tasks in this process (core/ports/devices.ts TaskPushers). The dispatch
// is given it when the services are built; the transports register as they are built, after the services (they are
// given the services), so the dispatch never holds a list of its own to be filled in later.
import type { DeviceProtocol } from '../../domain/device-message.js'
import type { TaskPusher, TaskPushers } from '../../ports/devices.js'

export function createTaskPushers (): TaskPushers {
  const pushers: TaskPusher[] = []
  return {
    register (pusher) { pushers.push(pusher) },
    find: (systemUid: string, protocol: DeviceProtocol) => pushers.find((p) => p.protocols.includes(protocol) && p.connected(systemUid))
  }
}
