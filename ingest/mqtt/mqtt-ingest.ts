// The MQTT endpoint of the service: TCP on MQTT_PORT and WebSocket at /mqtt on the HTTP port. Each connection's
// CONNECT is peeked to hand it to aedes (MQTT 3.1, 3.1.1) or to the MQTT 5 session (ingest/mqtt/v5-session.ts).
import { createServer, type Server, type Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import type { IncomingMessage } from 'node:http'
import { peekProtocolLevel } from '../../protocols/mqtt/peek.js'
import { createFrameLimit } from '../../protocols/mqtt/frame-limit.js'
import type { Logger } from '../../core/logger.js'
import type { DevicesService, DeviceSession } from '../../core/services/ingest/devices.service.js'
import type { IngestService } from '../../core/services/ingest/ingest.service.js'
import { createAedesBroker } from './aedes-broker.js'
import { serveV5, type V5Session } from './v5-session.js'

export interface MqttIngestDeps {
  devices: DevicesService
  ingest: IngestService
  log: Logger
  now: () => number
  pendingTasks: (session: DeviceSession) => Promise<string | undefined>
}

export interface MqttIngest {
  /** Serves one connection from any transport (TCP socket, WebSocket stream). */
  handle (stream: Duplex, remoteAddress: string, req?: IncomingMessage): void
  /** Sends tasks to a connected device; false when it is not connected to this process. */
  publishTasks (session: DeviceSession, payload: string): Promise<boolean>
  listen (port: number, host?: string): Promise<number>
  /** True while the TCP listener accepts connections (GET /ready). */
  listening (): boolean
  /** Authenticated device connections by MQTT version (the connected devices metric). */
  connected (): Array<{ version: '3.1.1' | '5', count: number }>
  close (): Promise<void>
}

// A CONNECT must come quickly and small: a connection that sends nothing, or garbage, is closed.
const CONNECT_TIMEOUT_MS = 10_000
const MAX_PEEK_BYTES = 1024
const UNACCEPTABLE_PROTOCOL_LEVEL = Buffer.from([0x20, 0x02, 0x00, 0x01])
// Packet size bounds, checked before any parser buffers a packet (protocols/mqtt/frame-limit.ts): a CONNECT holds
// a client id, a will, a login of at most 255 + 255 characters (protocols.md §3.1); a later packet a payload of at
// most 1 MiB (protocols/airvantage README) plus its topic and properties. A payload a little over 1 MiB is still
// read, refused and counted with the connection kept; one announced beyond MAX_PACKET_BYTES closes the connection.
const MAX_CONNECT_BYTES = 64 * 1024
const MAX_PACKET_BYTES = 2 * 1024 * 1024

export async function createMqttIngest (deps: MqttIngestDeps): Promise<MqttIngest> {
  const publishDeps = { ingest: deps.ingest, now: deps.now }
  const aedes = await createAedesBroker({ ...publishDeps, devices: deps.devices, log: deps.log, pendingTasks: deps.pendingTasks })
  // MQTT 5 connections by system, then client id: a client id is scoped to its system, so a device can hold several
  // connections (client ids are free, conventions.md §Devices) and can never push another device's connection off.
  const v5 = new Map<string, Map<string, V5Session>>()
  const v5Online = (s: V5Session): void => {
    const systemUid = s.session()?.systemUid ?? ''
    const mine = v5.get(systemUid) ?? new Map<string, V5Session>()
    mine.get(s.clientId())?.close({ takenOver: true }) // MQTT 5.0 §3.1.4: the new connection takes the client id over
    mine.delete(s.clientId())
    mine.set(s.clientId(), s) // last in the map: the latest
    v5.set(systemUid, mine)
  }
  const v5Offline = (s: V5Session): void => {
    const systemUid = s.session()?.systemUid ?? ''
    const mine = v5.get(systemUid)
    if (mine?.get(s.clientId()) !== s) return
    mine.delete(s.clientId())
    if (mine.size === 0) v5.delete(systemUid)
  }
  const open = new Set<Duplex>()
  let server: Server | undefined

  function route (stream: Duplex, remoteAddress: string, req?: IncomingMessage): void {
    open.add(stream)
    stream.once('close', () => { open.delete(stream) })
    let seen = Buffer.alloc(0)
    const timer = setTimeout(() => { stream.destroy() }, CONNECT_TIMEOUT_MS)
    const onData = (chunk: Buffer): void => {
      seen = Buffer.concat([seen, chunk])
      const peek = peekProtocolLevel(seen)
      if (peek.kind === 'need-more' && seen.length < MAX_PEEK_BYTES) return
      stream.off('data', onData)
      clearTimeout(timer)
      if (peek.kind !== 'level') { stream.destroy(); return }
      if (peek.level < 3 || peek.level > 5) {
        // MQTT 3.1.1 §3.1.2.2: an unsupported level gets CONNACK 0x01 (unacceptable protocol level), then the close.
        // The 3.1.1 form is the one every client version reads (MQTT 5.0 §3.1.2.2 allows it).
        stream.end(UNACCEPTABLE_PROTOCOL_LEVEL)
        setTimeout(() => { stream.destroy() }, 1000).unref()
        return
      }
      stream.pause()
      stream.unshift(seen)
      const limit = createFrameLimit({ first: MAX_CONNECT_BYTES, next: MAX_PACKET_BYTES })
      stream.on('data', (chunk: Buffer) => { if (limit.feed(chunk) !== 'ok') stream.destroy() })
      if (peek.level === 5) {
        serveV5(stream, remoteAddress, {
          ...publishDeps,
          devices: deps.devices,
          log: deps.log,
          pendingTasks: deps.pendingTasks,
          maxPacketBytes: MAX_PACKET_BYTES,
          onOnline: v5Online,
          onOffline: v5Offline
        })
      } else {
        aedes.handle(stream, remoteAddress, req)
      }
      stream.resume()
    }
    stream.on('data', onData)
    stream.on('error', () => { stream.destroy() })
  }

  return {
    handle: route,
    async publishTasks (session, payload) {
      // The latest MQTT 5 connection of the system that subscribed to its tasks, else the 3.1.1 ones.
      const s5 = [...(v5.get(session.systemUid)?.values() ?? [])].reverse().find((s) => s.wantsTasks())
      if (s5 !== undefined) { s5.publishTasks(payload); return true }
      return await aedes.publishTasks(session.systemUid, payload)
    },
    async listen (port, host) {
      server = createServer((socket: Socket) => { route(socket, socket.remoteAddress ?? '') })
      await new Promise<void>((resolve, reject) => {
        server?.once('error', reject)
        server?.listen(port, host, () => { resolve() })
      })
      const address = server.address()
      return typeof address === 'object' && address !== null ? address.port : port
    },
    listening: () => server?.listening === true,
    connected: () => {
      let v5n = 0
      for (const mine of v5.values()) v5n += mine.size
      return [{ version: '3.1.1', count: aedes.connected() }, { version: '5', count: v5n }]
    },
    async close () {
      // Stop accepting, then end the open connections (server.close waits for them), then the broker.
      const s = server
      const closed = s === undefined ? Promise.resolve() : new Promise<void>((resolve) => { s.close(() => { resolve() }) })
      for (const mine of v5.values()) for (const v of mine.values()) v.close()
      for (const stream of open) stream.destroy()
      await closed
      await aedes.close()
    }
  }
}
