// The UDP binding (protocols/coap/udp.ts): two endpoints on loopback sockets, over IPv4 and IPv6, each both client
// and server; the peer keys it builds; what becomes of a request when the binding closes.
import { afterEach, describe, expect, it } from 'vitest'
import { CoapCode, coapRequest, uriPathOf } from '../../../protocols/coap/index.js'
import { listenUdp, parseUdpPeer, udpPeer, type UdpCoap } from '../../../protocols/coap/udp.js'

const open: UdpCoap[] = []
afterEach(async () => { await Promise.all(open.splice(0).map(async (u) => { await u.close() })) })

async function listen (type: 'udp4' | 'udp6', name: string): Promise<UdpCoap> {
  const u = await listenUdp({ type, address: type === 'udp4' ? '127.0.0.1' : '::1', handler: (req, peer) => ({ code: CoapCode.Content, payload: `${name} ${uriPathOf(req)} from ${peer}` }) })
  open.push(u)
  return u
}

describe('peer keys', () => {
  it('"address:port", "[v6]:port", and back', () => {
    expect(udpPeer('127.0.0.1', 5683)).toBe('127.0.0.1:5683')
    expect(udpPeer('::1', 5683)).toBe('[::1]:5683')
    expect(parseUdpPeer('[::1]:5683')).toEqual({ address: '::1', port: 5683 })
    expect(parseUdpPeer('10.1.2.3:61616')).toEqual({ address: '10.1.2.3', port: 61616 })
    expect(['', '1.2.3.4', '1.2.3.4:0', ':5683', '1.2.3.4:70000', 'dtls-session-7'].map(parseUdpPeer)).toEqual(Array(6).fill(undefined))
  })
})

describe.each(['udp4', 'udp6'] as const)('two endpoints over %s', (type) => {
  it('each serves the other over its one socket', async () => {
    const a = await listen(type, 'a')
    const b = await listen(type, 'b')
    const toB = udpPeer(b.address, b.port)
    const toA = udpPeer(a.address, a.port)
    const [fromB, fromA] = await Promise.all([a.endpoint.request(toB, coapRequest('GET', '/x')), b.endpoint.request(toA, coapRequest('GET', '/y'))])
    expect(fromB.payload.toString()).toBe(`b /x from ${toA}`)
    expect(fromA.payload.toString()).toBe(`a /y from ${toB}`)
  })
})

describe('closing', () => {
  it('fails a pending request with coap.closed and frees the port', async () => {
    const a = await listenUdp({ address: '127.0.0.1' })
    const silent = await listenUdp({ address: '127.0.0.1', handler: async () => await new Promise(() => {}), limits: { separateAfterMs: 60_000 } })
    open.push(silent)
    const pending = a.endpoint.request(udpPeer('127.0.0.1', silent.port), coapRequest('GET', '/'))
    await a.close()
    await expect(pending).rejects.toMatchObject({ code: 'coap.closed' })
    const again = await listenUdp({ address: '127.0.0.1', port: a.port })
    open.push(again)
    expect(again.port).toBe(a.port)
  })

  it('a peer key that is not address:port is counted as a send error, not thrown', async () => {
    const a = await listenUdp({ address: '127.0.0.1', params: { ackTimeoutMs: 10, maxRetransmit: 1 } })
    open.push(a)
    expect(await a.endpoint.ping('not-a-udp-peer').catch(() => 'threw')).toBe(false)
    expect(a.endpoint.counters.sendErrors).toBe(2)
  })
})
