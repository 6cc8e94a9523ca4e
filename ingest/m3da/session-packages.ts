// The package of a device once it is known and authentic (session.ts): its budget, the tasks of the reply, the
// exchange (exchange.ts), and the rule of §2.5 on which envelope ends a session.
import type { DeviceTask } from '../../core/domain/device-task.js'
import { encodeEnvelope, type Envelope } from '../../protocols/m3da/index.js'
import type { M3daDevice } from './m3da-devices.js'
import { exchange } from './exchange.js'
import { SESSION_MS } from './limits.js'
import type { Answer, Peer, SessionDeps } from './session-types.js'

const isEmpty = (p: Buffer): boolean => p.length === 0 || (p.length === 1 && p[0] === 0)

export interface Handled { status: number, payload: Buffer, close?: boolean }

export function createPackages (deps: SessionDeps) {
  /**
   * The tasks for this reply: those pushed to the connection and, at its first package (with those sent before and
   * not answered: a new session may have lost them; likewise after a lost reply) or once SESSION_MS passed, those
   * waiting in the store.
   */
  function tasksFor (peer: Peer, systemUid: string, first: boolean) {
    return async (): Promise<DeviceTask[]> => {
      const pushed = peer.outbox?.splice(0) ?? []
      const again = first || peer.retake === true
      peer.retake = false
      const now = Date.now()
      if (!again && now - (peer.polledAt ?? 0) < SESSION_MS) return pushed
      peer.polledAt = now
      const taken = await deps.ingest.takeTasks(systemUid, 'M3DA', { again })
      const seen = new Set(pushed.map((t) => t.uid))
      return [...pushed, ...taken.filter((t) => !seen.has(t.uid))]
    }
  }

  /** The package of an authentic device: store, answer; `close`: the device keeps exceeding its budget. */
  async function handled (peer: Peer, device: M3daDevice, payload: Buffer): Promise<Handled> {
    const admitted = deps.limits.admit(device.session.systemUid, payload.length)
    if (!admitted.ok) {
      // Over the device's budget (docs/security.md#device-limits): nothing stored, status 503 (§2.4), which the agent
      // sends again later, as when the store is unavailable. A device that keeps at it has its TCP connection closed.
      if (admitted.disconnect && peer.http !== true) deps.limits.disconnected()
      return { status: 503, payload: Buffer.alloc(0), close: admitted.disconnect }
    }
    const first = peer.packages === 0
    peer.packages++
    peer.lastAt = Date.now()
    peer.systemUid = device.session.systemUid
    peer.joined?.(peer.systemUid)
    try {
      const out = await exchange({ m3da: deps.m3da, pipeline: deps.pipeline, tasks: tasksFor(peer, device.session.systemUid, first) }, device, payload)
      return { status: out.status, payload: out.payload }
    } catch (err) {
      // Tasks taken for this reply (pushed or from the store) are SENT and would wait for a new connection.
      peer.retake = true
      deps.log.warn({ err, systemUid: device.session.systemUid }, 'M3DA package not stored; answered 503, the device sends again')
      return { status: 503, payload: Buffer.alloc(0) }
    }
  }

  /** The device's reply to our last reply (§2.5: a status and no payload): it ends the session, nothing to answer. */
  function endsSession (peer: Peer, e: Envelope): boolean {
    const awaited = peer.awaitingReply === true
    peer.awaitingReply = false
    return awaited && e.header.status !== undefined && isEmpty(e.payload)
  }

  /** An agent without security, admitted because its M3DA application says `authentication: "none"`. */
  async function unsecured (peer: Peer, device: M3daDevice, outer: Envelope): Promise<Answer> {
    if (endsSession(peer, outer)) return { reply: null, status: 200, close: false }
    const out = await handled(peer, device, outer.payload)
    peer.awaitingReply = out.payload.length > 0
    return { reply: encodeEnvelope({ header: { status: out.status }, payload: out.payload, footer: {} }), status: out.status, close: out.close === true }
  }

  return { handled, endsSession, unsecured }
}

export type Packages = ReturnType<typeof createPackages>
