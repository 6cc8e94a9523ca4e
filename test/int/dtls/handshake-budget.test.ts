// The handshakes per address of our DTLS server (protocols/dtls/README.md, Handshakes per address) over real UDP on
// port 0, with our client: an address that spent its budget is refused and counted while another address, a second
// loopback one, completes its handshake; once the server's clock (injected, moved by the test) has refilled the
// budget, the refused client's own retransmission gets its handshake through.
import { once } from 'node:events'
import { describe, expect, it, onTestFinished } from 'vitest'
import { connectDtls, createDtlsServer, type DtlsClient, type DtlsServer } from '../../../protocols/dtls/index.js'

const PSK = Buffer.from('0f1e2d3c4b5a69788796a5b4c3d2e1f0', 'hex')
const A = '127.0.0.1'
const B = '127.0.0.2' // the whole of 127.0.0.0/8 is this machine's: another source address without a network

async function open (port: number, localAddress: string, identity: string): Promise<DtlsClient> {
  const client = await connectDtls({ host: A, port, identity, psk: PSK, localAddress })
  onTestFinished(async () => { await client.close() })
  return client
}

describe('handshakes per address over UDP', () => {
  it('refuses and counts an address over its budget, serves another meanwhile, and the first again once refilled', async () => {
    let now = 1_700_000_000_000
    const server: DtlsServer = createDtlsServer({ pskFor: async () => PSK, handshakesPerS: 1, handshakeBurst: 2, now: () => now })
    const { port } = await server.listen({ port: 0, host: A })
    onTestFinished(async () => { await server.close() })
    const refusedFrom: string[] = []
    server.on('refused', (reason: string, remote: { address: string }) => { if (reason === 'handshake.rate.limited') refusedFrom.push(remote.address) })

    await open(port, A, 'dev-a1')
    await open(port, A, 'dev-a2')
    const refused = once(server, 'refused') as Promise<[string]>
    const third = connectDtls({ host: A, port, identity: 'dev-a3', psk: PSK, localAddress: A })
    expect((await refused)[0]).toBe('handshake.rate.limited')
    expect(server.counters['handshake.rate.limited']).toBeGreaterThanOrEqual(1)

    // Another address has a budget of its own.
    const b = await open(port, B, 'dev-b1')
    expect(b.identity).toBe('dev-b1')
    expect(server.sessionCount).toBe(3)
    expect(new Set(refusedFrom)).toEqual(new Set([A]))

    // A second later by the server's clock, the client's next retransmission of its hello (1 s, doubling) starts it.
    now += 1000
    const client = await third
    onTestFinished(async () => { await client.close() })
    expect(server.sessionCount).toBe(4)
  })
})
