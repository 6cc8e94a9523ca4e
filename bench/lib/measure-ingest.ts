// One group of `bench ingest`'s devices (bench/ingest-devices.ts) against a service of the benchmark's process, counted
// as the store saw it: the messages committed while they published, and the CPU the service and the devices took.
// Shared by bench tls (plain MQTT beside MQTTS) and bench alerts (no rules beside 1,000 rules).
import type { Db } from '../../core/ports/store.js'
import type { TargetResult } from '../ingest-devices.js'
import { devicesInput, runDevices } from './device-process.js'
import type { BenchTls } from './mqtt-connect.js'

/** The devices' side of a run: systems 1..devices of bench/lib/seed-systems.ts, each logging in with `password`. */
export interface IngestRun {
  devices: number
  inflight: number
  password: string
  /** Measured seconds, after `warmupSeconds` of publishing that the acknowledgement latencies leave out. */
  seconds: number
  warmupSeconds: number
}

export interface IngestFigures {
  name: string
  result: TargetResult
  /** Rows stored per second of publishing (warm-up included, as bench ingest counts). */
  committedPerS: number
  serviceUsPerMessage: number
  devicesUsPerMessage: number
}

export async function storedMessages (db: Db): Promise<number> {
  return Number((await db.query<{ m: number }>('SELECT count(*)::int8 AS m FROM device_messages')).rows[0]?.m ?? 0)
}

/** One group against `url`: what the store committed meanwhile, and the CPU it took (this process is the service's). */
export async function measureIngest (db: Db, name: string, url: string, run: IngestRun, tls?: BenchTls): Promise<IngestFigures> {
  console.log(`   ${name}: ${run.devices} connections, ${run.inflight} in flight each, ${run.warmupSeconds} s warm-up + ${run.seconds} s`)
  const before = await storedMessages(db)
  const cpu0 = process.cpuUsage()
  const [result] = await runDevices(devicesInput([{ name, url }], { ...run, ...(tls === undefined ? {} : { tls }) }))
  const cpu = process.cpuUsage(cpu0)
  if (result === undefined) throw new Error(`${name}: the device process answered no result`)
  const stored = await storedMessages(db) - before
  if (stored < result.ackedTotal) throw new Error(`${name}: ${result.ackedTotal} messages acknowledged but only ${stored} stored`)
  const n = Math.max(1, stored)
  const f: IngestFigures = { name, result, committedPerS: stored / (run.seconds + run.warmupSeconds), serviceUsPerMessage: (cpu.user + cpu.system) / n, devicesUsPerMessage: result.cpuUs / n }
  console.log(`   ${name}: ${f.committedPerS.toFixed(0)} msg/s committed, ack p50 ${result.latencies.p50.toFixed(1)} ms, p99 ${result.latencies.p99.toFixed(1)} ms` +
    `${result.errors > 0 ? `, ${result.errors} unacknowledged` : ''}`)
  return f
}
