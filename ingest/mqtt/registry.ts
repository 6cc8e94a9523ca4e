// The connected MQTT devices of this process, whatever their MQTT version (3.1 and 3.1.1 are counted as 3.1.1):
// one registry, by system uid and latest connection first, for `connected`, task delivery
// and the connected-devices metric; and by client id within its system, so that a device never pushes another's
// connection off.
import type { DeviceSession } from '../../core/services/ingest/devices.service.js'
import type { PresentedCertificate } from '../../core/domain/device-certificate.js'

export type MqttVersion = '3.1.1' | '5'

/** One authenticated connection, as the registry sees it. */
export interface MqttConnection {
  readonly session: DeviceSession
  readonly version: MqttVersion
  /** '' when the device gave none (MQTT 5.0 §3.1.3.1): such a connection takes no other over. */
  readonly clientId: string
  /** The client certificate of its TLS handshake (MQTTS, wss), if it presented one: a revoked one's connections are found by it. */
  readonly certificate?: PresentedCertificate
  /** Whether a granted subscription of the connection delivers its tasks topic. */
  wantsTasks (): boolean
  /** Publishes a task list at QoS 1 on its tasks topic (`taskUids`: the tasks it carries, told on its PUBACK). */
  sendTasks (payload: string, taskUids: readonly string[]): Promise<void>
  /** Closes it; `takenOver`: a newer connection of the same system took its client id. */
  close (opts?: { takenOver?: boolean }): void
}

/** What a new connection may do with its client id (docs/devices.md: client ids are free). */
export type ClientIdClaim =
  | { kind: 'free' }
  /** Held by a connection of the same system: the new one takes it over (MQTT 3.1.1 §3.1.4, MQTT 5.0 §3.1.4). */
  | { kind: 'take-over', holder: MqttConnection }

export interface ConnectionRegistry {
  claim (systemUid: string, clientId: string): ClientIdClaim
  add (c: MqttConnection): void
  remove (c: MqttConnection): void
  connected (systemUid: string): boolean
  /** The latest connection of the system subscribed to its tasks, if any. */
  subscribed (systemUid: string): MqttConnection | undefined
  /** Connections by version (the connected-devices metric). */
  counts (): Array<{ version: MqttVersion, count: number }>
  all (): MqttConnection[]
}

/**
 * Where a client id belongs: to its system, whatever the MQTT version. Ids are chosen by devices, so an id another
 * system uses is nobody's concern (a device of one company holding `B-SN-2` must not keep company B's device out);
 * within a system, a newer connection with the id takes the older one over, as a device reconnecting after a lost
 * link or a firmware update to another MQTT version does.
 */
const clientKey = (systemUid: string, clientId: string): string => `${systemUid}\u0000${clientId}`

export function createConnectionRegistry (): ConnectionRegistry {
  /** Latest first. */
  const bySystem = new Map<string, MqttConnection[]>()
  const byClientId = new Map<string, MqttConnection>()
  const keyOf = (c: MqttConnection): string => clientKey(c.session.systemUid, c.clientId)
  const counts: Record<MqttVersion, number> = { '3.1.1': 0, 5: 0 }

  return {
    claim (systemUid, clientId) {
      const holder = clientId === '' ? undefined : byClientId.get(clientKey(systemUid, clientId))
      return holder === undefined ? { kind: 'free' } : { kind: 'take-over', holder }
    },
    add (c) {
      const mine = bySystem.get(c.session.systemUid) ?? []
      if (mine.includes(c)) return
      mine.unshift(c)
      bySystem.set(c.session.systemUid, mine)
      if (c.clientId !== '') byClientId.set(keyOf(c), c)
      counts[c.version]++
    },
    remove (c) {
      const mine = bySystem.get(c.session.systemUid)
      const at = mine?.indexOf(c) ?? -1
      if (mine === undefined || at < 0) return
      mine.splice(at, 1)
      if (mine.length === 0) bySystem.delete(c.session.systemUid)
      if (byClientId.get(keyOf(c)) === c) byClientId.delete(keyOf(c))
      counts[c.version]--
    },
    connected: (systemUid) => bySystem.has(systemUid),
    subscribed: (systemUid) => bySystem.get(systemUid)?.find((c) => c.wantsTasks()),
    counts: () => [{ version: '3.1.1', count: counts['3.1.1'] }, { version: '5', count: counts[5] }],
    all: () => [...bySystem.values()].flat()
  }
}
