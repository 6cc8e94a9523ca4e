// One MQTT 3.1.1 login over TCP (mqtt://) or TLS (mqtts://), for the benchmarks' lean clients: the socket, the
// CONNECT, the CONNACK, then the socket and its parser handed to the caller. A TLS client verifies the service's
// certificate against the CA it is given (the bench's own) and may present a certificate of its own (mutual TLS).
import { connect as tcpConnect, type Socket } from 'node:net'
import { connect as tlsConnect } from 'node:tls'
import mqtt, { type Packet } from 'mqtt-packet'

/** What a TLS client of a benchmark is given: the CA of the service's certificate, and its own certificate. */
export interface BenchTls {
  /** PEM of the CA that issued the service's certificate. */
  ca: string
  /** The name the service's certificate is issued to (localhost: docs/cli.md `fleet certs dev`). */
  servername?: string
  /** A client certificate and its key, PEM (mutual TLS). */
  cert?: string
  key?: string
}

export interface MqttLogin {
  clientId: string
  username?: string
  password?: string
  /** Seconds; the service closes a connection silent for 1.5 times this. */
  keepalive?: number
}

export interface LoggedIn {
  socket: Socket
  parser: ReturnType<typeof mqtt.parser>
}

const OPTS = { protocolVersion: 4 as const }

/**
 * A socket to the url's host and port, TLS for mqtts:. `ready` fires once it can carry MQTT (TCP connected, or TLS
 * handshake done); an error or close before it is the caller's to handle.
 */
export function openSocket (url: URL, tls: BenchTls | undefined, ready: () => void): Socket {
  const port = Number(url.port)
  let socket: Socket
  if (url.protocol === 'mqtts:') {
    if (tls === undefined) throw new Error(`${url.href}: a TLS url needs the CA of the service's certificate`)
    socket = tlsConnect({ host: url.hostname, port, servername: tls.servername ?? 'localhost', ca: tls.ca, cert: tls.cert, key: tls.key }, ready)
  } else {
    socket = tcpConnect(port, url.hostname, ready)
  }
  socket.setNoDelay(true)
  return socket
}

/** The CONNECT of a clean MQTT 3.1.1 session. */
export function connectPacket (login: MqttLogin): Buffer {
  return mqtt.generate({
    cmd: 'connect',
    protocolId: 'MQTT',
    protocolVersion: 4,
    clientId: login.clientId,
    clean: true,
    keepalive: login.keepalive ?? 300,
    ...(login.username === undefined ? {} : { username: login.username }),
    ...(login.password === undefined ? {} : { password: Buffer.from(login.password) })
  }, OPTS)
}

/**
 * Connects and logs in; resolves on CONNACK 0 (the parser's packet listeners are then the caller's), rejects on any
 * other answer, a lost socket or `timeoutMs`.
 */
export async function mqttLogin (url: URL, login: MqttLogin, tls?: BenchTls, timeoutMs = 30_000): Promise<LoggedIn> {
  return await new Promise((resolve, reject) => {
    const parser = mqtt.parser(OPTS)
    const socket = openSocket(url, tls, () => { socket.write(connectPacket(login)) })
    const timer = setTimeout(() => { fail(new Error(`${login.clientId}: no CONNACK in ${timeoutMs} ms`)) }, timeoutMs)
    const onData = (b: Buffer): void => { parser.parse(b) }
    const onClose = (): void => { fail(new Error(`${login.clientId}: connection closed before CONNACK`)) }
    function fail (err: Error): void {
      clearTimeout(timer)
      socket.off('close', onClose)
      socket.destroy()
      reject(err)
    }
    parser.once('packet', (p: Packet) => {
      if (p.cmd !== 'connack' || p.returnCode !== 0) { fail(new Error(`${login.clientId}: CONNACK ${p.cmd === 'connack' ? String(p.returnCode) : p.cmd}`)); return }
      clearTimeout(timer)
      socket.off('error', fail)
      socket.off('close', onClose)
      // A later error (a reset) is followed by 'close', which the caller watches; unhandled, it would end the process.
      socket.on('error', () => { socket.destroy() })
      resolve({ socket, parser })
    })
    parser.on('error', fail)
    socket.on('data', onData)
    socket.once('error', fail)
    socket.once('close', onClose)
  })
}

/** Sends DISCONNECT and resolves once the service has closed the connection (at most `timeoutMs`, then destroyed). */
export async function mqttDisconnect (c: LoggedIn, timeoutMs = 10_000): Promise<void> {
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => { c.socket.destroy() }, timeoutMs)
    c.socket.once('close', () => { clearTimeout(timer); resolve() })
    c.socket.end(mqtt.generate({ cmd: 'disconnect' }, OPTS))
  })
}
