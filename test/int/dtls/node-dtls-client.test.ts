// Interoperability with an independent pure-JavaScript DTLS client, node-dtls-client (a dev dependency, used only
// here): PSK with TLS_PSK_WITH_AES_128_CCM_8 against our server over UDP.
import { once } from 'node:events'
import { dtls } from 'node-dtls-client'
import { describe, expect, it, onTestFinished } from 'vitest'
import { createDtlsServer, type DtlsSession } from '../../../protocols/dtls/index.js'

describe('node-dtls-client against our server', () => {
  it('connects with a PSK, sends, receives the reply, closes with close_notify', async () => {
    const server = createDtlsServer({ pskFor: async (id) => id === 'ndc-1' ? Buffer.from('shared secret 42') : undefined })
    const { port } = await server.listen({ port: 0, host: '127.0.0.1' })
    onTestFinished(async () => { await server.close() })
    const sessionP = once(server, 'session') as Promise<[DtlsSession]>

    const socket = dtls.createSocket({
      type: 'udp4',
      address: '127.0.0.1',
      port,
      psk: { 'ndc-1': 'shared secret 42' },
      timeout: 10_000,
      ciphers: ['TLS_PSK_WITH_AES_128_CCM_8']
    })
    onTestFinished(() => {
      try {
        socket.close()
      } catch {} // already closed by the test: node-dtls-client throws 'Not running'
    })
    await once(socket, 'connected')
    const [session] = await sessionP
    expect(session.identity).toBe('ndc-1')
    session.on('message', (m: Buffer) => session.send(Buffer.from(`ack:${m.toString()}`)))

    const reply = once(socket, 'message') as Promise<[Buffer]>
    socket.send(Buffer.from('hello'))
    expect((await reply)[0].toString()).toBe('ack:hello')

    const closed = once(session, 'close') as Promise<[string]>
    socket.close()
    expect((await closed)[0]).toBe('peer.close_notify')
  })
})
