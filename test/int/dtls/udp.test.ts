// Our client and our server over real UDP on 127.0.0.1 (port 0): round trips, several clients at once, close_notify
// both ways, the limits and timeouts as a device sees them, and a server that survives a flood of junk datagrams
// from many source ports without making a session.
import { createSocket } from 'node:dgram'
import { once } from 'node:events'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { connectDtls, createDtlsServer, type DtlsClient, type DtlsServer, type DtlsServerOptions, type DtlsSession } from '../../../protocols/dtls/index.js'
import { eventually } from '../../helpers/eventually.js'

const PSK = Buffer.from('a1b2c3d4e5f60718293a4b5c6d7e8f90', 'hex')
const pskFor = async (id: string): Promise<Buffer | undefined> => id.startsWith('dev-') ? PSK : undefined

async function startServer (options: Partial<DtlsServerOptions> = {}): Promise<{ server: DtlsServer, port: number }> {
  const server = createDtlsServer({ pskFor, ...options })
  const { port } = await server.listen({ port: 0, host: '127.0.0.1' })
  onTestFinished(async () => { await server.close() })
  return { server, port }
}

async function open (port: number, identity = 'dev-1', options: { handshakeTimeoutMs?: number, psk?: Buffer } = {}): Promise<DtlsClient> {
  const client = await connectDtls({ host: '127.0.0.1', port, identity, psk: options.psk ?? PSK, handshakeTimeoutMs: options.handshakeTimeoutMs })
  onTestFinished(async () => { await client.close() })
  return client
}

/** Echoes every message back with a prefix. */
function echo (server: DtlsServer): void {
  server.on('session', (s: DtlsSession) => s.on('message', (m: Buffer) => s.send(Buffer.concat([Buffer.from('echo:'), m]))))
}

describe('our client and our server over UDP', () => {
  it('handshake, a round trip, and the session names the identity and the client\'s address', async () => {
    const { server, port } = await startServer()
    echo(server)
    const sessionP = once(server, 'session') as Promise<[DtlsSession]>
    const client = await open(port)
    const [session] = await sessionP
    expect(session.identity).toBe('dev-1')
    expect(session.remote.address).toBe('127.0.0.1')
    const reply = once(client, 'message') as Promise<[Buffer]>
    client.send(Buffer.from('</3/0>'))
    expect((await reply)[0].toString()).toBe('echo:</3/0>')
  })

  it('serves several clients at once, each its own session', async () => {
    const { server, port } = await startServer()
    echo(server)
    const clients = await Promise.all(['dev-a', 'dev-b', 'dev-c', 'dev-d'].map(async (id) => await open(port, id)))
    const replies = await Promise.all(clients.map(async (c) => {
      const r = once(c, 'message') as Promise<[Buffer]>
      c.send(Buffer.from(c.identity))
      return (await r)[0].toString()
    }))
    expect(replies).toEqual(['echo:dev-a', 'echo:dev-b', 'echo:dev-c', 'echo:dev-d'])
    expect(server.sessionCount).toBe(4)
  })

  it('client close → the session closes with peer.close_notify; session close → the client closes', async () => {
    const { server, port } = await startServer()
    const sessions: DtlsSession[] = []
    server.on('session', (s: DtlsSession) => sessions.push(s))
    const a = await open(port)
    await eventually(() => sessions.length === 1, { what: 'the session' })
    const closedA = once(sessions[0]!, 'close') as Promise<[string]>
    await a.close()
    expect((await closedA)[0]).toBe('peer.close_notify')

    const b = await open(port)
    await eventually(() => sessions.length === 2, { what: 'the second session' })
    const closedB = once(b, 'close') as Promise<[string]>
    sessions[1]!.close()
    expect((await closedB)[0]).toBe('peer.close_notify')
    await eventually(() => server.sessionCount === 0, { what: 'no session left' })
  })

  it('a wrong key fails the client with dtls.alert.decrypt_error and is counted', async () => {
    const { server, port } = await startServer()
    await expect(open(port, 'dev-1', { psk: Buffer.alloc(16, 7) })).rejects.toMatchObject({ code: 'dtls.alert.decrypt_error' })
    expect(server.counters['bad.finished']).toBe(1)
    await expect(open(port, 'other-1')).rejects.toMatchObject({ code: 'dtls.alert.decrypt_error' })
    expect(server.counters['unknown.identity']).toBe(1)
    expect(server.sessionCount).toBe(0)
  })

  it('maxSessions: the client past the limit gets no answer and times out; the refusal is counted', async () => {
    const { server, port } = await startServer({ maxSessions: 1 })
    await open(port, 'dev-1')
    await expect(open(port, 'dev-2', { handshakeTimeoutMs: 500 })).rejects.toMatchObject({ code: 'dtls.handshake.timeout' })
    expect(server.counters['too.many.sessions']).toBeGreaterThan(0)
  })

  it('idleTimeoutMs: a silent session is closed and its client told', async () => {
    const { port } = await startServer({ idleTimeoutMs: 200 })
    const client = await open(port)
    const [reason] = await once(client, 'close') as [string]
    expect(reason).toBe('peer.close_notify')
  })

  it('handshakeTimeoutMs: a peer that stops after its second hello is dropped and counted', async () => {
    const { server, port } = await startServer({ handshakeTimeoutMs: 200, retransmitMs: 60_000 })
    const { ClientConnection } = await import('../../../protocols/dtls/index.js')
    const conn = new ClientConnection({ identity: 'dev-1', psk: PSK })
    const sock = createSocket('udp4')
    onTestFinished(() => { sock.close() })
    sock.connect(port, '127.0.0.1')
    await once(sock, 'connect')
    sock.on('message', (m) => {
      // Answer the HelloVerifyRequest only: the handshake then waits for a key exchange that never comes.
      conn.receive(m).then((out) => { if (server.handshakeCount === 0) for (const d of out.datagrams) sock.send(d) }).catch(() => {})
    })
    for (const d of conn.start().datagrams) sock.send(d)
    await eventually(() => server.handshakeCount === 1, { what: 'the handshake to start' })
    await eventually(() => server.counters['handshake.timeout'] === 1, { what: 'the handshake deadline' })
    expect(server.handshakeCount).toBe(0)
    expect(server.sessionCount).toBe(0)
  })
})

describe('a flood of junk datagrams', () => {
  let server: DtlsServer
  let port: number
  beforeAll(async () => {
    server = createDtlsServer({ pskFor })
    echo(server)
    port = (await server.listen({ port: 0, host: '127.0.0.1' })).port
  })
  afterAll(async () => { await server?.close() })

  it('makes no session, faults nowhere, and the server still serves a real client afterwards', async () => {
    const socks = Array.from({ length: 8 }, () => createSocket('udp4'))
    onTestFinished(() => { for (const s of socks) s.close() })
    // One refusal per junk datagram from a stranger: awaited before the next is sent, so that the flood does not
    // outrun the socket's receive buffer (a datagram lost there would test nothing).
    const before = Object.values(server.counters).reduce((a, b) => a + b, 0)
    await fc.assert(fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 1400 }), fc.nat(socks.length - 1), async (bytes, i) => {
      const refused = once(server, 'refused')
      socks[i]!.send(bytes, port, '127.0.0.1')
      await refused
    }), { numRuns: 400 })
    expect(Object.values(server.counters).reduce((a, b) => a + b, 0) - before).toBe(400)
    expect(server.sessionCount).toBe(0)
    expect(server.counters['internal.error']).toBe(0)

    const client = await open(port)
    const reply = once(client, 'message') as Promise<[Buffer]>
    client.send(Buffer.from('ping'))
    expect((await reply)[0].toString()).toBe('echo:ping')
  })
})
