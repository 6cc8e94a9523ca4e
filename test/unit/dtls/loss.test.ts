// A lossy, repeating, reordering network between our client and our server, in memory: lost flights are recovered
// by the retransmission timer (RFC 6347 §4.2.4) and by answering the peer's retransmitted flight; repeated records
// are refused by the anti-replay window (§4.1.2.6); fragmented flights are reassembled (§4.2.3).
import { describe, expect, it } from 'vitest'
import { encodeHandshake, encodeRecord, parseHandshakeFragments, readClientHello, ServerConnection, type DtlsSession } from '../../../protocols/dtls/index.js'
import { connect, makeClient, makeServer, note, PSK, pump, REMOTE, type ClientLog } from './harness.js'
import { handshakeTypes, hasEpoch1, recordsOf } from './records.js'

/** A filter that drops the first datagram in `direction` matching `match`. */
function dropFirst (direction: 'to-server' | 'to-client', match: (d: Buffer) => boolean): (dir: string, d: Buffer) => Buffer[] {
  let dropped = false
  return (dir, d) => {
    if (!dropped && dir === direction && match(d)) {
      dropped = true
      return []
    }
    return [d]
  }
}

describe('lost flights', () => {
  it('a lost ServerHello flight: the client retransmits its hello, the server answers with its flight again', async () => {
    const server = makeServer()
    const client = makeClient()
    let log = await pump(server, client, client.start().datagrams, dropFirst('to-client', (d) => handshakeTypes(d).includes(2)))
    expect(log.established).toBe(false)
    expect(client.timer).toBeDefined()
    log = await pump(server, client, client.timeout().datagrams)
    expect(log.established).toBe(true)
    expect(server.sessions).toHaveLength(1)
  })

  it('a lost client final flight: the client retransmits it on its timer', async () => {
    const server = makeServer()
    const client = makeClient()
    let log = await pump(server, client, client.start().datagrams, dropFirst('to-server', hasEpoch1))
    expect(log.established).toBe(false)
    log = await pump(server, client, client.timeout().datagrams)
    expect(log.established).toBe(true)
  })

  it('a lost server Finished: the server, established, answers the client\'s retransmitted flight with its own', async () => {
    const server = makeServer()
    const client = makeClient()
    let log = await pump(server, client, client.start().datagrams, dropFirst('to-client', hasEpoch1))
    expect(log.established).toBe(false)
    expect(server.sessions).toHaveLength(1) // the server finished first
    log = await pump(server, client, client.timeout().datagrams)
    expect(log.established).toBe(true)
    expect(server.sessions).toHaveLength(1)
    // The retransmitted epoch-0 records (ClientKeyExchange, ChangeCipherSpec) are dropped without being refusals.
    expect(Object.values(server.endpoint.counters).every((n) => n === 0)).toBe(true)
  })

  it('the server retransmits its flight on its timer, with new sequence numbers, and gives up after maxRetransmits', () => {
    const client = makeClient()
    const accepted = readClientHello(client.start().datagrams[0]!)
    if (!accepted.ok) throw new Error('no hello')
    const conn = new ServerConnection({ pskFor: async () => PSK, maxRetransmits: 2, retransmitMs: 100 }, accepted.value)
    const first = conn.start()
    expect(conn.timer).toEqual({ id: expect.any(Number), ms: 100 })
    const again = conn.timeout()
    expect(again.datagrams.map(handshakeTypes)).toEqual(first.datagrams.map(handshakeTypes))
    const seqs = (ds: Buffer[]): number[] => ds.flatMap((d) => recordsOf(d).map((r) => r.seq))
    expect(Math.min(...seqs(again.datagrams))).toBeGreaterThan(Math.max(...seqs(first.datagrams)))
    expect(conn.timer?.ms).toBe(200) // doubled (RFC 6347 §4.2.4.1)
    conn.timeout()
    const last = conn.timeout()
    expect(last.closed).toBe('handshake.timeout')
    expect(last.refused).toEqual(['handshake.timeout'])
    expect(conn.timer).toBeUndefined()
  })
})

describe('repeated and reordered records', () => {
  it('every datagram twice: one session, the repeats refused as replays', async () => {
    const server = makeServer()
    const client = makeClient()
    const log = await pump(server, client, client.start().datagrams, (_dir, d) => [d, d])
    expect(log.established).toBe(true)
    expect(server.sessions).toHaveLength(1)
    expect(server.endpoint.counters.replay).toBeGreaterThan(0)
  })

  it('application data: a replay is refused and counted, reordering inside the window is delivered', async () => {
    const server = makeServer()
    const { client, session } = await connect(server)
    const got: string[] = []
    session.on('message', (m: Buffer) => got.push(m.toString()))
    const ds = ['a', 'b', 'c'].map((s) => client.send(Buffer.from(s)))
    for (const d of [ds[2]!, ds[0]!, ds[1]!, ds[0]!]) await server.endpoint.handle(d, REMOTE)
    expect(got).toEqual(['c', 'a', 'b'])
    expect(server.endpoint.counters.replay).toBe(1)
  })

  it('a tampered record is dropped and counted as bad.auth; the session goes on', async () => {
    const server = makeServer()
    const { client, session } = await connect(server)
    const got: string[] = []
    session.on('message', (m: Buffer) => got.push(m.toString()))
    const d = client.send(Buffer.from('reading'))
    const bad = Buffer.from(d)
    bad[bad.length - 1]! ^= 1
    await server.endpoint.handle(bad, REMOTE)
    await server.endpoint.handle(d, REMOTE) // the real one, same sequence number: not marked by the forgery
    expect(got).toEqual(['reading'])
    expect(server.endpoint.counters['bad.auth']).toBe(1)
  })

  it('a record of an epoch without keys is dropped and counted', async () => {
    const server = makeServer()
    const { client, session } = await connect(server)
    const closes: string[] = []
    session.on('close', (r: string) => closes.push(r))
    await server.endpoint.handle(encodeRecord({ type: 23, version: 0xfefd, epoch: 5, seq: 1, fragment: Buffer.alloc(20) }), REMOTE)
    expect(server.endpoint.counters['unknown.epoch']).toBe(1)
    expect(closes).toEqual([])
    expect(client.state).toBe('established')
  })
})

describe('fragmentation', () => {
  it('a server flight cut into many small datagrams, delivered in reverse, is reassembled by the client', async () => {
    const server = makeServer({ mtu: 64, identityHint: 'a-rather-long-identity-hint-to-cut-into-pieces' })
    const client = makeClient()
    const log = await pump(server, client, client.start().datagrams, (dir, d) => [d])
    expect(log.established).toBe(true)
    // The same with the server's datagrams reversed within each flight.
    const server2 = makeServer({ mtu: 64, identityHint: 'a-rather-long-identity-hint-to-cut-into-pieces' })
    const client2 = makeClient()
    const log2: ClientLog = { data: [], closed: undefined, established: false }
    let toServer = client2.start().datagrams
    for (let round = 0; round < 10 && !log2.established; round++) {
      for (const d of toServer) await server2.endpoint.handle(d, REMOTE)
      toServer = []
      // Reversed within the ServerHello flight; the last flight is left in order, since a Finished ahead of its
      // ChangeCipherSpec is of an epoch not yet readable and is dropped (RFC 6347 §4.1), recovered only by a retransmission.
      const batch = server2.outbox.splice(0)
      if (!batch.some((o) => hasEpoch1(o.datagram))) batch.reverse()
      for (const { datagram } of batch) {
        const out = await client2.receive(datagram)
        note(log2, out)
        toServer.push(...out.datagrams)
      }
    }
    expect(log2.established).toBe(true)
    expect(server2.sessions).toHaveLength(1)
  })

  it('a ClientKeyExchange cut into fragments that arrive out of order is reassembled by the server', async () => {
    const server = makeServer({ pskFor: async () => PSK })
    const client = makeClient({ identity: 'an-identity-long-enough-to-cut-into-three-pieces' })
    const finalFlight: Buffer[] = []
    await pump(server, client, client.start().datagrams, (dir, d) => {
      if (dir === 'to-server' && hasEpoch1(d)) {
        finalFlight.push(d)
        return []
      }
      return [d]
    })
    const records = recordsOf(finalFlight[0]!)
    const kx = records.find((r) => r.type === 22 && r.epoch === 0)!
    const parsed = parseHandshakeFragments(kx.fragment)
    const m = parsed.ok ? parsed.fragments[0]! : undefined
    if (m === undefined) throw new Error('no ClientKeyExchange')
    const whole = encodeHandshake(m.msgType, m.messageSeq, m.body).subarray(12)
    const cut = [0, 17, 34].map((at) => {
      const piece = whole.subarray(at, at + 17)
      const header = Buffer.alloc(12)
      header.writeUInt8(m.msgType, 0)
      header.writeUIntBE(m.length, 1, 3)
      header.writeUInt16BE(m.messageSeq, 4)
      header.writeUIntBE(at, 6, 3)
      header.writeUIntBE(piece.length, 9, 3)
      return encodeRecord({ type: 22, version: 0xfefd, epoch: 0, seq: 1000 + at, fragment: Buffer.concat([header, piece]) })
    })
    // The ChangeCipherSpec renumbered after the pieces, so that the replay window does not find it too old.
    const rest = records.filter((r) => r !== kx).map((r, i) => encodeRecord({ ...r, version: 0xfefd, seq: r.epoch === 0 ? 1100 + i : r.seq }))
    const sessions: DtlsSession[] = []
    server.endpoint.on('session', (s: DtlsSession) => sessions.push(s))
    await server.endpoint.handle(Buffer.concat([cut[2]!, cut[0]!, cut[1]!, ...rest]), REMOTE)
    expect(Object.values(server.endpoint.counters).every((n) => n === 0)).toBe(true)
    expect(sessions).toHaveLength(1)
    expect(sessions[0]?.identity).toBe('an-identity-long-enough-to-cut-into-three-pieces')
  })
})
