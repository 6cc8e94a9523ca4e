// Edge nodes for the Sparkplug B tests: systems with the seeded generic Sparkplug firmware, Eclipse Tahu's own edge
// node client (sparkplug-client) against the service's embedded broker, and raw mqtt.js nodes for what Tahu's client
// never sends (a skipped seq, unknown aliases, garbage).
import { newClient, type UPayload } from 'sparkplug-client'
import type { MqttClient } from 'mqtt'
import { GENERIC_APPLICATION_TYPES } from '../../../core/domain/generic-applications.js'
import { uniq } from '../../helpers/factories.js'
import { createSystem, validImei } from '../../helpers/systems.js'
import type { Stack } from '../../helpers/stack.js'
import { connectDevice, packetsOf } from '../../helpers/devices.js'
import { decodePayload, type SparkplugPayload } from '../../../protocols/sparkplug/index.js'

export type TahuNode = ReturnType<typeof newClient>

export interface EdgeSystem { uid: string, serial: string, password: string }

let imeiSeq = 700_000 + Math.floor(Math.random() * 100_000)

/** A system whose gateway serial number is the edge node id, with an MQTT password and the generic Sparkplug firmware (or this application). */
export async function edgeSystem (stack: Stack, application?: string): Promise<EdgeSystem> {
  const res = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/applications?type=${GENERIC_APPLICATION_TYPES.SPARKPLUG}` })
  const app = application ?? (res.json().items as Array<{ uid: string }>)[0]?.uid
  if (app === undefined) throw new Error('no generic Sparkplug firmware')
  const serial = uniq('EDGE').toUpperCase()
  const password = uniq('mqtt-pw')
  const s = await createSystem(stack, {
    name: serial,
    gateway: { serialNumber: serial, imei: validImei(++imeiSeq) },
    communication: { mqtt: { password } },
    applications: [{ uid: app }]
  })
  return { uid: s.uid as string, serial, password }
}

/** A Tahu edge node of the system; `onBirth` publishes its births at every (re)connection, as Tahu's examples do. */
export function tahuNode (stack: Stack, s: EdgeSystem, group: string, onBirth: (node: TahuNode) => void): TahuNode {
  const node = newClient({
    serverUrl: stack.mqttUrl,
    username: s.serial,
    password: s.password,
    groupId: group,
    edgeNode: s.serial,
    clientId: uniq('tahu'),
    version: 'spBv1.0',
    keepalive: 30,
    mqttOptions: { reconnectPeriod: 200 }
  })
  node.on('birth', () => { onBirth(node) })
  return node
}

/** Tahu's client keeps its MQTT connection private: a lost connection (its Will goes out) is made through it. */
export function dropConnection (node: TahuNode): void {
  (node as unknown as { client: MqttClient }).client.stream.destroy()
}

export async function stopNode (node: TahuNode): Promise<void> {
  // mqtt.js 4 (Tahu's) has no endAsync.
  const client = (node as unknown as { client: MqttClient }).client
  await new Promise<void>((resolve) => { client.end(true, {}, () => { resolve() }) })
}

/** The commands a Tahu node received, in order. */
export function commandsOf (node: TahuNode): UPayload[] {
  const seen: UPayload[] = []
  node.on('ncmd', (p: UPayload) => { seen.push(p) })
  return seen
}

/** A raw mqtt.js edge node: the system's login, subscribed to its own NCMD topic. */
export async function rawNode (stack: Stack, s: EdgeSystem): Promise<MqttClient> {
  return await connectDevice(stack.mqttUrl, s.serial, s.password, { version: 4 })
}

/** The Sparkplug payloads a raw client received on a topic. */
export function receivedOn (client: MqttClient, topic: string): SparkplugPayload[] {
  return packetsOf(client)
    .filter((p): p is Extract<typeof p, { cmd: 'publish' }> => p.cmd === 'publish' && p.topic === topic)
    .map((p) => decodePayload(p.payload as Buffer))
    .flatMap((d) => d.ok ? [d.payload] : [])
}

/** Whether the payload holds the boolean metric set to true (`Node Control/Rebirth`...). */
export function asks (p: UPayload | SparkplugPayload, name: string): boolean {
  const metrics = (p.metrics ?? []) as Array<{ name?: string | null, value?: unknown, raw?: { value?: unknown } }>
  return metrics.some((m) => m.name === name && (m.value === true || m.raw?.value === true))
}
