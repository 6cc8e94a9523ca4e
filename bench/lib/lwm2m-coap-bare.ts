// bench lwm2m's part `coap`: what the project's CoAP layer (protocols/coap) answers alone, no service, no store, as
// the ceiling the LwM2M figures sit under. In this one process: a CON GET answered piggybacked with a 16-byte payload,
// first between two endpoints in memory (each datagram handed over on a microtask: the protocol's own cost), then
// between two UDP endpoints on loopback. NSTART=1 per peer (RFC 7252 §4.7, the default) makes one peer's requests
// sequential: concurrency comes from several peers in memory, and from a larger NSTART over the one UDP peer.
import { CoapCode, CoapEndpoint, coapRequest, type RequestHandler } from '../../protocols/coap/index.js'
import { listenUdp, udpPeer } from '../../protocols/coap/udp.js'

export interface CoapFigure { label: string, requests: number, seconds: number, perS: number, retransmissions: number, duplicates: number }

const handler: RequestHandler = () => ({ code: CoapCode.Content, payload: '0123456789abcdef' })
const request = coapRequest('GET', '/3/0/1')

/** `total` requests over `lanes` loops, each waiting for its answer before the next. */
async function timed (total: number, lanes: number, send: (lane: number) => Promise<unknown>): Promise<{ requests: number, seconds: number }> {
  let next = 0
  const t0 = performance.now()
  await Promise.all(Array.from({ length: lanes }, async (_, lane) => {
    while (next++ < total) await send(lane)
  }))
  return { requests: total, seconds: (performance.now() - t0) / 1000 }
}

async function inMemory (lanes: number, total: number): Promise<CoapFigure> {
  // A's peer "B<k>" is B's peer "A<k>": one logical device per lane.
  const ends: { a?: CoapEndpoint, b?: CoapEndpoint } = {}
  const a = new CoapEndpoint({ send: (peer, buf) => { queueMicrotask(() => { ends.b?.receive(`A${peer.slice(1)}`, buf) }) } })
  const b = new CoapEndpoint({ handler, send: (peer, buf) => { queueMicrotask(() => { ends.a?.receive(`B${peer.slice(1)}`, buf) }) } })
  Object.assign(ends, { a, b })
  try {
    const t = await timed(total, lanes, async (lane) => await a.request(`B${lane}`, request))
    return { label: `in memory, ${lanes} peer${lanes === 1 ? '' : 's'}`, ...t, perS: t.requests / t.seconds, retransmissions: a.counters.retransmissions, duplicates: b.counters.duplicates }
  } finally {
    a.close()
    b.close()
  }
}

async function overUdp (nstart: number, total: number): Promise<CoapFigure> {
  const server = await listenUdp({ address: '127.0.0.1', handler })
  const client = await listenUdp({ address: '127.0.0.1', params: { nstart }, limits: { maxPendingPerPeer: nstart } })
  const to = udpPeer('127.0.0.1', server.port)
  try {
    const t = await timed(total, nstart, async () => await client.endpoint.request(to, request))
    return { label: `UDP loopback, NSTART ${nstart}`, ...t, perS: t.requests / t.seconds, retransmissions: client.endpoint.counters.retransmissions, duplicates: server.endpoint.counters.duplicates }
  } finally {
    await client.close()
    await server.close()
  }
}

/** The four measurements, after a warm-up in memory; `requests` per measurement (in memory with 64 peers: twice). */
export async function coapBare (requests: number): Promise<CoapFigure[]> {
  await inMemory(1, Math.max(1000, requests / 5))
  return [
    await inMemory(1, requests),
    await inMemory(64, 2 * requests),
    await overUdp(1, requests / 5),
    await overUdp(32, requests)
  ]
}
