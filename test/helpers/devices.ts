// Helpers for the device ingest tests (docs/devices.md): systems that devices log in as, created through
// POST /api/v1/systems, real mqtt.js clients (TCP and WebSocket), REST device calls with fetch, and what the store
// holds afterwards.
import type { Duplex } from 'node:stream'
import mqtt, { MqttClient, type IClientOptions, type IClientPublishOptions, type Packet } from 'mqtt'
import { uniq } from './factories.js'
import { createSystem, validImei } from './systems.js'
import type { Stack } from './stack.js'
import type { DeviceTransport } from '../../ingest/transport.js'

export { eventually } from './eventually.js'

export interface Device {
  uid: string
  serial: string
  imei: string
  mqttPassword: string | null
  restPassword: string | null
}

let imeiSeq = Math.floor(Math.random() * 1_000_000) * 1000

/**
 * A system with a gateway (serial number and IMEI, both usable as the device login) and device passwords, created
 * through the API. `mqttPassword: null` / `restPassword: null` leave that protocol without a password.
 */
export async function createDevice (stack: Stack, opts: { mqttPassword?: string | null, restPassword?: string | null, token?: string, company?: string } = {}): Promise<Device> {
  const serial = uniq('SN').toUpperCase()
  const imei = validImei(++imeiSeq)
  const mqttPassword = opts.mqttPassword === undefined ? uniq('mqtt-pw') : opts.mqttPassword
  const restPassword = opts.restPassword === undefined ? uniq('rest-pw') : opts.restPassword
  const communication: Record<string, unknown> = {}
  if (mqttPassword !== null) communication.mqtt = { password: mqttPassword }
  if (restPassword !== null) communication.rest = { password: restPassword }
  const s = await createSystem(stack, { name: serial, gateway: { serialNumber: serial, imei }, communication }, { token: opts.token, company: opts.company })
  return { uid: s.uid as string, serial, imei, mqttPassword, restPassword }
}

export type MqttVersion = 3 | 4 | 5

/** mqtt.js options of one protocol version: 3 is MQTT 3.1 (MQIsdp), 4 is 3.1.1, 5 is 5.0. */
export function versionOptions (v: MqttVersion): IClientOptions {
  return v === 3 ? { protocolId: 'MQIsdp', protocolVersion: 3 } : { protocolVersion: v }
}

/** The WebSocket URL of MQTT on the HTTP port. */
export const wsUrl = (stack: Stack): string => stack.httpUrl.replace(/^http/, 'ws') + '/mqtt'

export type ConnectOutcome =
  | { ok: true, client: MqttClient }
  | { ok: false, code: number | undefined, message: string }

/**
 * Connects once (no reconnection) and answers the outcome: the connected client, or the CONNACK return code
 * (3.1.1) / reason code (5) of a refusal. Every packet the server sends is kept in `received(client)`.
 */
export async function tryConnect (url: string, opts: IClientOptions & { version?: MqttVersion, stream?: () => Duplex } = {}): Promise<ConnectOutcome> {
  const { version = 4, stream, ...rest } = opts
  const options = { ...versionOptions(version), reconnectPeriod: 0, connectTimeout: 5000, clientId: uniq('c'), ...rest }
  // `stream`: a connection the test opened itself (one that writes a PROXY protocol header first); url is unused then.
  const client = stream === undefined ? mqtt.connect(url, options) : new MqttClient(stream, options)
  client.setMaxListeners(0) // publish() listens for 'close' once per publish in flight
  const packets: Packet[] = []
  received.set(client, packets)
  client.on('packetreceive', (p) => { packets.push(p) })
  return await new Promise<ConnectOutcome>((resolve) => {
    const done = (o: ConnectOutcome): void => {
      client.removeAllListeners('connect')
      if (!o.ok) client.end(true)
      resolve(o)
    }
    client.once('connect', () => { done({ ok: true, client }) })
    client.on('error', (err: Error & { code?: number }) => {
      const connack = packets.find((p) => p.cmd === 'connack') as { returnCode?: number, reasonCode?: number } | undefined
      done({ ok: false, code: connack?.reasonCode ?? connack?.returnCode ?? (typeof err.code === 'number' ? err.code : undefined), message: err.message })
    })
    client.once('close', () => {
      const connack = packets.find((p) => p.cmd === 'connack') as { returnCode?: number, reasonCode?: number } | undefined
      done({ ok: false, code: connack?.reasonCode ?? connack?.returnCode, message: 'closed' })
    })
  })
}

const received = new WeakMap<MqttClient, Packet[]>()

/** Every packet the server sent this client so far. */
export function packetsOf (client: MqttClient): Packet[] {
  return received.get(client) ?? []
}

/** A connected client, or the test fails with the refusal. */
export async function connectDevice (url: string, username: string, password: string, opts: IClientOptions & { version?: MqttVersion } = {}): Promise<MqttClient> {
  const o = await tryConnect(url, { username, password, ...opts })
  if (!o.ok) throw new Error(`mqtt connect refused: ${String(o.code)} ${o.message}`)
  return o.client
}

/**
 * Publishes and answers, for QoS 1, the PUBACK reason code (0 on MQTT 3.1.1, where PUBACK has none), or 'closed'
 * when the connection closed before a PUBACK came. QoS 0 resolves once the packet is written.
 */
export async function publish (client: MqttClient, topic: string, payload: string | Buffer, opts: IClientPublishOptions = { qos: 1 }): Promise<number | 'closed'> {
  return await new Promise((resolve) => {
    const onClose = (): void => { resolve('closed') }
    client.once('close', onClose)
    client.publish(topic, payload, opts, (err, packet) => {
      client.off('close', onClose)
      const code = (packet as { reasonCode?: number } | undefined)?.reasonCode ?? (err as { code?: number } | undefined)?.code
      if (err !== undefined && err !== null && typeof code !== 'number') { resolve('closed'); return }
      resolve(code ?? 0)
    })
  })
}

/** Subscribes and answers the granted codes of the SUBACK (a QoS, or 0x80 / a v5 reason code when refused). */
export async function subscribe (client: MqttClient, topic: string, qos: 0 | 1 = 1): Promise<number[]> {
  const before = packetsOf(client).length
  await new Promise<void>((resolve) => { client.subscribe(topic, { qos }, () => { resolve() }) })
  const suback = packetsOf(client).slice(before).find((p) => p.cmd === 'suback') as { granted: Array<number | { qos: number }> } | undefined
  if (suback === undefined) throw new Error('no SUBACK')
  return suback.granted.map((g) => typeof g === 'number' ? g : g.qos)
}

/** Resolves once the client's connection is closed (or at once when it already is). */
export async function closed (client: MqttClient, ms = 5000): Promise<boolean> {
  if (!client.connected && (client.stream?.destroyed ?? true)) return true
  return await new Promise((resolve) => {
    const t = setTimeout(() => { resolve(false) }, ms)
    client.once('close', () => { clearTimeout(t); resolve(true) })
  })
}

export async function endAll (...clients: Array<MqttClient | undefined>): Promise<void> {
  await Promise.all(clients.map(async (c) => { if (c !== undefined) await c.endAsync(true) }))
}

/** REST device call with fetch (Basic auth when `user` is given). */
export async function deviceFetch (stack: Stack, method: 'GET' | 'POST', path: string, opts: { user?: string, password?: string, body?: string | Buffer, headers?: Record<string, string> } = {}): Promise<{ status: number, body: any, text: string }> {
  const headers: Record<string, string> = { ...opts.headers }
  if (opts.user !== undefined) headers.authorization = 'Basic ' + Buffer.from(`${opts.user}:${opts.password ?? ''}`).toString('base64')
  if (opts.body !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/json'
  const res = await fetch(stack.httpUrl + path, { method, headers, ...(opts.body === undefined ? {} : { body: opts.body }) })
  const text = await res.text()
  let body: unknown
  try { body = text === '' ? undefined : JSON.parse(text) } catch { body = text }
  return { status: res.status, body, text }
}

export interface StoredMessage { uid: string, protocol: string, ts: number, receivedAt: number, nbDataPoints: number }
export interface StoredPoint { dataId: string, ts: number, num: number | null, str: string | null, messageUid: string }

/** The device messages of a system, oldest reception first. */
export async function messagesOf (stack: Stack, systemUid: string): Promise<StoredMessage[]> {
  const { rows } = await stack.db.query<StoredMessage>(
    `SELECT uid, protocol, ts, received_at AS "receivedAt", nb_data_points AS "nbDataPoints" FROM device_messages
     WHERE system_uid = $1 ORDER BY received_at, uid`, [systemUid])
  return rows
}

/** The data points of a system (optionally of one message) in insertion-independent order. */
export async function pointsOf (stack: Stack, systemUid: string, messageUid?: string): Promise<StoredPoint[]> {
  const { rows } = await stack.db.query<StoredPoint>(
    `SELECT data_id AS "dataId", ts, num, str, message_uid AS "messageUid" FROM data_points
     WHERE system_uid = $1 AND ($2::text IS NULL OR message_uid = $2) ORDER BY ts, data_id, num, str`, [systemUid, messageUid ?? null])
  return rows
}

/** Rows of every telemetry table for the system: what "nothing stored" is checked against. */
export async function telemetryCounts (stack: Stack, systemUid: string): Promise<{ messages: number, points: number, last: number, acks: number }> {
  const n = async (table: string): Promise<number> =>
    (await stack.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE system_uid = $1`, [systemUid])).rows[0]?.n ?? 0
  return { messages: await n('device_messages'), points: await n('data_points'), last: await n('data_last'), acks: await n('device_acks') }
}

/**
 * Waits until everything accepted is committed and its derived state (data_last, System data, lastCommDate) is
 * written: that state follows the acknowledged write in coalesced flushes (docs/architecture.md#how-data-flows).
 */
export async function settle (stack: Stack): Promise<void> {
  await stack.ctx.services.ingest.drain()
}

/** A pending task for the device over a protocol (default MQTT), written straight into device_tasks. */
export async function insertTask (stack: Stack, systemUid: string, body: Record<string, unknown>, opts: { createdAt?: number, protocol?: string } = {}): Promise<string> {
  const uid = typeof body.uid === 'string' ? body.uid : uniq('task')
  await stack.db.query('INSERT INTO device_tasks (uid, system_uid, protocol, body, created_at) VALUES ($1, $2, $3, $4, $5)',
    [uid, systemUid, opts.protocol ?? 'MQTT', JSON.stringify({ ...body, uid }), opts.createdAt ?? Date.now()])
  return uid
}

/** The running transport of this name (bin/transports.ts). */
export function transportOf (stack: Stack, name: string): DeviceTransport {
  const t = stack.service.transports.find((x) => x.name === name)
  if (t === undefined) throw new Error(`no transport ${name}`)
  return t
}

export async function taskState (stack: Stack, uid: string): Promise<{ state: string, message: string | null, sentAt: number | null, ackedAt: number | null } | undefined> {
  const { rows } = await stack.db.query<{ state: string, message: string | null, sentAt: number | null, ackedAt: number | null }>(
    'SELECT state, message, sent_at AS "sentAt", acked_at AS "ackedAt" FROM device_tasks WHERE uid = $1', [uid])
  return rows[0]
}

/** The refused counters of the ingest service (stats().refused), summed over reasons with the given prefix. */
export function refusedCount (stack: Stack, prefix = ''): number {
  return Object.entries(stack.ctx.services.ingest.stats().refused)
    .filter(([k]) => k.startsWith(prefix)).reduce((a, [, n]) => a + n, 0)
}
