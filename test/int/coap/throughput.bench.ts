// Not a test: a small measurement of request throughput (npx tsx test/int/coap/throughput.bench.ts). One endpoint
// pair in memory (datagrams handed over on a microtask), then two UDP endpoints on loopback; CON GET answered
// piggybacked with a 16-byte payload. NSTART=1 per peer (the default) makes one peer's requests sequential, so
// concurrency comes from several peers in memory, and from a larger NSTART over the one UDP peer.
import { CoapCode, CoapEndpoint, coapRequest, type RequestHandler } from '../../../protocols/coap/index.js'
import { listenUdp, udpPeer } from '../../../protocols/coap/udp.js'

const handler: RequestHandler = () => ({ code: CoapCode.Content, payload: '0123456789abcdef' })
const request = coapRequest('GET', '/3/0/1')

async function measure (label: string, total: number, lanes: number, send: (lane: number) => Promise<unknown>): Promise<void> {
  let next = 0
  const started = process.hrtime.bigint()
  await Promise.all(Array.from({ length: lanes }, async (_, lane) => {
    while (next++ < total) await send(lane)
  }))
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  console.log(`${label}: ${total} requests in ${seconds.toFixed(2)} s = ${Math.round(total / seconds)} requests/s`)
}

async function inMemory (lanes: number, total: number): Promise<void> {
  // A's peer "B<k>" is B's peer "A<k>": one logical device per lane.
  const ends: { a?: CoapEndpoint, b?: CoapEndpoint } = {}
  ends.a = new CoapEndpoint({ send: (peer, buf) => { queueMicrotask(() => { ends.b?.receive(`A${peer.slice(1)}`, buf) }) } })
  ends.b = new CoapEndpoint({ handler, send: (peer, buf) => { queueMicrotask(() => { ends.a?.receive(`B${peer.slice(1)}`, buf) }) } })
  const a = ends.a
  await measure(`in memory, ${lanes} peer(s)`, total, lanes, async (lane) => await a.request(`B${lane}`, request))
  ends.a.close()
  ends.b.close()
}

async function overUdp (nstart: number, total: number): Promise<void> {
  const server = await listenUdp({ address: '127.0.0.1', handler })
  const client = await listenUdp({ address: '127.0.0.1', params: { nstart }, limits: { maxPendingPerPeer: nstart } })
  const to = udpPeer('127.0.0.1', server.port)
  await measure(`UDP loopback, NSTART ${nstart}`, total, nstart, async () => await client.endpoint.request(to, request))
  console.log(`  retransmissions ${client.endpoint.counters.retransmissions}, server duplicates ${server.endpoint.counters.duplicates}`)
  await client.close()
  await server.close()
}

await inMemory(1, 20_000) // warm-up
await inMemory(1, 50_000)
await inMemory(64, 100_000)
await overUdp(1, 10_000)
await overUdp(32, 50_000)
