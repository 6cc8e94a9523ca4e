// Whole handshakes between our ClientConnection and a DtlsEndpoint, in memory: the cookie exchange, the PSK lookup,
// Finished both ways, application data, and every way a handshake is refused (wrong key, unknown identity, a lookup
// that fails, no common suite or version), each answered with the RFC's alert and counted.
import { describe, expect, it } from 'vitest'
import { parseHelloVerifyRequest, parseHandshakeFragments } from '../../../protocols/dtls/index.js'
import { connect, IDENTITY, makeClient, makeServer, pump, REMOTE } from './harness.js'
import { baseHello, handshakeTypes, helloDatagram, plainAlert, recordsOf } from './records.js'

describe('a handshake between our client and our server', () => {
  it('answers the first ClientHello with a HelloVerifyRequest and keeps no state for it', async () => {
    const server = makeServer()
    const client = makeClient()
    const [hello] = client.start().datagrams
    await server.endpoint.handle(hello!, REMOTE)
    expect(server.outbox).toHaveLength(1)
    expect(handshakeTypes(server.outbox[0]!.datagram)).toEqual([3])
    // RFC 6347 §4.2.1: the HelloVerifyRequest reuses the ClientHello's record sequence number and message_seq.
    const [hvr] = recordsOf(server.outbox[0]!.datagram)
    expect(hvr?.seq).toBe(recordsOf(hello!)[0]?.seq)
    expect(server.endpoint.sessionCount).toBe(0)
    expect(server.endpoint.handshakeCount).toBe(0)
  })

  it('establishes: the session has the identity and the remote, and data flows both ways', async () => {
    const server = makeServer()
    const { client, session } = await connect(server)
    expect(session.identity).toBe(IDENTITY)
    expect(session.remote).toEqual(REMOTE)
    expect(server.endpoint.sessionCount).toBe(1)
    expect(server.endpoint.handshakeCount).toBe(0)

    const got: string[] = []
    session.on('message', (m: Buffer) => got.push(m.toString()))
    await server.endpoint.handle(client.send(Buffer.from('POST /rd')), REMOTE)
    expect(got).toEqual(['POST /rd'])

    expect(session.send(Buffer.from('2.01 Created'))).toBe(true)
    const out = await client.receive(server.outbox.pop()!.datagram)
    expect(out.data.map(String)).toEqual(['2.01 Created'])
    expect(Object.values(server.endpoint.counters).every((n) => n === 0)).toBe(true)
  })

  it('sends ServerKeyExchange with the identity hint only when one is configured', async () => {
    const withHint = makeServer({ identityHint: 'fleet' })
    const a = await connect(withHint)
    expect(a.client.hint?.toString()).toBe('fleet')
    const without = makeServer()
    const b = await connect(without)
    expect(b.client.hint).toBeUndefined()
  })

  it('establishes without extended master secret when the client does not offer it', async () => {
    const server = makeServer()
    const { client, session } = await connect(server, makeClient({ extendedMasterSecret: false }))
    const got: string[] = []
    session.on('message', (m: Buffer) => got.push(m.toString()))
    await server.endpoint.handle(client.send(Buffer.from('x')), REMOTE)
    expect(got).toEqual(['x'])
  })

  it('refuses a wrong key: decrypt_error in epoch 0, bad.finished counted, no session', async () => {
    const server = makeServer()
    const client = makeClient({ psk: Buffer.from('ffffffffffffffffffffffffffffffff', 'hex') })
    const alerts: number[][] = []
    const log = await pump(server, client, client.start().datagrams, (dir, d) => {
      const alert = dir === 'to-client' ? plainAlert(d) : undefined
      if (alert !== undefined) alerts.push(alert)
      return [d]
    })
    expect(log.established).toBe(false)
    expect(log.closed).toBe('alert.decrypt_error')
    expect(alerts).toEqual([[2, 51]])
    expect(server.endpoint.counters['bad.finished']).toBe(1)
    expect(server.endpoint.sessionCount).toBe(0)
    expect(server.sessions).toHaveLength(0)
  })

  it('refuses an unknown identity as a wrong key by default (RFC 4279 §2), counted as unknown.identity', async () => {
    const server = makeServer()
    const client = makeClient({ identity: 'stranger' })
    const log = await pump(server, client, client.start().datagrams)
    expect(log.closed).toBe('alert.decrypt_error')
    expect(server.endpoint.counters['unknown.identity']).toBe(1)
    expect(server.endpoint.counters['bad.finished']).toBe(0)
  })

  it('says unknown_psk_identity at once when configured to', async () => {
    const server = makeServer({ unknownIdentityAlert: 'unknown_psk_identity' })
    const client = makeClient({ identity: 'stranger' })
    const log = await pump(server, client, client.start().datagrams)
    expect(log.closed).toBe('alert.unknown_psk_identity')
    expect(server.endpoint.counters['unknown.identity']).toBe(1)
  })

  it('answers internal_error when pskFor fails, and the server goes on', async () => {
    const server = makeServer({ pskFor: async () => { throw new Error('store down') } })
    const client = makeClient()
    const log = await pump(server, client, client.start().datagrams)
    expect(log.closed).toBe('alert.internal_error')
    expect(server.endpoint.counters['psk.lookup.failed']).toBe(1)
    expect(server.endpoint.sessionCount).toBe(0)
  })

  it('calls pskFor once per handshake, with the identity as text', async () => {
    const asked: string[] = []
    const server = makeServer({ pskFor: async (id) => { asked.push(id); return undefined } })
    const client = makeClient({ identity: 'urn:imei:356938035643809' })
    await pump(server, client, client.start().datagrams)
    expect(asked).toEqual(['urn:imei:356938035643809'])
  })
})

describe('a ClientHello the server cannot agree with', () => {
  /** The cookie exchange by hand, then the server's answer to the second ClientHello. */
  async function secondHello (hello = baseHello()): Promise<{ answer: Buffer | undefined, server: ReturnType<typeof makeServer> }> {
    const server = makeServer()
    await server.endpoint.handle(helloDatagram(hello, 0, 0), REMOTE)
    const hvr = recordsOf(server.outbox.shift()!.datagram)[0]!
    const parsed = parseHandshakeFragments(hvr.fragment)
    const cookie = parsed.ok ? parseHelloVerifyRequest(parsed.fragments[0]!.body) : undefined
    if (cookie === undefined || !cookie.ok) throw new Error('no HelloVerifyRequest')
    await server.endpoint.handle(helloDatagram({ ...hello, cookie: cookie.value.cookie }, 1, 1), REMOTE)
    return { answer: server.outbox.shift()?.datagram, server }
  }

  it('refuses other suites with handshake_failure', async () => {
    const { answer, server } = await secondHello(baseHello({ cipherSuites: [0xc0a9, 0x00ae] }))
    expect(plainAlert(answer!)).toEqual([2, 40])
    expect(server.endpoint.counters['handshake.failure']).toBe(1)
    expect(server.endpoint.sessionCount).toBe(0)
    expect(server.endpoint.handshakeCount).toBe(0)
  })

  it('refuses a hello without null compression with handshake_failure', async () => {
    const { answer } = await secondHello(baseHello({ compressions: [1] }))
    expect(plainAlert(answer!)).toEqual([2, 40])
  })

  it('refuses a DTLS 1.0 client with protocol_version', async () => {
    const { answer } = await secondHello(baseHello({ version: 0xfeff }))
    expect(plainAlert(answer!)).toEqual([2, 70])
  })

  it('refuses a non-empty renegotiation_info in an initial handshake (RFC 5746 §3.6)', async () => {
    const { answer } = await secondHello(baseHello({ extensions: new Map([[0xff01, Buffer.of(1, 7)]]) }))
    expect(plainAlert(answer!)).toEqual([2, 40])
  })

  it('answers renegotiation_info and extended master secret only when the client sent them', async () => {
    const plain = await secondHello(baseHello())
    const withExt = await secondHello(baseHello({ cipherSuites: [0xc0a8, 0x00ff], extensions: new Map([[23, Buffer.alloc(0)]]) }))
    const extensionsOf = (d: Buffer): string => {
      const p = parseHandshakeFragments(recordsOf(d)[0]!.fragment)
      const body = p.ok ? p.fragments[0]!.body : Buffer.alloc(0)
      return body.subarray(2 + 32 + 1 + 2 + 1).toString('hex')
    }
    expect(extensionsOf(plain.answer!)).toBe('')
    expect(extensionsOf(withExt.answer!)).toBe('000900170000ff01000100')
  })

  it('answers a wrong cookie with a new HelloVerifyRequest and counts bad.cookie', async () => {
    const server = makeServer()
    await server.endpoint.handle(helloDatagram(baseHello({ cookie: Buffer.alloc(32, 1) }), 1, 1), REMOTE)
    expect(handshakeTypes(server.outbox[0]!.datagram)).toEqual([3])
    expect(server.endpoint.counters['bad.cookie']).toBe(1)
    expect(server.endpoint.sessionCount).toBe(0)
  })
})
