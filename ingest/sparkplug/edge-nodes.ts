// The host's bookkeeping per edge node (docs/protocols/sparkplug.md): online flag, the bdSeq of its NBIRTH, the next
// seq it must send, the alias → metric map of its BIRTHs (node and devices share one alias space), the devices born,
// and the last value of each metric this session (what a retrieve is answered from). It lives with the connection: a
// new NBIRTH starts it over, so nothing of it needs the store.
import type { DeviceSession } from '../../core/services/ingest/device-session.js'
import type { ActionType } from '../../core/domain/application-model.js'
import type { DataValue } from '../../core/domain/device-message.js'
import type { BusClient } from '../mqtt/namespaces.js'

/** A metric a BIRTH declared. `device` absent: a metric of the node itself. */
export interface KnownMetric { name: string, datatype: number, device?: string }

/** A task sent to the node and waiting for what ends it (commands.ts). */
export type Awaiting =
  | { uid: string, kind: 'reboot' }
  /** Data ids still to be reported, with the value written. */
  | { uid: string, kind: 'write', pending: Map<string, DataValue> }
  | { uid: string, kind: 'read', ids: readonly string[] }

export interface EdgeNode {
  readonly group: string
  readonly node: string
  readonly session: DeviceSession
  /** The connection that sent the NBIRTH (the one NCMD and DCMD reach). */
  client: BusClient
  online: boolean
  bdSeq: string | undefined
  /** The seq the next NDATA, DBIRTH, DDATA or DDEATH must carry; undefined: out of step until the next NBIRTH. */
  nextSeq: number | undefined
  aliases: Map<string, KnownMetric>
  /** By metricKey(device, name). */
  metrics: Map<string, KnownMetric>
  devices: Set<string>
  /** Last value per data id this session. */
  values: Map<string, { ts: number, value: DataValue }>
  awaiting: Awaiting[]
  /** The system's action kinds by data id, read at the first task (command tasks name actions). */
  actions?: Map<string, ActionType>
}

export const metricKey = (device: string | undefined, name: string): string => `${device ?? ''}\u0000${name}`

/**
 * The data id of a metric (docs/protocols/sparkplug.md): the metric name as is for the node's own metrics,
 * `<device id>/<metric name>` for a device's; `/` is allowed in data ids, as in Sparkplug's folder-like names.
 */
export const dataIdOf = (device: string | undefined, name: string): string => device === undefined ? name : `${device}/${name}`

/** The edge nodes this process serves, by system and by group and node id. */
export function createEdgeNodes () {
  const byKey = new Map<string, EdgeNode>()
  // Indexes for a push (by system) and a connection's end (by client): a fleet-wide operation or a mass reconnection
  // must not scan every node once per system.
  const bySystem = new Map<string, Set<EdgeNode>>()
  const byClient = new WeakMap<BusClient, Set<EdgeNode>>()
  const key = (systemUid: string, group: string, node: string): string => `${systemUid}\u0000${group}\u0000${node}`

  function index (n: EdgeNode, before: EdgeNode | undefined): void {
    if (before !== undefined) {
      bySystem.get(before.session.systemUid)?.delete(before)
      byClient.get(before.client)?.delete(before)
    }
    const mine = bySystem.get(n.session.systemUid) ?? new Set<EdgeNode>()
    mine.add(n)
    bySystem.set(n.session.systemUid, mine)
    const theirs = byClient.get(n.client) ?? new Set<EdgeNode>()
    theirs.add(n)
    byClient.set(n.client, theirs)
  }

  return {
    get: (systemUid: string, group: string, node: string): EdgeNode | undefined => byKey.get(key(systemUid, group, node)),
    /** A new session of the node (its NBIRTH): everything learnt before is dropped, the tasks awaited are kept. */
    born (session: DeviceSession, client: BusClient, group: string, node: string, bdSeq: string | undefined, seq: number): EdgeNode {
      const before = byKey.get(key(session.systemUid, group, node))
      const n: EdgeNode = {
        group,
        node,
        session,
        client,
        online: true,
        bdSeq,
        nextSeq: (seq + 1) % 256,
        aliases: new Map(),
        metrics: new Map(),
        devices: new Set(),
        values: new Map(),
        awaiting: before?.awaiting ?? []
      }
      byKey.set(key(session.systemUid, group, node), n)
      index(n, before)
      return n
    },
    /** The node of the system that tasks go to: an online one whose connection is open, the latest born. */
    reachable (systemUid: string): EdgeNode | undefined {
      let found: EdgeNode | undefined
      for (const n of bySystem.get(systemUid) ?? []) if (n.online) found = n
      return found
    },
    /** Nodes of a connection that ended: not reachable any more (their death, if any, came as the Will). */
    closed (client: BusClient): void {
      for (const n of byClient.get(client) ?? []) n.online = false
    },
    /** How many nodes are online (the connected-devices gauge). */
    online (): number {
      let count = 0
      for (const n of byKey.values()) if (n.online) count++
      return count
    }
  }
}

export type EdgeNodes = ReturnType<typeof createEdgeNodes>
