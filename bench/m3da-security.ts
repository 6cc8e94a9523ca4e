// M3DA security per package: the CPU the codecs and the security extension cost each side, beside MQTT's, in one run.
//
// What one package of `bench ingest --protocol m3da` costs to build, seal, open and answer, measured alone (one
// thread, no sockets, no store), for the same three points as the ingest bench's messages:
//   - device: build the message, frame it (MQTT PUBLISH / M3DA envelope, sealed when secured), read the reply (PUBACK /
//     the reply envelope, its MAC checked and its payload decrypted when secured);
//   - service: read the request (PUBLISH and its JSON / the envelope, opened when secured, its payload decoded into
//     points) and frame the reply (PUBACK / the status envelope, sealed when secured).
// The ratio column is each path's cost over MQTT's, per side. The ingest bench runs the devices, the service and the
// store on the same cores: these figures are the part of its secured-vs-MQTT gap that no change of the service's
// pipeline can close (docs/protocols/m3da.md: a fresh key, IV and two HMACs per envelope and direction).
//
// Env: BENCH_PACKAGES (50000 per path and side, after 5000 of warm-up).
import mqtt from 'mqtt-packet'
import { decodeData, encodeData } from '../protocols/airvantage/index.js'
import { decodeEnvelope, decodePayload, encodeEnvelope, encodePayload, type Envelope, type M3daMessage } from '../protocols/m3da/index.js'
import {
  deriveKeys, newNonce, openDeviceEnvelope, openServerEnvelope, sealDeviceEnvelope, sealServerEnvelope, type MacAlgorithm, type SecurityCipher
} from '../protocols/m3da/security/index.js'
import { pointsOf } from '../ingest/m3da/points.js'
import { messagesOf } from '../simulator/transports/m3da-objects.js'
import { DEFAULT_SERVER_ID } from '../simulator/transports/m3da-options.js'
import { table } from './lib/table.js'

const PACKAGES = Number(process.env.BENCH_PACKAGES ?? 50_000)
const WARMUP = 5000
const DEVICE_ID = 'SN0000001'
const PASSWORD = 'bench-m3da-password'
const MQTT_OPTS = { protocolVersion: 4 }

/** µs per call of `f`, after a warm-up. */
function measure (f: (i: number) => void): number {
  for (let i = 0; i < WARMUP; i++) f(i)
  const t0 = process.hrtime.bigint()
  for (let i = 0; i < PACKAGES; i++) f(i)
  return Number(process.hrtime.bigint() - t0) / PACKAGES / 1000
}

const points = (seq: number, ts: number): Array<{ dataId: string, ts: number, value: number }> => [
  { dataId: 'machine.temperature', ts, value: 20 + (seq % 100) / 10 },
  { dataId: '_RSSI', ts, value: -70 - (seq % 20) },
  { dataId: 'sim.seq', ts, value: seq }
]
const m3daPayload = (seq: number): Buffer => encodePayload(messagesOf(points(seq, Date.now())))

interface PathCost { name: string, device: number, service: number }

function mqttCost (): PathCost {
  const parser = mqtt.parser(MQTT_OPTS)
  let last: mqtt.Packet | undefined
  parser.on('packet', (p: mqtt.Packet) => { last = p })
  const puback = mqtt.generate({ cmd: 'puback', messageId: 1 }, MQTT_OPTS)
  const publish = (seq: number): Buffer => mqtt.generate({ cmd: 'publish', topic: `${DEVICE_ID}/messages/json`, payload: Buffer.from(encodeData(points(seq, Date.now()))), qos: 1, retain: false, dup: false, messageId: 1 + (seq % 65535) }, MQTT_OPTS)
  const device = measure((i) => { publish(i); parser.parse(puback) })
  const sample = publish(1)
  const service = measure(() => {
    parser.parse(sample)
    const p = last as mqtt.IPublishPacket
    const decoded = decodeData(p.payload as Buffer, { receivedAt: Date.now() })
    if (!decoded.ok) throw new Error('MQTT payload refused')
    mqtt.generate({ cmd: 'puback', messageId: p.messageId ?? 1 }, MQTT_OPTS)
  })
  return { name: 'MQTT (JSON, QoS 1)', device, service }
}

/** Reads a request's payload as the service does (exchange.ts): Messages into points. */
function servePayload (payload: Buffer): void {
  const decoded = decodePayload(payload)
  if (!decoded.ok) throw new Error(decoded.reason)
  const r = pointsOf(decoded.objects.filter((o): o is M3daMessage => o.kind === 'message'), Date.now())
  if (!r.ok) throw new Error(r.reason)
}

const envelope = (bytes: Buffer): Envelope => {
  const d = decodeEnvelope(bytes)
  if (!d.ok) throw new Error(d.reason)
  return d.envelope
}

function plainCost (): PathCost {
  const reply = encodeEnvelope({ header: { status: 200 }, payload: Buffer.alloc(0), footer: {} })
  const device = measure((i) => { encodeEnvelope({ header: { id: DEVICE_ID }, payload: m3daPayload(i) }); envelope(reply) })
  const request = encodeEnvelope({ header: { id: DEVICE_ID }, payload: m3daPayload(1) })
  const service = measure(() => { servePayload(envelope(request).payload); encodeEnvelope({ header: { status: 200 }, payload: Buffer.alloc(0), footer: {} }) })
  return { name: 'M3DA unsecured', device, service }
}

function securedCost (algorithm: MacAlgorithm, cipher: SecurityCipher): PathCost {
  const keys = deriveKeys(PASSWORD, DEVICE_ID, DEFAULT_SERVER_ID)
  const server = { deviceId: DEVICE_ID, password: PASSWORD, serverId: DEFAULT_SERVER_ID }
  // One exchange of the nonce chain, to have a request and a reply that open: N0 signs the request, which announces
  // N1; the reply is signed with N1 and announces N2 (§2.8.3).
  const n0 = newNonce()
  const request = sealDeviceEnvelope({ payload: m3daPayload(1) }, { deviceId: DEVICE_ID, keys, nonce: n0, algorithm, cipher })
  const reply = sealServerEnvelope({ header: { status: 200 }, payload: Buffer.alloc(0) }, { ...server, nonce: request.nextNonce, algorithm, cipher })
  const device = measure((i) => {
    sealDeviceEnvelope({ payload: m3daPayload(i) }, { deviceId: DEVICE_ID, keys, nonce: n0, algorithm, cipher })
    if (openServerEnvelope(envelope(reply.bytes), { keys, nonce: request.nextNonce, cipher }).kind !== 'open') throw new Error('reply refused')
  })
  const service = measure(() => {
    const opened = openDeviceEnvelope(envelope(request.bytes), { ...server, nonce: n0, cipher })
    if (opened.kind !== 'open') throw new Error('request refused')
    servePayload(opened.inner.payload)
    sealServerEnvelope({ header: { status: 200 }, payload: Buffer.alloc(0) }, { ...server, nonce: opened.nextNonce, algorithm: opened.algorithm, cipher: opened.cipher })
  })
  return { name: `M3DA ${algorithm} + ${cipher}`, device, service }
}

const costs = [
  mqttCost(),
  plainCost(),
  securedCost('hmac-md5', 'none'),
  securedCost('hmac-sha1', 'aes-cbc-128'),
  securedCost('hmac-sha1', 'aes-ctr-256')
]
const mqttPath = costs[0] as PathCost
console.log(`CPU per package, µs (${PACKAGES} packages per path and side, one thread, no sockets, no store)\n`)
console.log(table(['path', 'device µs', 'device ÷ MQTT', 'service µs', 'service ÷ MQTT', 'both µs', 'both − MQTT µs'],
  costs.map((c) => [c.name, c.device, c.device / mqttPath.device, c.service, c.service / mqttPath.service, c.device + c.service,
    c === mqttPath ? 0 : c.device + c.service - mqttPath.device - mqttPath.service])))
