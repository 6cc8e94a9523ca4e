// The M3DA device side of `npm run bench -- ingest --protocol m3da` (run by bench/ingest.ts, not on its own): one TCP
// connection per device, each sending envelopes of one data message (3 points, the MQTT bench's) as fast as the
// replies come. M3DA allows one package in flight per peer (docs/protocols/m3da.md), so each connection waits for its
// reply before it sends again. Envelopes are built and secured by the simulator's agent pieces (its link, session
// and payload objects), over the codecs of protocols/.
//
// Input: one JSON argument {target: {name, url, security, deviceIds, password}, seconds, warmupSeconds}.
// Output: one JSON line on stdout, the TargetResult of bench/ingest-devices.ts.
import { encodePayload } from '../protocols/m3da/index.js'
import { m3daLink } from '../simulator/transports/m3da-link.js'
import { messagesOf } from '../simulator/transports/m3da-objects.js'
import { DEFAULT_SERVER_ID, type M3daSecurity } from '../simulator/transports/m3da-options.js'
import { m3daSession, type M3daSession } from '../simulator/transports/m3da-session.js'
import type { TargetResult } from './ingest-devices.js'
import { percentile } from './lib/stats.js'

export interface M3daDevicesInput {
  target: { name: string, url: string, security: M3daSecurity, deviceIds: string[], password: string }
  seconds: number
  warmupSeconds: number
}

interface Device { session: M3daSession, seq: number }

/** The device's next envelope payload: the same three points as the MQTT bench's messages. */
function payload (d: Device, ts: number): Buffer {
  d.seq++
  return encodePayload(messagesOf([
    { dataId: 'machine.temperature', ts, value: 20 + (d.seq % 100) / 10 },
    { dataId: '_RSSI', ts, value: -70 - (d.seq % 20) },
    { dataId: 'sim.seq', ts, value: d.seq }
  ]))
}

/** Opens the connections 100 at a time (a secured agent is challenged at its first envelope, in the warm-up). */
async function connectAll (t: M3daDevicesInput['target']): Promise<{ devices: Device[], failed: number, lastError: string | undefined }> {
  const devices: Device[] = []
  let failed = 0
  let lastError: string | undefined
  const batch = 100
  for (let i = 0; i < t.deviceIds.length; i += batch) {
    await Promise.all(t.deviceIds.slice(i, i + batch).map(async (deviceId) => {
      const link = m3daLink(t.url)
      const session = m3daSession({ link, deviceId, password: t.password, security: t.security, serverId: DEFAULT_SERVER_ID })
      try {
        await link.connect()
        devices.push({ session, seq: 0 })
      } catch (err) {
        failed++
        lastError = (err as Error).message
      }
    }))
  }
  return { devices, failed, lastError }
}

async function runTarget (input: M3daDevicesInput): Promise<TargetResult> {
  const { devices, failed, lastError } = await connectAll(input.target)
  const cpu0 = process.cpuUsage() // after the process's start and the connections: the exchanges' own CPU
  if (failed > 0) process.stderr.write(`   ${input.target.name}: ${failed} devices not connected (last: ${lastError ?? ''})\n`)
  const latencies: number[] = []
  let acked = 0
  let ackedTotal = 0
  let errors = 0
  const start = performance.now()
  const windowStart = start + input.warmupSeconds * 1000
  const end = windowStart + input.seconds * 1000

  let lastFailure: string | undefined
  async function drive (d: Device): Promise<void> {
    while (performance.now() < end) {
      const at = performance.now()
      try {
        await d.session.request(payload(d, Date.now()))
      } catch (err) {
        // Refused (a 503 when the store is behind) or cut off: the agent sends again a moment later, as the service
        // asks (a lost connection is opened again by the next envelope); the errors column counts them.
        errors++
        lastFailure = (err as Error).message
        await new Promise((resolve) => setTimeout(resolve, 200))
        continue
      }
      const now = performance.now()
      ackedTotal++
      if (at >= windowStart && now <= end) { acked++; latencies.push(now - at) }
    }
  }
  await Promise.all(devices.map(drive))
  // The agents' own CPU (building, sealing, checking), which bench/ingest.ts prints per message beside the service's.
  const cpu = process.cpuUsage(cpu0)
  if (lastFailure !== undefined) process.stderr.write(`   ${input.target.name}: ${errors} envelopes not answered 200 (last: ${lastFailure})\n`)
  await Promise.all(devices.map(async (d) => { await d.session.close() }))
  latencies.sort((a, b) => a - b)
  return {
    name: input.target.name,
    connected: devices.length,
    acked,
    seconds: input.seconds,
    ackedTotal,
    errors: errors + failed,
    latencies: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies[latencies.length - 1] ?? Number.NaN },
    cpuUs: cpu.user + cpu.system
  }
}

const arg = process.argv[2]
if (arg === undefined) {
  console.error('bench/ingest-m3da-devices.ts is the device process of `npm run bench -- ingest --protocol m3da`; run that instead.')
  process.exit(2)
}
process.stdout.write(JSON.stringify(await runTarget(JSON.parse(arg) as M3daDevicesInput)) + '\n')
