// The device process of the MQTT ingest benchmarks (bench/ingest-devices.ts), run on targets in turn: bench ingest
// (the service, then bare aedes), bench cluster (the embedded broker, then Mosquitto with 1 and 2 ingest processes)
// and bench tls (MQTT, then MQTT over TLS).
import { fileURLToPath } from 'node:url'
import type { DevicesInput, TargetResult } from '../ingest-devices.js'
import { runJsonLinesChild } from './json-lines-child.js'
import { row } from './seed-systems.js'

const DEVICES_SCRIPT = fileURLToPath(new URL('../ingest-devices.ts', import.meta.url))

/** What the device process is given, its devices being systems 1..devices of bench/lib/seed-systems.ts. */
export function devicesInput (targets: DevicesInput['targets'], o: { devices: number, password: string, seconds: number, warmupSeconds: number, inflight: number, tls?: DevicesInput['tls'] }): DevicesInput {
  return {
    ...(o.tls === undefined ? {} : { tls: o.tls }),
    targets,
    usernames: Array.from({ length: o.devices }, (_, i) => row.serialNumber(i + 1)),
    password: o.password,
    seconds: o.seconds,
    warmupSeconds: o.warmupSeconds,
    inflight: o.inflight
  }
}

/** Runs the device process; answers its result per target, each also passed to onResult as it comes. */
export async function runDevices (input: DevicesInput, onResult: (r: TargetResult) => void = () => {}): Promise<TargetResult[]> {
  return await runJsonLinesChild<TargetResult>(DEVICES_SCRIPT, input, (r) => {
    for (const k of ['p50', 'p99', 'max'] as const) r.latencies[k] ??= Number.NaN // JSON has no NaN
    onResult(r)
  })
}
