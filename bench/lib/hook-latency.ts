// Part b of `npm run bench -- alerts`: from a point that raises an alert to the rule's hook arriving at a local HTTP
// receiver. A few MQTT devices (lean clients of this process) take turns sending a value over a rule's threshold and,
// once it is acknowledged, one under it (the alert closes): `alerts` transitions at `perSecond`. Each hook POST is
// matched to its point by the event's target and date, and its signature checked with the service's CALLBACK_SECRET.
import { createHmac } from 'node:crypto'
import { EventEmitter, once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import mqtt, { type Packet } from 'mqtt-packet'
import { mqttDisconnect, mqttLogin, type LoggedIn } from './mqtt-connect.js'
import { row } from './seed-systems.js'
import { percentile } from './stats.js'

export interface HookRun {
  mqttUrl: string
  /** Devices 1..devices of bench/lib/seed-systems.ts log in with `password`. */
  devices: number
  password: string
  alerts: number
  perSecond: number
  /** The data id the rule's threshold is on; 1 is over it, 0 under. */
  dataId: string
  secret: string
  /** Adds the rule's hook to the receiver's URL. */
  addHook: (url: string) => Promise<void>
}

export interface HookFigures {
  alerts: number
  delivered: number
  badSignatures: number
  /** From the device's PUBLISH of the point to the hook's arrival, ms. */
  fromPublish: { p50: number, p99: number, max: number }
  /** From the alert's date (taken in the transaction that stores the point, just before its commit) to the arrival, ms. */
  fromCommit: { p50: number, p99: number, max: number }
  seconds: number
}

interface Hook { at: number, target: string, date: number, signed: boolean }

/** The receiver's hooks as they arrive, and an emitter that says 'hook' after each. */
async function receiver (secret: string): Promise<{ url: string, hooks: Hook[], arrivals: EventEmitter, close: () => Promise<void> }> {
  const hooks: Hook[] = []
  const arrivals = new EventEmitter()
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const at = Date.now()
      const body = Buffer.concat(chunks)
      const event = JSON.parse(body.toString('utf8')) as { date: number, content: Record<string, string> }
      const signed = req.headers['x-fleet-signature'] === `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`
      hooks.push({ at, target: event.content['target.uid'] ?? '', date: event.date, signed })
      arrivals.emit('hook')
      res.writeHead(204).end()
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/fleet-alerts`,
    hooks,
    arrivals,
    async close () { server.closeAllConnections(); server.close(); await once(server, 'close') }
  }
}

const OPTS = { protocolVersion: 4 as const }

/** A device sending QoS 1 messages one at a time: `send` resolves on the PUBACK. */
interface Device { serial: string, uid: string, link: LoggedIn, send: (value: number) => Promise<void>, sentAt: number[] }

async function device (url: URL, i: number, password: string, dataId: string): Promise<Device> {
  const serial = row.serialNumber(i)
  const link = await mqttLogin(url, { clientId: serial, username: serial, password })
  const waiting = new Map<number, () => void>()
  let next = 1
  link.parser.on('packet', (p: Packet) => { if (p.cmd === 'puback' && p.messageId !== undefined) waiting.get(p.messageId)?.() })
  const send = async (value: number): Promise<void> => {
    const messageId = next
    next = next === 65535 ? 1 : next + 1
    const acked = new Promise<void>((resolve) => { waiting.set(messageId, () => { waiting.delete(messageId); resolve() }) })
    const payload = Buffer.from(JSON.stringify({ [dataId]: value }))
    link.socket.write(mqtt.generate({ cmd: 'publish', topic: `${serial}/messages/json`, payload, qos: 1, retain: false, dup: false, messageId }, OPTS))
    await acked
  }
  return { serial, uid: row.uid(i), link, send, sentAt: [] }
}

const spread = (ms: number[]): HookFigures['fromPublish'] => {
  const sorted = [...ms].sort((a, b) => a - b)
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? Number.NaN }
}

/**
 * One transition to true: the point over the threshold, then, once it is committed (its PUBACK), one under it, so that
 * the next turn of this device raises a new alert rather than finding it open.
 */
async function raiseOnce (d: Device): Promise<void> {
  d.sentAt.push(Date.now())
  await d.send(1)
  await d.send(0)
}

/** Waits for `count` hooks, at most `ms` after the last point. */
async function allHooks (rx: { hooks: Hook[], arrivals: EventEmitter }, count: number, ms: number): Promise<void> {
  if (rx.hooks.length >= count) return
  await new Promise<void>((resolve) => {
    const done = (): void => { clearTimeout(timer); rx.arrivals.off('hook', arrived); resolve() }
    const arrived = (): void => { if (rx.hooks.length >= count) done() }
    const timer = setTimeout(done, ms)
    rx.arrivals.on('hook', arrived)
  })
}

export async function measureHookLatency (run: HookRun): Promise<HookFigures> {
  const rx = await receiver(run.secret)
  const devices: Device[] = []
  try {
    await run.addHook(rx.url)
    const url = new URL(run.mqttUrl)
    for (let i = 1; i <= run.devices; i++) devices.push(await device(url, i, run.password, run.dataId))
    // Each device's first point is under the threshold: its first answer (false) is stored, so the turns below are
    // transitions as a fleet's are, not first answers.
    await Promise.all(devices.map(async (d) => { await d.send(0) }))
    const start = Date.now()
    const turns: Array<Promise<void>> = []
    for (let n = 0; n < run.alerts; n++) {
      // Paced, not as fast as possible: alerts spread over time as a fleet raises them.
      const due = start + (n * 1000) / run.perSecond
      if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()))
      const d = devices[n % devices.length]
      if (d !== undefined) turns.push(raiseOnce(d))
    }
    await Promise.all(turns)
    await allHooks(rx, run.alerts, 30_000)
    const seconds = (Date.now() - start) / 1000
    const byUid = new Map(devices.map((d) => [d.uid, d]))
    const fromPublish: number[] = []
    const fromCommit: number[] = []
    for (const h of rx.hooks) {
      // The point that raised it: the device's last one over the threshold sent before the alert's date.
      const sent = byUid.get(h.target)?.sentAt.filter((t) => t <= h.date).pop()
      if (sent !== undefined) fromPublish.push(h.at - sent)
      fromCommit.push(h.at - h.date)
    }
    return {
      alerts: run.alerts,
      delivered: rx.hooks.length,
      badSignatures: rx.hooks.filter((h) => !h.signed).length,
      fromPublish: spread(fromPublish),
      fromCommit: spread(fromCommit),
      seconds
    }
  } finally {
    await Promise.all(devices.map(async (d) => { await mqttDisconnect(d.link) }))
    await rx.close()
  }
}
