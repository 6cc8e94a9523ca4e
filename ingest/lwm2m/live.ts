// The registrations this process holds the device of (docs/protocols/lwm2m.md): the link the device registered over
// (a UDP peer or a DTLS session of one of our CoAP endpoints), the observations made at it, and when it was last
// heard. The store has every registration (lwm2m.port.ts); only the process whose socket the device talks to can
// send it requests, so the dispatch asks this one whether a system is connected here.
import type { CoapEndpoint, Observation } from '../../protocols/coap/index.js'
import type { LwM2mPath, RegistrationLinks } from '../../protocols/lwm2m/index.js'
import type { DeviceSession } from '../../core/services/ingest/device-session.js'
import type { ActionType } from '../../core/domain/application-model.js'

/** Where a request came from: the endpoint it reached and that endpoint's key of the peer. */
export interface Link {
  kind: 'udp' | 'dtls'
  endpoint: CoapEndpoint
  /** The endpoint's key of the peer (`address:port`). */
  peer: string
  ip: string
  /** The PSK identity its DTLS session proved; null over plain CoAP. */
  identity: string | null
}

/** The stored form of a link's peer: which endpoint, then its key (`udp:1.2.3.4:5683`). */
export const peerKey = (link: Pick<Link, 'kind' | 'peer'>): string => `${link.kind}:${link.peer}`

export interface LiveRegistration {
  id: string
  session: DeviceSession
  link: Link
  version: '1.0' | '1.1'
  queueMode: boolean
  links: RegistrationLinks
  /** The object instances the application wants observed (lwm2m-devices.ts). */
  wanted: readonly LwM2mPath[]
  actions: ReadonlyMap<string, ActionType>
  observations: Observation[]
  /** When the device last registered or updated (ms). */
  heardAt: number
  expiresAt: number
  /** Set once it is no longer held here (replaced, de-registered, expired, its session lost): nothing is sent on it. */
  ended?: boolean
}

/**
 * OMA LwM2M Core §6.5 (queue mode): a client in queue mode stays reachable for MAX_TRANSMIT_WAIT (93 s, RFC 7252
 * §4.8.2) after it last sent something; after that, requests wait for its next Update.
 */
export const AWAKE_MS = 93_000

export function createLiveRegistrations (now: () => number) {
  const bySystem = new Map<string, LiveRegistration>()
  const ids = new Map<string, string>() // registration id → system

  function remove (r: LiveRegistration): void {
    r.ended = true
    drop(r)
    bySystem.delete(r.session.systemUid)
    ids.delete(r.id)
  }

  /** Stops listening to a registration's observations (no request goes out: the device may be gone). */
  function drop (r: LiveRegistration): void {
    for (const o of r.observations) o.cancel('forget').catch(() => {})
    r.observations = []
  }

  return {
    get: (systemUid: string): LiveRegistration | undefined => bySystem.get(systemUid),
    byId (id: string): LiveRegistration | undefined {
      const systemUid = ids.get(id)
      return systemUid === undefined ? undefined : bySystem.get(systemUid)
    },
    /** Takes the place of the system's earlier registration here, whose observations end. */
    set (r: LiveRegistration): void {
      const old = bySystem.get(r.session.systemUid)
      if (old !== undefined && old !== r) remove(old)
      bySystem.set(r.session.systemUid, r)
      ids.set(r.id, r.session.systemUid)
    },
    end (systemUid: string, id?: string): void {
      const r = bySystem.get(systemUid)
      if (r === undefined || (id !== undefined && r.id !== id)) return
      remove(r)
    },
    /** A DTLS session ended: its registrations can no longer be reached here (the device registers or updates again). */
    lost (kind: Link['kind'], peer: string): void {
      for (const r of [...bySystem.values()]) if (r.link.kind === kind && r.link.peer === peer) remove(r)
    },
    /** Registered here, not expired, and (queue mode) awake. */
    reachable (systemUid: string): boolean {
      const r = bySystem.get(systemUid)
      const t = now()
      if (r === undefined || r.expiresAt < t) return false
      return !r.queueMode || t - r.heardAt < AWAKE_MS
    },
    size: (): number => bySystem.size,
    count: (kind: Link['kind']): number => [...bySystem.values()].filter((r) => r.link.kind === kind).length,
    clear (): void { for (const r of [...bySystem.values()]) remove(r) }
  }
}

export type LiveRegistrations = ReturnType<typeof createLiveRegistrations>
