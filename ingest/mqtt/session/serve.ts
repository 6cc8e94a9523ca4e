// The read loop of an MQTT connection of any version (session.ts holds its state and write side): packets parsed by
// mqtt-packet, handled one after the other (a PUBLISH right behind CONNECT waits for the login), a publish read only
// while the connection's messages on their way to the store are under their bound (ingest/device-limits.ts).
import mqtt, { type Packet } from 'mqtt-packet'
import type { Duplex } from 'node:stream'
import type { MqttSessionDeps } from './deps.js'
import { MqttSession, type ProtocolLevel } from './session.js'
import { onConnect } from './connect.js'
import { onPublish } from './publish.js'
import { onPuback, onPubrel } from './acks.js'
import { onSubscribe } from './subscribe.js'
import { onUnsubscribe } from './unsubscribe.js'
import { onPingreq } from './ping.js'
import { onDisconnect } from './disconnect.js'
import { publishWill } from './will.js'
import { RC5 } from './reason-codes.js'
import type { PresentedCertificate } from '../../../core/domain/device-certificate.js'

async function onPacket (s: MqttSession, p: Packet): Promise<void> {
  s.touch()
  if (p.cmd === 'connect') { await onConnect(s, p); return }
  const session = s.session
  // MQTT 3.1.1 and 5.0 §3.1.0-1: CONNECT comes first.
  if (session === undefined) { s.close(RC5.protocolError); return }
  switch (p.cmd) {
    case 'publish': {
      const room = s.pressure.room()
      if (room !== undefined) await room
      onPublish(s, session, p)
      return
    }
    case 'puback': onPuback(s, session, p); return
    case 'pubrel': onPubrel(s, p); return
    case 'subscribe': onSubscribe(s, session, p); return
    case 'unsubscribe': onUnsubscribe(s, p); return
    case 'pingreq': onPingreq(s); return
    case 'disconnect': onDisconnect(s, p); return
    default: s.close(RC5.protocolError)
  }
}

/** The connection has ended, however: out of the registry and the bus, its Will published, the namespaces told. */
function ended (s: MqttSession): void {
  s.closed = true
  s.stopKeepAlive()
  if (s.self !== undefined) s.deps.registry.remove(s.self)
  s.deps.busSubscribers.remove(s.busSubscriber)
  publishWill(s)
  const b = s.knownBusClient()
  if (b !== undefined) for (const ns of s.deps.bus?.all() ?? []) ns.disconnected(b)
}

/**
 * Serves one MQTT connection of protocol `level` (peeked from its CONNECT by the endpoint) until it closes; once
 * logged in it is in the registry. `onLoggedIn`: told when the CONNACK that accepts it is sent; `certificate`: what
 * the client presented in its TLS handshake, kept by the session for its login.
 */
export function serveMqtt (stream: Duplex, remoteAddress: string, level: ProtocolLevel, deps: MqttSessionDeps, onLoggedIn: () => void = () => {}, certificate?: PresentedCertificate): void {
  const s = new MqttSession(stream, remoteAddress, level, deps, onLoggedIn, certificate)
  const parser = level === 5 ? mqtt.parser({ protocolVersion: 5 }) : mqtt.parser()
  let packets: Promise<void> = Promise.resolve()
  parser.on('packet', (p: Packet) => {
    packets = packets.then(async () => { await onPacket(s, p) })
      .catch((err: unknown) => { deps.log.warn({ err }, 'mqtt packet failed'); s.close(RC5.unspecified) })
  })
  parser.on('error', () => { s.close(RC5.protocolError) })
  stream.on('data', (chunk: Buffer) => { if (!s.closed) parser.parse(chunk) })
  stream.on('error', () => { s.close() })
  // The device ended its side (a WebSocket closed without DISCONNECT): the duplex of a WebSocket emits no 'close'
  // until its writable side ends too, so the connection would linger, registered, until its keep alive ran out.
  stream.on('end', () => { s.close() })
  stream.on('close', () => { ended(s) })
}
