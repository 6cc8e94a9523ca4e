// An AirVantage MQTT device (docs/protocols/mqtt.md, docs/devices.md): username = serial number,
// data on `<id>/messages/json` (QoS 1: the PUBACK comes once the service stored it), tasks on `<id>/tasks/json`,
// acks on `<id>/acks/json`. MQTT 3.1.1 (protocolVersion 4) or MQTT 5.
import { connectAsync, type IClientOptions, type MqttClient } from 'mqtt'
import { decodeTasks, encodeAcks, encodeData, type Task } from '../../protocols/airvantage/index.js'
import { TransportError, type DeviceTransport, type TasksHandler } from './transport.js'

export interface MqttDeviceOptions {
  /** mqtt://host:port (or ws://host:port/mqtt). */
  url: string
  username: string
  password: string
  protocolVersion?: 4 | 5
  clientId?: string
  /** ms between reconnection attempts after a lost connection; 0: stay disconnected. */
  reconnectPeriod?: number
  connectTimeout?: number
  keepalive?: number
  /** QoS of data publishes (default 1). */
  qos?: 0 | 1
}

const FIXED_HEADER = 5 // fixed header, topic length, packet id: close enough for link counters
const END_GRACE_MS = 5000

export interface MqttDevice extends DeviceTransport {
  readonly client: MqttClient
  /** Resolves when the service answered the subscription to `<id>/tasks/json`. */
  readonly subscribed: Promise<void>
}

interface Connection { client: MqttClient, subscribed: Promise<void> }

/**
 * One connection, subscribed to the device's tasks (a new one per reboot: clean session, so the subscription is made
 * again each time). `deliver` is given the tasks it receives; `closed` is told when it closes.
 */
async function openConnection (url: string, clientOpts: IClientOptions, tasksTopic: string, deliver: (tasks: Task[]) => void, closed: (c: MqttClient) => void): Promise<Connection> {
  let c: MqttClient
  try {
    c = await connectAsync(url, clientOpts, false)
  } catch (err) {
    const e = err as { message?: string, code?: number | string }
    throw new TransportError(`mqtt connect as ${clientOpts.username ?? ''}: ${e.message ?? String(err)}`, e.code)
  }
  c.on('error', () => {}) // connection errors surface through failed publishes and the 'close' event
  c.on('message', (t, payload) => {
    if (t !== tasksTopic) return
    const decoded = decodeTasks(payload)
    if (decoded.ok) deliver(decoded.tasks)
  })
  c.on('close', () => { closed(c) })
  const sub = c.subscribeAsync(tasksTopic, { qos: 1 }).then((granted) => {
    if (granted.some((g) => g.qos > 1)) throw new TransportError(`subscription to ${tasksTopic} refused`, granted[0]?.qos)
  })
  sub.catch(() => {}) // awaited by whoever cares
  return { client: c, subscribed: sub }
}

/**
 * The end of a device: once ended, every publish in flight and every later call fails with the same error. Without
 * reconnection a lost connection ends the device: mqtt.js would keep its unacknowledged publishes waiting forever,
 * so they fail here instead (and on close(), whatever the reconnection setting).
 */
function deviceEnd (username: string): { readonly gone: Error | undefined, lost: Promise<never>, end: (reason: string) => void } {
  let gone: Error | undefined
  let fail: (err: Error) => void = () => {}
  const lost = new Promise<never>((_resolve, reject) => { fail = reject })
  lost.catch(() => {})
  return {
    get gone () { return gone },
    lost,
    end: (reason) => { gone ??= new TransportError(`mqtt ${username}: ${reason}`); fail(gone) }
  }
}

/** Ends a connection, letting the publishes in flight be acknowledged first; one that no longer answers is cut. */
async function endGracefully (client: MqttClient): Promise<void> {
  const graceful = client.endAsync(false)
  const cut = new Promise<'cut'>((resolve) => { setTimeout(() => { resolve('cut') }, END_GRACE_MS).unref() })
  if (await Promise.race([graceful, cut]) === 'cut') await client.endAsync(true)
}

/** Connects again, up to 10 tries `period` apart; the last failure ends the device. */
async function reconnectAfterReboot (open: () => Promise<Connection>, period: number, ended: ReturnType<typeof deviceEnd>, connected: (c: MqttClient) => void): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      const next = await open()
      connected(next.client)
      try { await next.subscribed } catch (err) { await next.client.endAsync(true); throw err }
      return
    } catch (err) {
      if (attempt >= 10 || ended.gone !== undefined) { ended.end(`no connection after a reboot: ${(err as Error).message}`); throw ended.gone ?? err }
      await new Promise((resolve) => setTimeout(resolve, period))
    }
  }
}

/** Connects and subscribes to the device's tasks. @throws when the service refuses the login. */
export async function connectMqttDevice (opts: MqttDeviceOptions): Promise<MqttDevice> {
  const clientOpts: IClientOptions = {
    username: opts.username,
    password: opts.password,
    clientId: opts.clientId ?? opts.username,
    protocolVersion: opts.protocolVersion ?? 4,
    clean: true,
    reconnectPeriod: opts.reconnectPeriod ?? 0,
    connectTimeout: opts.connectTimeout ?? 10_000,
    keepalive: opts.keepalive ?? 60
  }
  const topic = (leaf: string): string => `${opts.username}/${leaf}`
  let handler: TasksHandler | undefined
  const early: Task[][] = []
  const traffic = { sent: 0, received: 0 }
  const ended = deviceEnd(opts.username)
  const deliver = (tasks: Task[]): void => { if (handler === undefined) early.push(tasks); else handler(tasks) }
  // A connection closed on purpose (a reboot) is not a lost one.
  const closed = (c: MqttClient): void => { if (c === client && !rebooting && clientOpts.reconnectPeriod === 0) ended.end('connection lost') }
  const open = async (): Promise<Connection> => await openConnection(opts.url, clientOpts, topic('tasks/json'), deliver, closed)

  let rebooting = false
  let client: MqttClient
  const first = await open()
  client = first.client

  async function publish (leaf: string, payload: string, qos: 0 | 1): Promise<void> {
    if (ended.gone !== undefined) throw ended.gone
    traffic.sent = Buffer.byteLength(payload) + leaf.length + opts.username.length + FIXED_HEADER
    traffic.received = qos === 1 ? 4 : 0
    try {
      const acked = client.publishAsync(topic(leaf), payload, { qos })
      acked.catch(() => {}) // it may still fail after `lost` has won the race
      await Promise.race([acked, ended.lost])
    } catch (err) {
      if (err === ended.gone) throw err
      const e = err as { message?: string, code?: number | string }
      throw new TransportError(`mqtt publish ${leaf}: ${e.message ?? String(err)}`, e.code)
    }
  }

  return {
    protocol: 'MQTT',
    get client () { return client },
    subscribed: first.subscribed,
    sendData: async (points) => { await publish('messages/json', encodeData(points), opts.qos ?? 1) },
    sendAcks: async (acks) => { await publish('acks/json', encodeAcks(acks), 1) },
    onTasks (h) {
      handler = h
      for (const tasks of early.splice(0)) h(tasks)
    },
    checkTasks: async () => {},
    async disconnect () {
      if (ended.gone !== undefined) throw ended.gone
      rebooting = true
      await endGracefully(client)
    },
    async reconnect () {
      if (ended.gone !== undefined) throw ended.gone
      // The service may be briefly away too: try as a device would, every reconnection period (1 s without one).
      const period = clientOpts.reconnectPeriod === 0 ? 1000 : clientOpts.reconnectPeriod ?? 1000
      await reconnectAfterReboot(open, period, ended, (c) => { client = c })
      rebooting = false
    },
    lastTraffic: traffic,
    async close () {
      ended.end('closed')
      await client.endAsync(true)
    }
  }
}
