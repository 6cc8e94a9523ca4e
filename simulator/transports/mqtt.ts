// An AirVantage MQTT device (shared/spec/protocols.md §3.1, conventions.md §Devices): username = serial number,
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
  const tasksTopic = topic('tasks/json')
  let handler: TasksHandler | undefined
  const early: Task[][] = []
  const traffic = { sent: 0, received: 0 }

  // Without reconnection a lost connection ends the device: mqtt.js would keep its unacknowledged publishes
  // waiting forever, so they fail here instead (and on close(), whatever the reconnection setting).
  let gone: Error | undefined
  let fail: (err: Error) => void = () => {}
  const lost = new Promise<never>((_resolve, reject) => { fail = reject })
  lost.catch(() => {})
  const end = (reason: string): void => { gone ??= new TransportError(`mqtt ${opts.username}: ${reason}`); fail(gone) }

  /** One connection: a new one per reboot (clean session), so the subscription is made again each time. */
  async function open (): Promise<{ client: MqttClient, subscribed: Promise<void> }> {
    let c: MqttClient
    try {
      c = await connectAsync(opts.url, clientOpts, false)
    } catch (err) {
      const e = err as { message?: string, code?: number | string }
      throw new TransportError(`mqtt connect as ${opts.username}: ${e.message ?? String(err)}`, e.code)
    }
    c.on('error', () => {}) // connection errors surface through failed publishes and the 'close' event
    c.on('message', (t, payload) => {
      if (t !== tasksTopic) return
      const decoded = decodeTasks(payload)
      if (!decoded.ok) return
      if (handler === undefined) early.push(decoded.tasks)
      else handler(decoded.tasks)
    })
    // A connection closed on purpose (a reboot) is not a lost one.
    c.on('close', () => { if (c === client && !rebooting && clientOpts.reconnectPeriod === 0) end('connection lost') })
    const sub = c.subscribeAsync(tasksTopic, { qos: 1 }).then((granted) => {
      if (granted.some((g) => g.qos > 1)) throw new TransportError(`subscription to ${tasksTopic} refused`, granted[0]?.qos)
    })
    sub.catch(() => {}) // awaited by whoever cares
    return { client: c, subscribed: sub }
  }

  let rebooting = false
  let client: MqttClient
  const first = await open()
  client = first.client

  async function publish (leaf: string, payload: string, qos: 0 | 1): Promise<void> {
    if (gone !== undefined) throw gone
    traffic.sent = Buffer.byteLength(payload) + leaf.length + opts.username.length + FIXED_HEADER
    traffic.received = qos === 1 ? 4 : 0
    try {
      const acked = client.publishAsync(topic(leaf), payload, { qos })
      acked.catch(() => {}) // it may still fail after `lost` has won the race
      await Promise.race([acked, lost])
    } catch (err) {
      if (err === gone) throw err
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
      if (gone !== undefined) throw gone
      rebooting = true
      // Lets the publishes in flight be acknowledged first; a connection that no longer answers is cut after a while.
      const graceful = client.endAsync(false)
      const cut = new Promise<'cut'>((resolve) => { setTimeout(() => { resolve('cut') }, END_GRACE_MS).unref() })
      if (await Promise.race([graceful, cut]) === 'cut') await client.endAsync(true)
    },
    async reconnect () {
      if (gone !== undefined) throw gone
      // The service may be briefly away too: try as a device would, every reconnection period (1 s without one).
      const period = clientOpts.reconnectPeriod === 0 ? 1000 : clientOpts.reconnectPeriod ?? 1000
      for (let attempt = 1; ; attempt++) {
        try {
          const next = await open()
          client = next.client
          try { await next.subscribed } catch (err) { await next.client.endAsync(true); throw err }
          rebooting = false
          return
        } catch (err) {
          if (attempt >= 10 || gone !== undefined) { end(`no connection after a reboot: ${(err as Error).message}`); throw gone ?? err }
          await new Promise((resolve) => setTimeout(resolve, period))
        }
      }
    },
    lastTraffic: traffic,
    async close () {
      end('closed')
      await client.endAsync(true)
    }
  }
}
