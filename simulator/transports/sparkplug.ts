// A Sparkplug B edge node (docs/protocols/sparkplug.md; docs/protocols/sparkplug.md): its edge node id is
// the gateway serial number, which is also its MQTT login (with the MQTT password). It births (NBIRTH, seq 0, bdSeq,
// `Node Control/*`, every metric it reported so far with an alias), reports by alias in NDATA (a metric it never
// declared brings a new NBIRTH first, as a node may rebirth at any time), and turns the host's NCMD into the tasks a
// simulated device runs: `Node Control/Reboot` a reboot, `Node Control/Rebirth` a new NBIRTH (answered here), any
// other metric a write, whose effect the device reports with its next data. Acknowledgements have no Sparkplug form:
// the host ends tasks on the reports, so sendAcks sends nothing. Its Will is its NDEATH; a reboot publishes the
// NDEATH before going away and the next connection births with the next bdSeq.
import { randomBytes } from 'node:crypto'
import { connectAsync, type IClientOptions, type MqttClient } from 'mqtt'
import type { DataValue, Point, Task } from '../../protocols/airvantage/index.js'
import { DataType, decodePayload, encodePayload, metricValue, nodeTopic, type OutgoingMetric } from '../../protocols/sparkplug/index.js'
import { ACTIONS } from '../devices/settings.js'
import { TransportError, type DeviceTransport, type TasksHandler } from './transport.js'

export interface SparkplugNodeOptions {
  /** mqtt://host:port of the service's embedded broker. */
  url: string
  /** The gateway serial number: login and edge node id. */
  username: string
  password: string
  group?: string
  keepalive?: number
}

const REBIRTH = 'Node Control/Rebirth'
const REBOOT = 'Node Control/Reboot'

const datatypeOf = (v: DataValue): number =>
  typeof v === 'boolean' ? DataType.Boolean : typeof v === 'number' ? (Number.isInteger(v) ? DataType.Int64 : DataType.Double) : DataType.String

type NodeTopic = (type: 'NBIRTH' | 'NDATA' | 'NDEATH' | 'NCMD') => string
/** A metric the node reported: its BIRTH declares it, with this alias and datatype. */
interface KnownMetric { alias: number, datatype: number, value: DataValue, ts: number }

/** The host's NCMD → tasks of the simulated device, each batch to `deliver`; a rebirth is answered by `rebirth`. */
function onCommand (payload: Buffer, rebirth: () => void, deliver: (tasks: Task[]) => void): void {
  const decoded = decodePayload(payload)
  if (!decoded.ok) return
  const writes: Array<Record<string, DataValue>> = []
  const uid = (): string => randomBytes(16).toString('hex')
  for (const m of decoded.payload.metrics) {
    if (m.name === undefined) continue
    const value = metricValue(m, m.datatype ?? DataType.Unknown)
    if (value === 'unsupported') continue
    if (m.name === REBIRTH && value === true) rebirth()
    else if (m.name === REBOOT && value === true) deliver([{ uid: uid(), timestamp: Date.now(), command: { id: ACTIONS.reboot, params: {} } }])
    else writes.push({ [m.name]: value })
  }
  if (writes.length > 0) deliver([{ uid: uid(), timestamp: Date.now(), write: writes }])
}

/** Connects with the NDEATH `will` and subscribes to the node's NCMD, whose payloads go to `command`. */
async function connectNode (opts: SparkplugNodeOptions, topic: NodeTopic, will: Buffer, command: (c: MqttClient, payload: Buffer) => void): Promise<MqttClient> {
  const clientOpts: IClientOptions = {
    username: opts.username,
    password: opts.password,
    clientId: `${opts.username}-sparkplug`,
    protocolVersion: 4,
    clean: true,
    reconnectPeriod: 0,
    connectTimeout: 10_000,
    keepalive: opts.keepalive ?? 60,
    will: { topic: topic('NDEATH'), payload: will, qos: 0, retain: false }
  }
  let c: MqttClient
  try {
    c = await connectAsync(opts.url, clientOpts, false)
  } catch (err) {
    const e = err as { message?: string, code?: number | string }
    throw new TransportError(`sparkplug connect as ${opts.username}: ${e.message ?? String(err)}`, e.code)
  }
  c.on('error', () => {})
  c.on('message', (t, payload) => { if (t === topic('NCMD')) command(c, payload) })
  const granted = await c.subscribeAsync(topic('NCMD'), { qos: 0 })
  if (granted.some((g) => g.qos > 1)) throw new TransportError(`subscription to ${topic('NCMD')} refused`)
  return c
}

/**
 * Records the points in `known` and answers their NDATA metrics by alias, or 'rebirth' when one is new: every metric
 * is declared by a BIRTH before it is sent by alias (§4.3), so new ones bring a rebirth, which carries them.
 */
function dataMetrics (points: readonly Point[], known: Map<string, KnownMetric>): OutgoingMetric[] | 'rebirth' {
  const fresh = points.filter((p) => !known.has(p.dataId))
  for (const p of points) {
    const before = known.get(p.dataId)
    known.set(p.dataId, { alias: before?.alias ?? known.size + 1, datatype: before?.datatype ?? datatypeOf(p.value), value: p.value, ts: p.ts })
  }
  if (fresh.length > 0) return 'rebirth'
  return points.map((p) => {
    const m = known.get(p.dataId)
    return { alias: m?.alias ?? 0, timestamp: p.ts, datatype: m?.datatype ?? datatypeOf(p.value), value: p.value }
  })
}

/** Publishes at QoS 0, counting the bytes put on the link. */
async function publish (c: MqttClient, t: string, payload: Buffer, traffic: { sent: number, received: number }): Promise<void> {
  traffic.sent = payload.length + t.length + 5
  traffic.received = 0
  try {
    await c.publishAsync(t, payload, { qos: 0 })
  } catch (err) {
    throw new TransportError(`sparkplug publish ${t}: ${(err as Error).message}`)
  }
}

/** An NBIRTH's metrics: bdSeq, the node controls, and every metric reported so far with its alias. */
function birthMetrics (bdSeq: number, known: ReadonlyMap<string, KnownMetric>): OutgoingMetric[] {
  return [
    { name: 'bdSeq', datatype: DataType.UInt64, value: bdSeq },
    { name: REBIRTH, datatype: DataType.Boolean, value: false },
    { name: REBOOT, datatype: DataType.Boolean, value: false },
    ...[...known].map(([name, m]) => ({ name, alias: m.alias, timestamp: m.ts, datatype: m.datatype, value: m.value }))
  ]
}

export async function connectSparkplugNode (opts: SparkplugNodeOptions): Promise<DeviceTransport> {
  const group = opts.group ?? 'fleet-sim'
  const node = opts.username
  const topic: NodeTopic = (type) => nodeTopic(group, type, node)
  let handler: TasksHandler | undefined
  const early: Task[][] = []
  const traffic = { sent: 0, received: 0 }
  /** What it reported, by metric name: its BIRTH declares them all, with these aliases and datatypes. */
  const known = new Map<string, KnownMetric>()
  let bdSeq = 0
  let seq = 0
  let client: MqttClient | undefined
  let closed = false

  const death = (): Buffer => encodePayload({ timestamp: Date.now(), metrics: [{ name: 'bdSeq', datatype: DataType.UInt64, value: bdSeq }] })
  const nextSeq = (): number => { const s = seq; seq = (seq + 1) % 256; return s }

  const send = async (c: MqttClient, t: string, payload: Buffer): Promise<void> => { await publish(c, t, payload, traffic) }
  async function birth (c: MqttClient): Promise<void> {
    seq = 0
    await send(c, topic('NBIRTH'), encodePayload({ timestamp: Date.now(), seq: nextSeq(), metrics: birthMetrics(bdSeq, known) }))
  }

  const deliver = (tasks: Task[]): void => { if (handler === undefined) early.push(tasks); else handler(tasks) }
  const command = (c: MqttClient, payload: Buffer): void => { onCommand(payload, () => { birth(c).catch(() => {}) }, deliver) }
  async function open (): Promise<MqttClient> {
    const c = await connectNode(opts, topic, death(), command)
    await birth(c)
    return c
  }

  client = await open()
  const current = (): MqttClient => {
    if (client === undefined || closed) throw new TransportError(`sparkplug ${node}: not connected`)
    return client
  }

  return {
    protocol: 'SPARKPLUG',
    async sendData (points: readonly Point[]) {
      const c = current()
      const metrics = dataMetrics(points, known)
      if (metrics === 'rebirth') { await birth(c); return }
      await send(c, topic('NDATA'), encodePayload({ timestamp: Date.now(), seq: nextSeq(), metrics }))
    },
    sendAcks: async () => {},
    onTasks (h) {
      handler = h
      for (const tasks of early.splice(0)) h(tasks)
    },
    checkTasks: async () => {},
    async disconnect () {
      const c = current()
      await send(c, topic('NDEATH'), death())
      client = undefined
      await c.endAsync(false)
    },
    async reconnect () {
      bdSeq = (bdSeq + 1) % 256
      client = await open()
    },
    lastTraffic: traffic,
    async close () {
      closed = true
      const c = client
      client = undefined
      if (c !== undefined) {
        await c.publishAsync(topic('NDEATH'), death(), { qos: 0 }).catch(() => {})
        await c.endAsync(true)
      }
    }
  }
}
