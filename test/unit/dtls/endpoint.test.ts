// The endpoint's bookkeeping, in memory: close_notify both ways, limits on sessions and handshakes, the handshake
// deadline and the idle timeout (short real timers, awaited with eventually), a peer starting over from the same
// address, and fatal alerts sealed once the sender's epoch is 1.
import { describe, expect, it } from 'vitest'
import { eventually } from '../../helpers/eventually.js'
import { connect, makeClient, makeServer, pump, REMOTE } from './harness.js'
import { hasEpoch1, recordsOf } from './records.js'

const OTHER = { address: '192.0.2.11', port: 40001 }

describe('closing', () => {
  it('a client close_notify closes the session (peer.close_notify) and is answered', async () => {
    const server = makeServer()
    const { client, session } = await connect(server)
    const closes: string[] = []
    session.on('close', (r: string) => closes.push(r))
    for (const d of client.close()) await server.endpoint.handle(d, REMOTE)
    expect(closes).toEqual(['peer.close_notify'])
    expect(session.closed).toBe(true)
    expect(session.send(Buffer.from('late'))).toBe(false)
    expect(server.endpoint.sessionCount).toBe(0)
    expect(recordsOf(server.outbox[0]!.datagram)[0]).toMatchObject({ type: 21, epoch: 1 })
  })

  it('session.close() sends an encrypted close_notify the client reads', async () => {
    const server = makeServer()
    const { client, session } = await connect(server)
    const closes: string[] = []
    session.on('close', (r: string) => closes.push(r))
    session.close()
    expect(closes).toEqual(['local.close'])
    const out = await client.receive(server.outbox.pop()!.datagram)
    expect(out.closed).toBe('peer.close_notify')
  })

  it('endpoint.close() closes every session with server.closed', async () => {
    const server = makeServer()
    const a = await connect(server)
    const b = await connect(server, makeClient(), OTHER)
    const closes: string[] = []
    for (const s of [a.session, b.session]) s.on('close', (r: string) => closes.push(r))
    server.endpoint.close()
    expect(closes).toEqual(['server.closed', 'server.closed'])
    expect(server.endpoint.sessionCount).toBe(0)
  })
})

describe('fatal alerts', () => {
  it('are sealed in epoch 1 once the sender has switched: a client refusing the server\'s Finished', async () => {
    const server = makeServer()
    const client = makeClient()
    const clientAlerts: Buffer[] = []
    let tampered = false
    const log = await pump(server, client, client.start().datagrams, (dir, d) => {
      if (dir === 'to-client' && hasEpoch1(d) && !tampered) {
        tampered = true
        const bad = Buffer.from(d)
        bad[bad.length - 1]! ^= 1 // the server's Finished fails authentication at the client
        return [bad]
      }
      if (dir === 'to-server' && recordsOf(d).some((r) => r.type === 21)) clientAlerts.push(d)
      return [d]
    })
    expect(log.closed).toBe('refused.bad.finished')
    const [alert] = recordsOf(clientAlerts[0]!)
    expect(alert).toMatchObject({ type: 21, epoch: 1 })
    expect(alert?.fragment.length).toBe(8 + 2 + 8) // explicit nonce, the two alert bytes sealed, tag
    expect(server.sessions[0]?.closed).toBe(true) // the server read it: the session it had established is closed
  })
})

describe('a peer starting over from the same address', () => {
  it('a retransmitted ClientHello of the handshake in progress is answered by that handshake, not a new one', async () => {
    const server = makeServer()
    const client = makeClient()
    const hello1 = client.start().datagrams[0]!
    await server.endpoint.handle(hello1, REMOTE)
    const out = await client.receive(server.outbox.shift()!.datagram)
    const hello2 = out.datagrams[0]!
    await server.endpoint.handle(hello2, REMOTE)
    const flight = server.outbox.splice(0)
    await server.endpoint.handle(hello2, REMOTE) // the same datagram again: a replay, nothing new
    await server.endpoint.handle(client.timeout().datagrams[0]!, REMOTE) // a real retransmission: new record number
    expect(server.outbox.length).toBe(flight.length) // the flight again, once
    expect(server.endpoint.handshakeCount).toBe(1)
    expect(server.endpoint.counters.replay).toBe(1)
  })

  it('a new handshake (another random) from an established peer replaces the old session once its cookie is good', async () => {
    const server = makeServer()
    const first = await connect(server)
    const closes: string[] = []
    first.session.on('close', (r: string) => closes.push(r))
    const second = await connect(server)
    expect(closes).toEqual(['replaced'])
    expect(second.session.closed).toBe(false)
    expect(server.endpoint.sessionCount).toBe(1)
  })
})

describe('limits', () => {
  it('maxSessions: a handshake past the limit is refused after the cookie exchange and counted', async () => {
    const server = makeServer({ maxSessions: 1 })
    await connect(server)
    const client = makeClient()
    const log = await pump(server, client, client.start().datagrams, undefined, OTHER)
    expect(log.established).toBe(false)
    expect(server.endpoint.counters['too.many.sessions']).toBe(1)
    expect(server.endpoint.sessionCount).toBe(1)
  })

  it('maxHandshakes: a second handshake in progress is refused and counted', async () => {
    const server = makeServer({ maxHandshakes: 1 })
    const a = makeClient()
    await pump(server, a, a.start().datagrams, (dir, d) => dir === 'to-server' && hasEpoch1(d) ? [] : [d])
    expect(server.endpoint.handshakeCount).toBe(1)
    const b = makeClient()
    await pump(server, b, b.start().datagrams, undefined, OTHER)
    expect(server.endpoint.counters['too.many.handshakes']).toBe(1)
    expect(server.endpoint.sessionCount).toBe(1)
  })

  it('handshakeTimeoutMs: a stalled handshake is dropped and counted', async () => {
    const server = makeServer({ handshakeTimeoutMs: 30, retransmitMs: 10_000 })
    const a = makeClient()
    await pump(server, a, a.start().datagrams, (dir, d) => dir === 'to-server' && hasEpoch1(d) ? [] : [d])
    expect(server.endpoint.handshakeCount).toBe(1)
    await eventually(() => server.endpoint.counters['handshake.timeout'] === 1, { what: 'the handshake deadline' })
    expect(server.endpoint.handshakeCount).toBe(0)
    expect(server.endpoint.sessionCount).toBe(0)
  })

  it('retransmitMs / maxRetransmits: the server resends its flight on its timer, then gives up', async () => {
    const server = makeServer({ retransmitMs: 10, maxRetransmits: 2 })
    const a = makeClient()
    await pump(server, a, a.start().datagrams, (dir, d) => dir === 'to-server' && hasEpoch1(d) ? [] : [d])
    await eventually(() => server.endpoint.counters['handshake.timeout'] === 1, { what: 'retransmissions to run out' })
    expect(server.outbox.length).toBe(2) // the flight (one datagram) twice
    expect(server.endpoint.sessionCount).toBe(0)
  })

  it('idleTimeoutMs: a session that hears nothing is closed with close_notify', async () => {
    const server = makeServer({ idleTimeoutMs: 40 })
    const { client, session } = await connect(server)
    const closes: string[] = []
    session.on('close', (r: string) => closes.push(r))
    await eventually(() => closes.length > 0, { what: 'the idle timeout' })
    expect(closes).toEqual(['idle.timeout'])
    const out = await client.receive(server.outbox.pop()!.datagram)
    expect(out.closed).toBe('peer.close_notify')
  })
})
