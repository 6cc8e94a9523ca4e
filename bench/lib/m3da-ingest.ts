// The M3DA part of `npm run bench -- ingest --protocol m3da` (docs/protocols/m3da.md): after the MQTT devices of the
// same run, the same number of M3DA agents over TCP, first without security (their application's communication says
// `authentication: "none"`), then with hmac-sha1 and aes-cbc-128 (each system has its M3DA password). Each group runs
// in a device process of its own (bench/ingest-m3da-devices.ts); what it committed is counted in the store.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { Db } from '../../core/ports/store.js'
import type { TargetResult } from '../ingest-devices.js'
import type { M3daDevicesInput } from '../ingest-m3da-devices.js'
import type { M3daSecurity } from '../../simulator/transports/m3da-options.js'
import { row } from './seed-systems.js'

const DEVICES_SCRIPT = fileURLToPath(new URL('../ingest-m3da-devices.ts', import.meta.url))
export const M3DA_PASSWORD = 'bench-m3da-password'

export interface M3daGroup { name: string, security: M3daSecurity, first: number }

/** Unsecured agents are systems 1..n (those of the MQTT run), secured ones n+1..2n (seed 2n systems). */
export const m3daGroups = (n: number): M3daGroup[] => [
  { name: 'M3DA unsecured', security: { mode: 'none' }, first: 1 },
  { name: 'M3DA hmac-sha1 + aes-cbc-128', security: { mode: 'password', mac: 'hmac-sha1', cipher: 'aes-cbc-128' }, first: n + 1 }
]

/**
 * Gives systems 1..n an M3DA application that admits agents without security, and systems n+1..2n an M3DA password
 * and an application naming hmac-sha1 and aes-cbc-128 (docs/devices.md).
 */
export async function seedM3da (db: Db, companyUid: string, n: number, now: number): Promise<void> {
  const apps = [
    { uid: 'bench-app-m3da-open', type: 'bench.m3da.open', parameters: { authentication: 'none' }, from: 1, to: n },
    { uid: 'bench-app-m3da-secured', type: 'bench.m3da.secured', parameters: { authentication: 'hmac-sha1', encryption: 'aes-cbc-128' }, from: n + 1, to: 2 * n }
  ]
  for (const a of apps) {
    await db.query(`INSERT INTO applications (uid, company_uid, name, revision, type, category, communication, created_at)
      VALUES ($1, $2, $3, '1.0.0', $4, 'FIRMWARE', $5::jsonb, $6)`,
    [a.uid, companyUid, `Bench ${a.type}`, a.type, JSON.stringify([{ type: 'M3DA', commIdType: 'SERIAL', parameters: a.parameters }]), now])
    await db.query(`INSERT INTO system_applications (system_uid, application_uid)
      SELECT md5('s' || i), $1 FROM generate_series($2::int, $3::int) AS i`, [a.uid, a.from, a.to])
  }
  await db.query(`UPDATE systems SET communication = communication || jsonb_build_object('m3da', jsonb_build_object('password', $1::text))
    WHERE uid IN (SELECT md5('s' || i) FROM generate_series($2::int, $3::int) AS i)`, [M3DA_PASSWORD, n + 1, 2 * n])
}

/** Runs one group's device process; answers its result. */
export async function runM3daGroup (group: M3daGroup, opts: { url: string, devices: number, seconds: number, warmupSeconds: number }): Promise<TargetResult> {
  const input: M3daDevicesInput = {
    target: {
      name: group.name,
      url: opts.url,
      security: group.security,
      deviceIds: Array.from({ length: opts.devices }, (_, i) => row.serialNumber(group.first + i)),
      password: M3DA_PASSWORD
    },
    seconds: opts.seconds,
    warmupSeconds: opts.warmupSeconds
  }
  const child = spawn(process.execPath, ['--import', 'tsx', DEVICES_SCRIPT, JSON.stringify(input)], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (s: string) => { out += s })
  const code = await new Promise<number | null>((resolve) => { child.on('close', resolve) })
  const line = out.split('\n').find((l) => l.startsWith('{'))
  if (code !== 0 || line === undefined) throw new Error(`M3DA device process exited with ${code}`)
  const r = JSON.parse(line) as TargetResult
  for (const k of ['p50', 'p99', 'max'] as const) r.latencies[k] ??= Number.NaN // JSON has no NaN
  return r
}

/** Device messages and points stored so far for a protocol. */
export async function storedOf (db: Db, protocol: string): Promise<{ m: number, p: number }> {
  const { rows } = await db.query<{ m: number, p: number }>(`SELECT count(*)::int8 AS m, coalesce(sum(nb_data_points), 0)::int8 AS p
    FROM device_messages WHERE protocol = $1`, [protocol])
  return { m: Number(rows[0]?.m ?? 0), p: Number(rows[0]?.p ?? 0) }
}
