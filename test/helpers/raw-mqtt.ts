// Raw MQTT peers (a socket and mqtt-packet) for what mqtt.js will not do: a CONNECT cut short, a connection that
// sends nothing, a device silent after its CONNACK; and one sample of GET /metrics.
import { connect, type Socket } from 'node:net'
import { once } from 'node:events'
import mqttPacket, { type IConnectPacket, type Packet } from 'mqtt-packet'
import type { Stack } from './stack.js'

export interface RawPeer {
  socket: Socket
  /** Every packet the server sent, in order. */
  packets: Packet[]
  /** Resolves when the connection is closed (by either side). */
  closed: Promise<void>
  isClosed: () => boolean
  /** The first packet of this kind the server sent (already or next); rejects when the connection closes first. */
  next: (cmd: Packet['cmd']) => Promise<Packet>
}

/** A TCP connection to the port, open and silent: nothing is sent. Packets are read as MQTT `version`. */
export async function rawPeer (port: number, version: 4 | 5 = 4): Promise<RawPeer> {
  const socket = connect(port, '127.0.0.1')
  const parser = mqttPacket.parser({ protocolVersion: version })
  const packets: Packet[] = []
  let isClosed = false
  parser.on('packet', (p: Packet) => { packets.push(p) })
  parser.on('error', () => {})
  socket.on('data', (chunk: Buffer) => { parser.parse(chunk) })
  socket.on('error', () => {})
  const closed = new Promise<void>((resolve) => { socket.once('close', () => { isClosed = true; resolve() }) })
  await Promise.race([once(socket, 'connect'), closed])
  const next = async (cmd: Packet['cmd']): Promise<Packet> => {
    const found = packets.find((p) => p.cmd === cmd)
    if (found !== undefined) return found
    return await new Promise<Packet>((resolve, reject) => {
      const onPacket = (p: Packet): void => { if (p.cmd === cmd) { parser.off('packet', onPacket); resolve(p) } }
      parser.on('packet', onPacket)
      closed.then(() => { parser.off('packet', onPacket); reject(new Error(`closed before ${cmd}`)) }, () => {})
    })
  }
  return { socket, packets, closed, isClosed: () => isClosed, next }
}

/** The bytes of a CONNECT; `will`: the topic of a Will to carry. */
export function connectBytes (version: 4 | 5, o: { clientId: string, username: string, password: string, keepalive?: number, will?: string }): Buffer {
  return mqttPacket.generate({
    cmd: 'connect',
    protocolId: 'MQTT',
    protocolVersion: version,
    clean: true,
    clientId: o.clientId,
    keepalive: o.keepalive ?? 60,
    username: o.username,
    password: Buffer.from(o.password),
    ...(o.will === undefined ? {} : { will: { topic: o.will, payload: Buffer.from('offline'), qos: 0, retain: false } })
  } as IConnectPacket, { protocolVersion: version })
}

/** One sample of GET /metrics (0 when the series is absent), the labels given matched. */
export async function metricValue (stack: Stack, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${stack.httpUrl}/metrics`)).text()
  for (const line of text.split('\n')) {
    if (!line.startsWith(name + '{') && !line.startsWith(name + ' ')) continue
    const at = line.lastIndexOf(' ')
    const series = line.slice(0, at)
    if (Object.entries(labels).every(([k, v]) => series.includes(`${k}="${v}"`))) return Number(line.slice(at + 1))
  }
  return 0
}
