// The device process of the MQTT ingest benchmarks (bench/ingest-devices.ts), run on targets in turn: bench ingest
// (the service, then bare aedes) and bench cluster (the embedded broker, then Mosquitto with 1 and 2 ingest processes).
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { DevicesInput, TargetResult } from '../ingest-devices.js'
import { row } from './seed-systems.js'

const DEVICES_SCRIPT = fileURLToPath(new URL('../ingest-devices.ts', import.meta.url))

/** What the device process is given, its devices being systems 1..devices of bench/lib/seed-systems.ts. */
export function devicesInput (targets: DevicesInput['targets'], o: { devices: number, password: string, seconds: number, warmupSeconds: number, inflight: number }): DevicesInput {
  return {
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
  const child = spawn(process.execPath, ['--import', 'tsx', DEVICES_SCRIPT, JSON.stringify(input)], { stdio: ['ignore', 'pipe', 'inherit'] })
  const results: TargetResult[] = []
  let partial = ''
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (s: string) => {
    const lines = (partial + s).split('\n')
    partial = lines.pop() ?? ''
    for (const line of lines) {
      if (!line.startsWith('{')) continue
      const r = JSON.parse(line) as TargetResult
      for (const k of ['p50', 'p99', 'max'] as const) r.latencies[k] ??= Number.NaN // JSON has no NaN
      results.push(r)
      onResult(r)
    }
  })
  const code = await new Promise<number | null>((resolve) => { child.on('close', resolve) })
  if (code !== 0) throw new Error(`device process exited with ${String(code)}`)
  return results
}
