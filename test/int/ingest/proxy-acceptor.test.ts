// acceptProxied (ingest/proxy-protocol.ts) on a real TCP server: the header's client reaches the handler with the
// bytes after it intact; a peer outside TRUST_PROXY is closed even with a valid header; a LOCAL header (the proxy's
// health check) keeps the peer's own address; switched off, the socket's address is used and nothing is read.
import { connect, createServer, type Server, type Socket } from 'node:net'
import { once } from 'node:events'
import { afterEach, describe, expect, it } from 'vitest'
import pino from 'pino'
import { noMetrics } from '../../../core/metrics.js'
import { acceptProxied, type ProxyProtocolOptions } from '../../../ingest/proxy-protocol.js'
import { V2_SIGNATURE } from '../../../protocols/proxy/header.js'

const options = (o: Partial<ProxyProtocolOptions>): ProxyProtocolOptions =>
  ({ transport: 'test', enabled: true, trusted: ['127.0.0.1'], timeoutMs: 5000, metrics: noMetrics, log: pino({ level: 'silent' }), ...o })

let server: Server | undefined
afterEach(async () => { server?.close(); server = undefined })

/** A server whose handler answers each connection's client address and first bytes; what a client then sees. */
async function exchange (opts: ProxyProtocolOptions, send: Buffer): Promise<{ address: string, bytes: string } | 'closed'> {
  const served = new Promise<{ address: string, bytes: string }>((resolve) => {
    server = createServer(acceptProxied(opts, (socket: Socket, address) => {
      socket.once('data', (b: Buffer) => { resolve({ address, bytes: b.toString() }); socket.end() })
    }))
  })
  server?.listen(0, '127.0.0.1')
  await once(server as Server, 'listening')
  const address = server?.address()
  const client = connect(typeof address === 'object' && address !== null ? address.port : 0, '127.0.0.1')
  client.on('error', () => {})
  client.write(send)
  const closed = once(client, 'close').then(() => 'closed' as const)
  return await Promise.race([served, closed])
}

const local = Buffer.concat([Buffer.from(V2_SIGNATURE), Buffer.from([0x20, 0x00, 0, 0])])

describe('acceptProxied', () => {
  it('hands the header\'s client and the bytes after the header to the handler', async () => {
    expect(await exchange(options({}), Buffer.from('PROXY TCP4 203.0.113.7 127.0.0.1 1 2\r\nhello'))).toEqual({ address: '203.0.113.7', bytes: 'hello' })
  })

  it('closes a connection from a peer outside TRUST_PROXY, header or not', async () => {
    expect(await exchange(options({ trusted: ['10.0.0.1'] }), Buffer.from('PROXY TCP4 203.0.113.7 127.0.0.1 1 2\r\nhello'))).toBe('closed')
    expect(await exchange(options({ trusted: [] }), Buffer.from('PROXY TCP4 203.0.113.7 127.0.0.1 1 2\r\nhello'))).toBe('closed')
  })

  it('keeps the peer\'s own address for a LOCAL header, and closes on bytes that are no header', async () => {
    expect(await exchange(options({}), Buffer.concat([local, Buffer.from('ping')]))).toEqual({ address: '127.0.0.1', bytes: 'ping' })
    expect(await exchange(options({}), Buffer.from('\x10\x0c\x00\x04MQTT'))).toBe('closed')
  })

  it('switched off, reads no header: the socket\'s address and its bytes as they came', async () => {
    expect(await exchange(options({ enabled: false, trusted: [] }), Buffer.from('PROXY TCP4 203.0.113.7 127.0.0.1 1 2\r\n'))).toEqual({ address: '127.0.0.1', bytes: 'PROXY TCP4 203.0.113.7 127.0.0.1 1 2\r\n' })
  })
})
