// What the service answers to each envelope a device sends, over TCP and HTTP alike (docs/protocols/m3da.md;
// docs/protocols/m3da.md). The outer header `id` names the system (gateway serial
// number or IMEI) and the company's deviceIpFiltering applies. Then:
// - a system with communication.m3da.password must sign: its envelopes are opened with the security extension
//   (session-secured.ts);
// - one with only a registration password auto-registers first (session-autoreg.ts), and the new password is stored;
// - an agent without security is admitted only when the system's M3DA application says `authentication: "none"`;
// - anything else is refused (403).
// Never throws: a failure of the store is answered 503 (the device sends again), anything else 500.
import type { Envelope } from '../../protocols/m3da/index.js'
import type { M3daDevice } from './m3da-devices.js'
import { SESSION_MS } from './limits.js'
import { createPackages } from './session-packages.js'
import { createSecured } from './session-secured.js'
import { createAutoreg } from './session-autoreg.js'
import { plain, type Answer, type Peer, type SessionDeps } from './session-types.js'

export { statusEnvelope, type Answer, type Peer, type SessionDeps } from './session-types.js'

// A device lookup is kept this long on a connection, so that a chatty device costs no lookup per package; a password
// or filter change takes effect within it (an MQTT device is checked once per connection).
const LOOKUP_MS = SESSION_MS

const text = (v: unknown): string | null => Buffer.isBuffer(v) ? v.toString('utf8') : typeof v === 'string' ? v : null

export function createSessionHandler (deps: SessionDeps) {
  const lookups = new WeakMap<Peer, { id: string, at: number, device: M3daDevice }>()
  const authentic = new WeakSet<Peer>()
  const packages = createPackages(deps)
  const secured = createSecured(deps, packages, authentic)
  const { autoreg, applies: autoregApplies } = createAutoreg(deps)

  async function deviceOf (peer: Peer, id: string) {
    const hit = lookups.get(peer)
    if (hit !== undefined && hit.id === id && Date.now() - hit.at < LOOKUP_MS) return { ok: true as const, device: hit.device }
    const r = await deps.m3da.lookup(id, peer.ip)
    if (r.ok) lookups.set(peer, { id, at: Date.now(), device: r.device })
    return r
  }

  /**
   * Password guessing is throttled as device logins are (docs/security.md#device-login-throttling): until a connection
   * has had one authentic signed envelope, each goes through the throttle: a 401 that ends the session (a second wrong
   * signature, a wrong registration password) counts as a wrong password, an authentic envelope as a right one, and
   * a challenge as neither (a new session's nonce is often not the one stored); during a wait the envelope is not
   * opened and the answer is 503.
   */
  async function throttled (peer: Peer, id: string, answer: () => Promise<Answer>): Promise<Answer> {
    if (authentic.has(peer)) return await answer()
    const r = await deps.devices.guarded('m3da', id, peer.ip, async () => {
      const value = await answer()
      return { right: value.status === 401 && value.close ? false : authentic.has(peer) ? true : undefined, value }
    })
    if (!('value' in r)) {
      deps.pipeline.refuse('device.throttled')
      return plain(503, true)
    }
    return r.value
  }

  /** The way the device is admitted: signed, auto-registering, unsecured, or refused. */
  async function admitted (peer: Peer, device: M3daDevice, id: string, outer: Envelope): Promise<Answer> {
    if (device.password !== null) return await throttled(peer, id, async () => await secured(peer, device, id, outer))
    if (device.registrationPassword !== null && autoregApplies(id, outer)) return await throttled(peer, id, async () => await autoreg(device, id, outer))
    if (device.authentication === 'none') return await packages.unsecured(peer, device, outer)
    deps.pipeline.refuse(device.registrationPassword !== null ? 'm3da.autoreg.required' : 'm3da.security.required')
    return plain(403, true)
  }

  /** Answers one outer envelope of a peer. Never throws. */
  async function handle (peer: Peer, outer: Envelope): Promise<Answer> {
    const id = text(outer.header.id)
    if (id === null || id === '') {
      deps.pipeline.refuse('m3da.id.missing')
      return plain(400)
    }
    try {
      const found = await deviceOf(peer, id)
      if (!found.ok) {
        deps.pipeline.refuse(found.reason)
        return plain(403, true)
      }
      return await admitted(peer, found.device, id, outer)
    } catch (err) {
      deps.log.error({ err, id }, 'M3DA envelope not handled')
      return plain(500)
    }
  }

  /** A byte stream that is no envelope: refused and counted, answered 400 (§2.4). */
  function malformed (reason: string): Answer {
    deps.pipeline.refuse(reason)
    return plain(400, true)
  }

  return { handle, malformed }
}

export type SessionHandler = ReturnType<typeof createSessionHandler>
