// Plain CoAP on a UDP port (RFC 7252 §6.1 coap://): a dgram socket carrying one CoapEndpoint. The peer key is
// "address:port" ("[v6]:port" for IPv6), the same both ways, so requests to a device go to where it registered from.
import dgram from 'node:dgram'
import { once } from 'node:events'
import { CoapEndpoint, type EndpointOptions } from './endpoint.js'

export interface UdpEndpointOptions extends Omit<EndpointOptions, 'send'> {
  type?: 'udp4' | 'udp6'
  /** 0 (default) picks a free port. */
  port?: number
  /** Default: all interfaces. */
  address?: string
}

export interface UdpCoap {
  readonly endpoint: CoapEndpoint
  readonly socket: dgram.Socket
  readonly address: string
  readonly port: number
  /** Closes the endpoint (pending requests fail with coap.closed), then the socket. */
  close: () => Promise<void>
}

export const udpPeer = (address: string, port: number): string => (address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`)

/** The address and port of a udpPeer key; undefined for anything else. */
export function parseUdpPeer (peer: string): { address: string, port: number } | undefined {
  const colon = peer.lastIndexOf(':')
  if (colon <= 0) return undefined
  const port = Number(peer.slice(colon + 1))
  let address = peer.slice(0, colon)
  if (address.startsWith('[') && address.endsWith(']')) address = address.slice(1, -1)
  if (!Number.isInteger(port) || port < 1 || port > 65535 || address === '') return undefined
  return { address, port }
}

/** Binds a socket and starts an endpoint on it; resolves once listening. */
export async function listenUdp (o: UdpEndpointOptions = {}): Promise<UdpCoap> {
  const { type = 'udp4', port = 0, address, ...endpointOptions } = o
  const socket = dgram.createSocket({ type })
  const endpoint: CoapEndpoint = new CoapEndpoint({
    ...endpointOptions,
    send: (peer, datagram) => {
      const to = parseUdpPeer(peer)
      if (to === undefined) throw new Error(`not a UDP peer: ${peer}`)
      socket.send(datagram, to.port, to.address, (err) => { if (err !== null) endpoint.counters.sendErrors++ })
    }
  })
  socket.on('message', (datagram, rinfo) => { endpoint.receive(udpPeer(rinfo.address, rinfo.port), datagram) })
  const bound = once(socket, 'listening')
  socket.bind(port, address)
  try {
    await bound
  } catch (err) {
    endpoint.close()
    socket.close()
    throw err
  }
  // After binding, a socket error (an ICMP-reported failure…) concerns one datagram: counted, never fatal.
  socket.on('error', () => { endpoint.counters.sendErrors++ })
  const bound_ = socket.address()
  return {
    endpoint,
    socket,
    address: bound_.address,
    port: bound_.port,
    close: async () => {
      endpoint.close()
      await new Promise<void>((resolve) => { socket.close(() => { resolve() }) })
    }
  }
}
