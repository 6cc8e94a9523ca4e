// A lean MQTT 3.1.1 link for the simulator's devices (the DeviceTransport of simulator/transports/transport.ts),
// for benchmarks that run thousands of them in one process: a bare socket (TCP or TLS) and mqtt-packet's parser,
// about a tenth of an mqtt.js client's memory. Same topics and behaviour as simulator/transports/mqtt.ts (docs/protocols/mqtt.md):
// username = serial number, a clean session, tasks on `<id>/tasks/json` (QoS 1, subscribed again after each
// reconnection), data and acks on `<id>/messages/json` and `<id>/acks/json` at QoS 1, each resolved on its PUBACK.
import type { Socket } from 'node:net'
import mqtt, { type Packet } from 'mqtt-packet'
import { decodeTasks, encodeAcks, encodeData } from '../../protocols/airvantage/index.js'
import { TransportError, type DeviceTransport, type TasksHandler } from '../../simulator/transports/transport.js'
import { connectPacket, openSocket, type BenchTls } from './mqtt-connect.js'

export interface LeanMqttOptions {
  /** mqtt://host:port, or mqtts://host:port with `tls` */
  url: string
  tls?: BenchTls
  username: string
  password: string
  /** Seconds between PINGREQs (the CONNECT's keep alive). */
  keepaliveS?: number
  /** A CONNECT or SUBSCRIBE not answered within this many ms fails. */
  timeoutMs?: number
}

export interface LeanMqttDevice extends DeviceTransport {
  /** True while the connection is up (between CONNACK and its close). */
  readonly connected: boolean
  /** True once the connection was lost (not by a reboot), a reboot's reconnection gave up, or close(): the device
   *  will not come back (as the simulator's own link without reconnection). */
  readonly gone: boolean
}

const OPTS = { protocolVersion: 4 as const }
const FIXED_HEADER = 5 // as simulator/transports/mqtt.ts counts link traffic

interface Link {
  socket: Socket
  up: boolean
  /** Publishes waiting for their PUBACK, by packet id. */
  waiting: Map<number, { resolve: () => void, reject: (err: Error) => void }>
  ping: NodeJS.Timeout | undefined
}

/** What one connection needs of its device. */
interface LinkContext {
  opts: LeanMqttOptions
  url: URL
  keepaliveS: number
  timeoutMs: number
  tasksTopic: string
  packetId: () => number
  /** Tasks the device was sent. */
  tasks: (tasks: Parameters<TasksHandler>[0]) => void
  /** The link was lost while up (not by a reboot's disconnect). */
  dropped: () => void
}

/** A connection on its way up: its CONNACK, then its SUBACK, settle it. */
interface Opening {
  link: Link
  subscribeId: number
  settled: () => boolean
  fail: (err: Error) => void
  up: () => void
}

function onLinkPacket (ctx: LinkContext, o: Opening, p: Packet): void {
  const { socket } = o.link
  switch (p.cmd) {
    case 'connack':
      if (p.returnCode !== 0) { o.fail(new TransportError(`mqtt connect as ${ctx.opts.username}: CONNACK ${String(p.returnCode)}`, p.returnCode)); return }
      socket.write(mqtt.generate({ cmd: 'subscribe', messageId: o.subscribeId, subscriptions: [{ topic: ctx.tasksTopic, qos: 1 }] }, OPTS))
      return
    case 'suback':
      if (p.messageId !== o.subscribeId || o.settled()) return
      if (p.granted.some((g) => typeof g !== 'number' || g > 1)) { o.fail(new TransportError(`subscription to ${ctx.tasksTopic} refused`)); return }
      o.up()
      return
    case 'puback': {
      const w = p.messageId === undefined ? undefined : o.link.waiting.get(p.messageId)
      if (w === undefined || p.messageId === undefined) return
      o.link.waiting.delete(p.messageId)
      w.resolve()
      return
    }
    case 'publish': {
      if (p.qos === 1 && p.messageId !== undefined) socket.write(mqtt.generate({ cmd: 'puback', messageId: p.messageId }, OPTS))
      if (p.topic !== ctx.tasksTopic) return
      const decoded = decodeTasks(p.payload as Buffer)
      if (decoded.ok) ctx.tasks(decoded.tasks)
    }
  }
}

/** One connection, CONNACKed and subscribed to its tasks. */
async function openLink (ctx: LinkContext): Promise<Link> {
  const { opts, url, keepaliveS, timeoutMs } = ctx
  return await new Promise((resolve, reject) => {
    const socket = openSocket(url, opts.tls, () => {
      socket.write(connectPacket({ clientId: opts.username, username: opts.username, password: opts.password, keepalive: keepaliveS }))
    })
    const parser = mqtt.parser(OPTS)
    const link: Link = { socket, up: false, waiting: new Map(), ping: undefined }
    let settled = false
    const timer = setTimeout(() => { fail(new TransportError(`mqtt ${opts.username}: no answer in ${timeoutMs} ms`)) }, timeoutMs)
    const fail = (err: Error): void => {
      if (!settled) { settled = true; clearTimeout(timer); reject(err) }
      socket.destroy()
    }
    const up = (): void => {
      settled = true
      clearTimeout(timer)
      link.up = true
      link.ping = setInterval(() => { socket.write(mqtt.generate({ cmd: 'pingreq' }, OPTS)) }, keepaliveS * 500)
      resolve(link)
    }
    const opening: Opening = { link, subscribeId: ctx.packetId(), settled: () => settled, fail, up }
    parser.on('packet', (p: Packet) => { onLinkPacket(ctx, opening, p) })
    parser.on('error', (err) => { fail(err) })
    socket.on('data', (b: Buffer) => { parser.parse(b) })
    socket.on('error', (err) => { fail(err) })
    socket.on('close', () => {
      if (link.up) ctx.dropped() // a reboot's disconnect() marks its link down before closing it
      link.up = false
      clearInterval(link.ping)
      fail(new TransportError(`mqtt ${opts.username}: connection closed`))
      const lost = new TransportError(`mqtt ${opts.username}: connection lost`)
      for (const w of link.waiting.values()) w.reject(lost)
      link.waiting.clear()
    })
  })
}

/** As mqtt.js's end(false): what is in flight is acknowledged first, then DISCONNECT. */
async function endLink (current: Link): Promise<void> {
  await Promise.all([...current.waiting.values()].map(async (w) => await new Promise<void>((resolve) => {
    const { resolve: done, reject } = w
    w.resolve = () => { done(); resolve() }
    w.reject = (err) => { reject(err); resolve() }
  })))
  current.up = false
  clearInterval(current.ping)
  await new Promise<void>((resolve) => {
    current.socket.once('close', () => { resolve() })
    current.socket.end(mqtt.generate({ cmd: 'disconnect' }, OPTS))
  })
}

export async function connectLeanMqttDevice (opts: LeanMqttOptions): Promise<LeanMqttDevice> {
  let handler: TasksHandler | undefined
  const early: Array<Parameters<TasksHandler>[0]> = []
  const traffic = { sent: 0, received: 0 }
  let nextId = 1
  let closed = false
  let gaveUp = false
  let dropped = false
  const packetId = (): number => { const id = nextId; nextId = nextId === 65535 ? 1 : nextId + 1; return id }
  const ctx: LinkContext = {
    opts,
    url: new URL(opts.url),
    keepaliveS: opts.keepaliveS ?? 300,
    timeoutMs: opts.timeoutMs ?? 30_000,
    tasksTopic: `${opts.username}/tasks/json`,
    packetId,
    tasks: (tasks) => { if (handler === undefined) early.push(tasks); else handler(tasks) },
    dropped: () => { dropped = true }
  }

  let link = await openLink(ctx)

  async function publish (leaf: string, payload: string): Promise<void> {
    if (closed || dropped || !link.up) throw new TransportError(`mqtt ${opts.username}: not connected`)
    traffic.sent = Buffer.byteLength(payload) + leaf.length + opts.username.length + FIXED_HEADER
    traffic.received = 4
    const messageId = packetId()
    const current = link
    await new Promise<void>((resolve, reject) => {
      current.waiting.set(messageId, { resolve, reject })
      current.socket.write(mqtt.generate({ cmd: 'publish', topic: `${opts.username}/${leaf}`, payload, qos: 1, retain: false, dup: false, messageId }, OPTS))
    })
  }

  return {
    protocol: 'MQTT',
    get connected () { return link.up },
    get gone () { return closed || gaveUp || dropped },
    sendData: async (points) => { await publish('messages/json', encodeData(points)) },
    sendAcks: async (acks) => { await publish('acks/json', encodeAcks(acks)) },
    onTasks (h) {
      handler = h
      for (const tasks of early.splice(0)) h(tasks)
    },
    checkTasks: async () => {},
    disconnect: async () => { await endLink(link) },
    async reconnect () {
      // The service may be busy with the other devices coming back: try every second, as the simulator does.
      for (let attempt = 1; ; attempt++) {
        if (closed) throw new TransportError(`mqtt ${opts.username}: closed`)
        try {
          link = await openLink(ctx)
          return
        } catch (err) {
          if (attempt >= 10) { gaveUp = true; throw err }
          await new Promise((resolve) => setTimeout(resolve, 1000))
        }
      }
    },
    lastTraffic: traffic,
    async close () {
      closed = true
      clearInterval(link.ping)
      link.socket.destroy()
    }
  }
}
