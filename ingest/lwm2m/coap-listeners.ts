// The two UDP listeners of LwM2M (docs/protocols/lwm2m.md): plain CoAP on LWM2M_PORT and CoAP over DTLS 1.2 with a
// PSK on LWM2MS_PORT, each one CoapEndpoint (client and server at once: the device's requests to /rd and ours to the
// device share its socket or session, protocols/coap/README.md). A request reaches the registrar with its Link: the
// endpoint, the peer, and the PSK identity its DTLS session proved.
import { CoapCode, CoapEndpoint, type CoapCounters, type CoapMessage, type OutgoingResponse } from '../../protocols/coap/index.js'
import { listenUdp, parseUdpPeer, udpPeer, type UdpCoap } from '../../protocols/coap/udp.js'
import { createDtlsServer, type DtlsServer, type DtlsSession } from '../../protocols/dtls/index.js'
import type { Config } from '../../core/config.js'
import { addressBlock } from '../login-gate.js'
import type { Link } from './live.js'

export interface CoapListenersDeps {
  handle: (req: CoapMessage, link: Link) => Promise<OutgoingResponse>
  /** DTLS: the key of a PSK identity (undefined: unknown). */
  pskFor: (identity: string) => Promise<Buffer | undefined>
  /** A handshake or record the DTLS server refused (its reason, README §Refusals). */
  refused: (reason: string) => void
  /** A DTLS session ended: what was registered over it is no longer reachable. */
  lost: (kind: Link['kind'], peer: string) => void
  /** The handshakes one address may start on LWM2MS_PORT (docs/protocols/lwm2m.md#handshakes-per-address). */
  config: Pick<Config, 'LWM2MS_HANDSHAKES_PER_S' | 'LWM2MS_HANDSHAKE_BURST'>
  /** The service's clock: the DTLS server's budgets, cookies and idle times follow it (tests move it). */
  now: () => number
}

const unavailable: OutgoingResponse = { code: CoapCode.ServiceUnavailable }

function udpListener (deps: CoapListenersDeps) {
  let udp: UdpCoap | undefined
  return {
    async listen (port: number, host: string): Promise<number> {
      udp = await listenUdp({
        port,
        address: host,
        handler: async (req, peer) => {
          // A datagram between the bind and the assignment: the device sends again.
          if (udp === undefined) return unavailable
          return await deps.handle(req, { kind: 'udp', endpoint: udp.endpoint, peer, ip: parseUdpPeer(peer)?.address ?? '', identity: null })
        }
      })
      return udp.port
    },
    listening: () => udp !== undefined,
    counters: (): CoapCounters | undefined => udp?.endpoint.counters,
    async close () { await udp?.close(); udp = undefined }
  }
}

function dtlsListener (deps: CoapListenersDeps) {
  const sessions = new Map<string, DtlsSession>()
  const endpoint: CoapEndpoint = new CoapEndpoint({
    send: (peer, datagram) => { sessions.get(peer)?.send(datagram) },
    handler: async (req, peer) => {
      const s = sessions.get(peer)
      if (s === undefined) return unavailable
      return await deps.handle(req, { kind: 'dtls', endpoint, peer, ip: s.remote.address, identity: s.identity })
    }
  })
  let server: DtlsServer | undefined
  let listening = false

  function joined (s: DtlsSession): void {
    const key = udpPeer(s.remote.address, s.remote.port)
    sessions.set(key, s)
    s.on('message', (m: Buffer) => { endpoint.receive(key, m) })
    s.once('close', () => {
      if (sessions.get(key) !== s) return // replaced by a new handshake from the same address and port
      sessions.delete(key)
      // RFC 7252 §9.1: message ids and tokens belong to the session.
      endpoint.forgetPeer(key)
      deps.lost('dtls', key)
    })
  }

  return {
    async listen (port: number, host: string): Promise<number> {
      server = createDtlsServer({
        pskFor: deps.pskFor,
        handshakesPerS: deps.config.LWM2MS_HANDSHAKES_PER_S,
        handshakeBurst: deps.config.LWM2MS_HANDSHAKE_BURST,
        // As the login gate counts: one host commonly holds a whole IPv6 /64.
        addressKey: addressBlock,
        now: deps.now
      })
      server.on('session', joined)
      server.on('refused', (reason: string) => { deps.refused(`dtls.${reason}`) })
      server.on('error', () => {}) // one datagram's send failure; the server goes on
      const bound = await server.listen({ port, host })
      listening = true
      return bound.port
    },
    listening: () => listening,
    sessions: () => sessions.size,
    counters: (): CoapCounters => endpoint.counters,
    async close () {
      listening = false
      endpoint.close()
      await server?.close()
      sessions.clear()
    }
  }
}

export function createCoapListeners (deps: CoapListenersDeps) {
  return { udp: udpListener(deps), dtls: dtlsListener(deps) }
}
