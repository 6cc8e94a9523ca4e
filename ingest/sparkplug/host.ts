// The service as the Sparkplug B host application of its edge nodes (docs/protocols/sparkplug.md–4.4;
// docs/protocols/sparkplug.md): what an edge node publishes under `spBv1.0/` on the embedded broker, checked against
// its session (seq, bdSeq, aliases) and stored through the ingest pipeline as device messages with protocol SPARKPLUG;
// the rebirth requests; the deaths; and the device tasks sent as NCMD / DCMD (commands.ts).
import type { Logger } from '../../core/logger.js'
import type { DataPoint, DataValue } from '../../core/domain/device-message.js'
import type { DeviceTask } from '../../core/domain/device-task.js'
import type { IngestService } from '../../core/services/ingest/ingest.service.js'
import type { SparkplugNodes } from './sparkplug-nodes.js'
import type { MetricsRegistry } from '../../core/metrics.js'
import {
  decodePayload, deviceTopic, encodePayload, isStateTopic, nodeTopic, parseTopic,
  type SparkplugPayload, type SparkplugTopic, type RawValue
} from '../../protocols/sparkplug/index.js'
import type { Pipeline, PipelineOutcome } from '../pipeline.js'
import type { BusClient, BusPublish } from '../mqtt/namespaces.js'
import { createEdgeNodes, metricKey, type EdgeNode } from './edge-nodes.js'
import { convert } from './points.js'
import { controlCommand, planTask, REBIRTH, settle, type Answer, type Command } from './commands.js'

export interface HostDeps {
  ingest: Pick<IngestService, 'acceptAcks' | 'takeTasks' | 'drain'>
  pipeline: Pipeline
  publish: BusPublish
  nodes: SparkplugNodes
  log: Logger
  metrics: MetricsRegistry
  now: () => number
}

// Tahu's hosts ask a node for a rebirth at most once per 5 s (docs/protocols/sparkplug.md): a node that keeps sending
// out of step is not flooded with requests, each of which makes it send every metric again.
const REBIRTH_EVERY_MS = 5000

const text = (raw: RawValue): string | undefined =>
  raw.kind === 'int' ? String(raw.value) : raw.kind === 'long' ? raw.value.toString() : undefined

/** The host's state: its edge nodes' sessions, and when each was last asked for a rebirth. */
interface Host {
  deps: HostDeps
  edges: ReturnType<typeof createEdgeNodes>
  rebirthAt: Map<string, number>
  rebirths: ReturnType<MetricsRegistry['counter']>
}

async function send (h: Host, group: string, node: string, c: Command): Promise<void> {
  const topic = c.device === undefined ? nodeTopic(group, 'NCMD', node) : deviceTopic(group, 'DCMD', node, c.device)
  await h.deps.publish(topic, encodePayload({ timestamp: h.deps.now(), metrics: c.metrics }), { qos: 0, retain: false })
}

function rebirth (h: Host, systemUid: string, group: string, node: string, reason: string): void {
  const key = `${systemUid}\u0000${group}\u0000${node}`
  const now = h.deps.now()
  if (now - (h.rebirthAt.get(key) ?? -Infinity) < REBIRTH_EVERY_MS) return
  h.rebirthAt.set(key, now)
  h.rebirths.inc({ reason })
  h.deps.log.debug({ systemUid, group, node, reason }, 'sparkplug rebirth requested')
  send(h, group, node, controlCommand(REBIRTH)).catch((err: unknown) => { h.deps.log.warn({ err, systemUid }, 'sparkplug rebirth request not sent') })
}

async function store (h: Host, n: EdgeNode, points: readonly DataPoint[]): Promise<PipelineOutcome> {
  return await h.deps.pipeline.data(n.session, Buffer.alloc(0), () => ({ ok: true, points }))
}

/** Ends tasks (the edge node has no ack of its own): recorded as its acknowledgements. */
async function answer (h: Host, n: EdgeNode, answers: readonly Answer[]): Promise<void> {
  if (answers.length === 0) return
  await h.deps.ingest.acceptAcks(n.session.systemUid, 'SPARKPLUG', answers)
}

function remember (n: EdgeNode, points: readonly DataPoint[]): Map<string, DataValue> {
  const reported = new Map<string, DataValue>()
  for (const p of points) {
    const last = n.values.get(p.dataId)
    if (last === undefined || p.ts >= last.ts) n.values.set(p.dataId, { ts: p.ts, value: p.value })
    reported.set(p.dataId, p.value)
  }
  return reported
}

/** Runs tasks on a node: commands sent, answers given; the tasks awaited stay on the node. */
async function run (h: Host, n: EdgeNode, tasks: readonly DeviceTask[]): Promise<void> {
  if (tasks.length === 0) return
  n.actions ??= await h.deps.nodes.actions(n.session.systemUid)
  const answers: Answer[] = []
  for (const task of tasks) {
    const plan = planTask(n, task)
    if (plan.kind === 'values') {
      await store(h, n, plan.ids.map((id) => {
        const v = n.values.get(id)
        return { dataId: id, ts: v?.ts ?? h.deps.now(), value: v?.value ?? null }
      }))
    }
    if (plan.kind === 'send') {
      for (const c of plan.commands) await send(h, n.group, n.node, c)
      const awaiting = plan.awaiting
      if (awaiting !== undefined) n.awaiting = [...n.awaiting.filter((a) => a.uid !== awaiting.uid), awaiting]
    }
    if (plan.answer !== undefined) answers.push(plan.answer)
  }
  await answer(h, n, answers)
}

/** The tasks waiting for the system, and those sent before and not answered (a new session may have lost them). */
async function deliver (h: Host, n: EdgeNode): Promise<void> {
  try {
    await run(h, n, await h.deps.ingest.takeTasks(n.session.systemUid, 'SPARKPLUG', { again: true }))
  } catch (err) {
    h.deps.log.warn({ err, systemUid: n.session.systemUid }, 'sparkplug tasks not delivered; they wait for the next birth')
  }
}

async function nbirth (h: Host, client: BusClient, t: SparkplugTopic, p: SparkplugPayload): Promise<PipelineOutcome> {
  const converted = convert(p, undefined, undefined, true, h.deps.now())
  if ('refused' in converted) return h.deps.pipeline.refuse(converted.refused)
  const bd = p.metrics.find((m) => m.name === 'bdSeq')
  const n = h.edges.born(client.session, client, t.group, t.node, bd === undefined ? undefined : text(bd.raw), p.seq ?? 0)
  for (const { metric, alias } of converted.declared) {
    n.metrics.set(metricKey(undefined, metric.name), metric)
    if (alias !== undefined) n.aliases.set(alias, metric)
  }
  const reported = remember(n, converted.points)
  const outcome = await store(h, n, converted.points)
  await answer(h, n, settle(n, reported, true))
  await deliver(h, n)
  return outcome
}

async function ndeath (h: Host, client: BusClient, t: SparkplugTopic, p: SparkplugPayload): Promise<PipelineOutcome> {
  const n = h.edges.get(client.session.systemUid, t.group, t.node)
  const bd = p.metrics.find((m) => m.name === 'bdSeq')
  const bdSeq = bd === undefined ? undefined : text(bd.raw)
  // Only the death of the current session counts (§4.3): its bdSeq, and (the broker being the service's own) its
  // connection. Tahu's client never changes its bdSeq, so the Will of a connection lost before the node came back
  // on a new one carries the new session's bdSeq: the connection tells them apart.
  if (n === undefined || n.client !== client || n.bdSeq === undefined || bdSeq !== n.bdSeq) return h.deps.pipeline.refuse('ndeath.stale')
  n.online = false
  n.bdSeq = undefined
  // What the node sent before its death is written first: its commStatus OK must not land after the ERROR.
  await h.deps.ingest.drain()
  await h.deps.nodes.nodeDied(n.session.systemUid, h.deps.now())
  await answer(h, n, settle(n, new Map(), true))
  return { kind: 'stored' }
}

/** A DBIRTH declares the device's metrics; a DDEATH forgets the device and its values. */
function deviceLifecycle (n: EdgeNode, t: SparkplugTopic, declared: Extract<ReturnType<typeof convert>, { declared: unknown }>['declared']): void {
  const device = t.device
  if (device === undefined) return
  if (t.type === 'DBIRTH') {
    n.devices.add(device)
    for (const { metric, alias } of declared) {
      n.metrics.set(metricKey(device, metric.name), metric)
      if (alias !== undefined) n.aliases.set(alias, metric)
    }
  }
  if (t.type === 'DDEATH') {
    n.devices.delete(device)
    for (const id of n.values.keys()) if (id.startsWith(`${device}/`)) n.values.delete(id)
  }
}

/** NDATA, DBIRTH, DDATA, DDEATH: within the session the NBIRTH opened, in seq order. */
async function inSession (h: Host, client: BusClient, t: SparkplugTopic, p: SparkplugPayload): Promise<PipelineOutcome> {
  const { systemUid } = client.session
  const n = h.edges.get(systemUid, t.group, t.node)
  if (n === undefined || !n.online || n.client !== client) {
    rebirth(h, systemUid, t.group, t.node, 'birth.missing')
    return h.deps.pipeline.refuse('birth.missing')
  }
  const device = t.device
  if (device !== undefined && t.type !== 'DBIRTH' && !n.devices.has(device)) {
    rebirth(h, systemUid, t.group, t.node, 'birth.missing')
    return h.deps.pipeline.refuse('birth.missing')
  }
  const converted = t.type === 'DDEATH' ? { points: [], declared: [], unresolved: 0 } : convert(p, n, device, t.type === 'DBIRTH', h.deps.now())
  if ('refused' in converted) return h.deps.pipeline.refuse(converted.refused)
  // seq: one counter for the node and its devices, 0–255 and round (§4.3). A gap: something was lost.
  const inStep = p.seq !== undefined && p.seq === n.nextSeq
  n.nextSeq = p.seq === undefined ? undefined : (p.seq + 1) % 256
  if (!inStep) rebirth(h, systemUid, t.group, t.node, 'seq.gap')
  if (converted.unresolved > 0) rebirth(h, systemUid, t.group, t.node, 'alias.unknown')
  deviceLifecycle(n, t, converted.declared)
  const reported = remember(n, converted.points)
  const outcome = await store(h, n, converted.points)
  await answer(h, n, settle(n, reported, false))
  return outcome
}

async function handle (h: Host, client: BusClient, topic: string, payload: Buffer): Promise<PipelineOutcome> {
  const t = parseTopic(topic)
  // The STATE topics are the host's (§4.1): an edge node publishing there is refused like a command.
  if (t === undefined) return h.deps.pipeline.refuse(isStateTopic(topic) ? 'topic.forbidden' : 'topic.unsupported')
  // An edge node publishes under its own edge node id only, and never a host's command (§4.1).
  if (t.node !== client.session.username || t.type === 'NCMD' || t.type === 'DCMD') return h.deps.pipeline.refuse('topic.forbidden')
  const decoded = decodePayload(payload)
  if (!decoded.ok) return h.deps.pipeline.refuse(decoded.reason)
  switch (t.type) {
    case 'NBIRTH': return await nbirth(h, client, t, decoded.payload)
    case 'NDEATH': return await ndeath(h, client, t, decoded.payload)
    default: return await inSession(h, client, t, decoded.payload)
  }
}

export function createSparkplugHost (deps: HostDeps) {
  const h: Host = {
    deps,
    edges: createEdgeNodes(),
    rebirthAt: new Map(),
    rebirths: deps.metrics.counter<'reason'>({ name: 'fleet_sparkplug_rebirth_requests_total', help: 'Rebirth requests sent to Sparkplug B edge nodes, by reason', labels: ['reason'] })
  }
  /**
   * Each connection's publishes, one at a time: the MQTT session starts storing each publish as it is read (so that
   * a group commit takes many together), but a node's session (seq, births) must see them in order.
   */
  const chains = new WeakMap<BusClient, Promise<unknown>>()
  return {
    /** One publish of a connection, after the ones before it; resolves after commit. */
    async publish (client: BusClient, topic: string, payload: Buffer): Promise<PipelineOutcome> {
      const before = chains.get(client) ?? Promise.resolve()
      const mine = before.catch(() => {}).then(async () => await handle(h, client, topic, payload))
      chains.set(client, mine)
      return await mine
    },
    disconnected (client: BusClient): void { h.edges.closed(client) },
    connected: (systemUid: string): boolean => h.edges.reachable(systemUid) !== undefined,
    /** Sends the tasks to the system's online edge node; false when it has none here. */
    async push (systemUid: string, tasks: readonly DeviceTask[]): Promise<boolean> {
      const n = h.edges.reachable(systemUid)
      if (n === undefined) return false
      await run(h, n, tasks)
      return true
    },
    online: (): number => h.edges.online()
  }
}

export type SparkplugHost = ReturnType<typeof createSparkplugHost>
