// The baseline of bench tls's handshakes: a bare node:tls server with the service's TLS options (TLS 1.2 and 1.3, a
// client certificate asked for and not required) that answers any MQTT CONNECT with CONNACK 0 and closes on
// DISCONNECT, with no login, session or store behind it: what Node and OpenSSL alone spend on a handshake here.
import { createServer, type TLSSocket } from 'node:tls'
import mqtt, { type Packet } from 'mqtt-packet'
import type { ServerPki } from './tls-pki.js'

const OPTS = { protocolVersion: 4 as const }

export interface BareTls { url: string, close (): Promise<void> }

export async function startBareTls (pki: ServerPki): Promise<BareTls> {
  const sockets = new Set<TLSSocket>()
  const server = createServer({ minVersion: 'TLSv1.2', cert: pki.server.cert, key: pki.server.key, ca: [pki.ca.cert], requestCert: true, rejectUnauthorized: false }, (socket) => {
    sockets.add(socket)
    const parser = mqtt.parser(OPTS)
    parser.on('packet', (p: Packet) => {
      if (p.cmd === 'connect') socket.write(mqtt.generate({ cmd: 'connack', returnCode: 0, sessionPresent: false }, OPTS))
      else if (p.cmd === 'disconnect') socket.end()
    })
    parser.on('error', () => { socket.destroy() })
    socket.on('data', (b: Buffer) => { parser.parse(b) })
    socket.on('error', () => { socket.destroy() })
    socket.on('close', () => { sockets.delete(socket) })
  })
  server.on('tlsClientError', () => {})
  await new Promise<void>((resolve) => { server.listen(0, '127.0.0.1', resolve) })
  const address = server.address()
  return {
    url: `mqtts://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`,
    async close () {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => { server.close(() => { resolve() }) })
    }
  }
}
