// Interoperability with OpenSSL (3.0): `openssl s_client -dtls1_2 -psk … -cipher PSK-AES128-CCM8` against our
// server, and our client against `openssl s_server`. Real UDP on 127.0.0.1, port 0.
import { once } from 'node:events'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { connectDtls, createDtlsServer, type DtlsServer, type DtlsSession } from '../../../protocols/dtls/index.js'
import { eventually } from '../../helpers/eventually.js'
import { openssl } from './openssl.js'

const PSK_HEX = '6b8f1e9a2c3d4e5f60718293a4b5c6d7'
const IDENTITY = 'urn:imei:356938035643809'

function sClient (port: number, psk = PSK_HEX, identity = IDENTITY, cipher = 'PSK-AES128-CCM8'): ReturnType<typeof openssl> {
  return openssl(['s_client', '-dtls1_2', '-psk', psk, '-psk_identity', identity, '-cipher', cipher, '-connect', `127.0.0.1:${port}`])
}

describe('openssl s_client against our server', () => {
  let server: DtlsServer
  let port: number
  const sessions: DtlsSession[] = []
  beforeAll(async () => {
    server = createDtlsServer({ pskFor: async (id) => id === IDENTITY ? Buffer.from(PSK_HEX, 'hex') : undefined, identityHint: 'fleet' })
    server.on('session', (s: DtlsSession) => {
      sessions.push(s)
      s.on('message', (m: Buffer) => s.send(Buffer.from(`ack ${m.toString().trim()}\n`)))
    })
    port = (await server.listen({ port: 0, host: '127.0.0.1' })).port
  })
  afterAll(async () => { await server?.close() })

  it('completes the handshake, the server receives a line and the client its reply; close_notify on EOF', async () => {
    const client = sClient(port)
    const session = once(server, 'session') as Promise<[DtlsSession]>
    await client.waitFor(/Cipher is PSK-AES128-CCM8/)
    const [s] = await session
    expect(s.identity).toBe(IDENTITY)
    expect(client.output()).toMatch(/Protocol\s*: DTLSv1\.2/)
    expect(client.output()).toMatch(/Extended master secret: yes/)
    expect(client.output()).toMatch(/PSK identity hint: fleet/)

    const received = once(s, 'message') as Promise<[Buffer]>
    client.proc.stdin.write('hello from openssl\n')
    expect((await received)[0].toString()).toBe('hello from openssl\n')
    await client.waitFor(/ack hello from openssl/)

    const closed = once(s, 'close') as Promise<[string]>
    client.proc.stdin.end() // s_client sends close_notify on end of input
    expect((await closed)[0]).toBe('peer.close_notify')
    await client.exited()
  })

  it('refuses a wrong key with decrypt_error, counts it, and still serves the next client', async () => {
    const before = server.counters['bad.finished']
    const bad = sClient(port, 'ffffffffffffffffffffffffffffffff')
    await bad.waitFor(/alert decrypt error/)
    await eventually(() => server.counters['bad.finished'] === before + 1, { what: 'bad.finished counted' })
    expect(server.handshakeCount).toBe(0)

    const good = sClient(port)
    await good.waitFor(/Cipher is PSK-AES128-CCM8/)
    good.proc.stdin.write('still here\n')
    await good.waitFor(/ack still here/)
  })

  it('refuses an unknown identity the same way, counted as unknown.identity', async () => {
    const before = server.counters['unknown.identity']
    const stranger = sClient(port, PSK_HEX, 'stranger')
    await stranger.waitFor(/alert decrypt error/)
    await eventually(() => server.counters['unknown.identity'] === before + 1, { what: 'unknown.identity counted' })
  })

  it('refuses a client offering another suite with handshake_failure', async () => {
    const before = server.counters['handshake.failure']
    const other = sClient(port, PSK_HEX, IDENTITY, 'PSK-AES128-GCM-SHA256')
    await other.waitFor(/alert handshake failure/)
    await eventually(() => server.counters['handshake.failure'] === before + 1, { what: 'handshake.failure counted' })
  })
})

describe('our client against openssl s_server', () => {
  for (const extendedMasterSecret of [true, false]) {
    it(`completes the handshake and exchanges a line both ways (extended master secret ${extendedMasterSecret ? 'on' : 'off'})`, async () => {
      const server = openssl(['s_server', '-dtls1_2', '-nocert', '-psk', PSK_HEX, '-psk_hint', 'lab', '-cipher', 'PSK-AES128-CCM8', '-accept', '127.0.0.1:0'])
      const [, port] = await server.waitFor(/ACCEPT 127\.0\.0\.1:(\d+)/)
      const client = await connectDtls({ host: '127.0.0.1', port: Number(port), identity: IDENTITY, psk: Buffer.from(PSK_HEX, 'hex'), extendedMasterSecret })
      onTestFinished(async () => { await client.close() })
      expect(client.hint?.toString()).toBe('lab')
      client.send(Buffer.from('from our client\n'))
      await server.waitFor(/from our client/)
      const reply = once(client, 'message') as Promise<[Buffer]>
      server.proc.stdin.write('from s_server\n')
      expect((await reply)[0].toString()).toBe('from s_server\n')
      await client.close()
      await server.waitFor(/^DONE$/m) // s_server read our close_notify (the rest of its output waits for its exit)
    })
  }

  it('does not establish when s_server has another key (OpenSSL drops our undecryptable Finished: a timeout)', async () => {
    const server = openssl(['s_server', '-dtls1_2', '-nocert', '-psk', 'ffffffffffffffffffffffffffffffff', '-cipher', 'PSK-AES128-CCM8', '-accept', '127.0.0.1:0'])
    const [, port] = await server.waitFor(/ACCEPT 127\.0\.0\.1:(\d+)/)
    await expect(connectDtls({ host: '127.0.0.1', port: Number(port), identity: IDENTITY, psk: Buffer.from(PSK_HEX, 'hex'), handshakeTimeoutMs: 3000 }))
      .rejects.toMatchObject({ code: expect.stringMatching(/^dtls\.(handshake\.timeout|alert\.(decrypt_error|bad_record_mac))$/) })
  })
})
