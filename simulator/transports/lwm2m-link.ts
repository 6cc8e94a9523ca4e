// The datagram link of a simulated LwM2M client to its server: a UDP socket (NoSec, coap://) or a DTLS session with
// a pre-shared key (coaps://, protocols/dtls), carrying one CoAP endpoint that is client (registration) and server
// (the server's requests) at once. In queue mode the device sleeps between its updates: datagrams that reach it
// asleep are dropped, as a radio that is off drops them (the server's CoAP retransmissions then time out).
import dgram from 'node:dgram'
import { once } from 'node:events'
import { CoapEndpoint, type RequestHandler } from '../../protocols/coap/index.js'
import type { ServedObserver } from '../../protocols/coap/index.js'
import { connectDtls, type DtlsClient } from '../../protocols/dtls/index.js'

/** The server's one peer key on the endpoint: a device talks to one server. */
export const SERVER_PEER = 'server'

export interface LinkTarget {
  host: string
  port: number
  /** DTLS with this identity and key; plain UDP without. */
  psk?: { identity: string, key: Buffer }
  /** Overrides for tests (retransmission timing). */
  ackTimeoutMs?: number
}

export interface Lwm2mLink {
  readonly endpoint: CoapEndpoint
  /** False: datagrams from the server are dropped (queue mode, asleep). */
  awake: boolean
  /** Datagrams dropped while asleep. */
  readonly dropped: number
  close (): Promise<void>
}

export interface LinkHooks {
  handler: RequestHandler
  onObserverGone?: (observer: ServedObserver) => void
  /** The DTLS session ended from the server's side (or the network). */
  onClosed?: (reason: string) => void
}

interface Carrier { send (d: Buffer): void, close (): Promise<void>, onMessage (fn: (d: Buffer) => void): void }

async function udpCarrier (t: LinkTarget): Promise<Carrier> {
  const socket = dgram.createSocket('udp4')
  socket.on('error', () => { /* an ICMP unreachable: the CoAP retransmissions decide */ })
  socket.connect(t.port, t.host)
  await once(socket, 'connect')
  let closed = false
  return {
    send: (d) => { if (!closed) socket.send(d) },
    onMessage: (fn) => { socket.on('message', fn) },
    close: async () => {
      if (closed) return
      closed = true
      await new Promise<void>((resolve) => { socket.close(() => { resolve() }) })
    }
  }
}

async function dtlsCarrier (t: LinkTarget & { psk: NonNullable<LinkTarget['psk']> }, onClosed?: (reason: string) => void): Promise<Carrier> {
  const client: DtlsClient = await connectDtls({ host: t.host, port: t.port, identity: t.psk.identity, psk: t.psk.key, handshakeTimeoutMs: 10_000 })
  client.on('close', (reason: string) => { onClosed?.(reason) })
  return {
    send: (d) => { if (!client.closed) client.send(d) },
    onMessage: (fn) => { client.on('message', fn) },
    close: async () => { await client.close() }
  }
}

/** Opens the link (the DTLS handshake first, when secured). @throws DtlsError when the handshake fails */
export async function openLink (t: LinkTarget, hooks: LinkHooks): Promise<Lwm2mLink> {
  const carrier = t.psk === undefined ? await udpCarrier(t) : await dtlsCarrier({ ...t, psk: t.psk }, hooks.onClosed)
  const endpoint = new CoapEndpoint({
    send: (_peer, d) => { carrier.send(d) },
    handler: hooks.handler,
    ...(t.ackTimeoutMs === undefined ? {} : { params: { ackTimeoutMs: t.ackTimeoutMs } }),
    ...(hooks.onObserverGone === undefined ? {} : { onObserverGone: hooks.onObserverGone })
  })
  let dropped = 0
  const link: Lwm2mLink = {
    endpoint,
    awake: true,
    get dropped () { return dropped },
    async close () {
      endpoint.close()
      await carrier.close()
    }
  }
  carrier.onMessage((d) => {
    if (link.awake) endpoint.receive(SERVER_PEER, d)
    else dropped++
  })
  return link
}
