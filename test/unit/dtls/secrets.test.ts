// Secrets never show: not in the string or inspected forms of the objects that hold or held them, not in errors,
// not in the counters or events. The PSK and the keys live in private fields only.
import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { ClientConnection, DtlsError } from '../../../protocols/dtls/index.js'
import { connect, makeClient, makeServer, PSK } from './harness.js'

const pskHex = PSK.toString('hex')
const shown = (x: unknown): string => `${String(x)} ${inspect(x, { showHidden: true, depth: 8, getters: true })}`

describe('secrets', () => {
  it('no PSK in the string and inspected forms of the endpoint, the session, the connections, the counters', async () => {
    const server = makeServer()
    const { client, session } = await connect(server)
    for (const x of [server.endpoint, session, client, server.endpoint.counters]) {
      const text = shown(x)
      expect(text).not.toContain(pskHex)
      expect(text).not.toContain(PSK.toString('base64'))
    }
    expect(String(session)).toBe('DtlsSession(device-1@192.0.2.10:40000)')
  })

  it('no PSK in a client connection that holds it, before and during its handshake', async () => {
    const client = makeClient()
    expect(shown(client)).not.toContain(pskHex)
    const server = makeServer()
    for (const d of client.start().datagrams) await server.endpoint.handle(d, { address: '192.0.2.1', port: 1 })
    expect(shown(client)).not.toContain(pskHex)
    expect(shown(server.endpoint)).not.toContain(pskHex)
  })

  it('the client zeroes its own copy of the PSK, not the caller\'s buffer', async () => {
    const psk = Buffer.from(PSK)
    const server = makeServer()
    await connect(server, makeClient({ psk }))
    expect(psk).toEqual(PSK)
  })

  it('errors carry codes, not keys', () => {
    expect(() => new ClientConnection({ identity: 'x', psk: Buffer.alloc(65, 0xab) })).toThrow(/at most|1 to 64/)
    try {
      new ClientConnection({ identity: 'x', psk: Buffer.alloc(65, 0xab) }) // eslint-disable-line no-new
    } catch (err) {
      expect(String(err)).not.toContain('abab')
    }
    expect(String(new DtlsError('dtls.alert.decrypt_error'))).toBe('DtlsError: dtls.alert.decrypt_error')
  })
})
