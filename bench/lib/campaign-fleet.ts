// One fleet of the campaign benchmark: the service in a child process of its own (service-process.ts: its RSS is its
// own) with N systems seeded, on a scratch PostgreSQL database or on PGlite, and N of the simulator's MQTT devices in
// another (devices-process.ts) that carry out software installs as `fleet simulate` does (download with resume,
// SHA-256 check, the failing share of `--update-failure-rate`).
import { createScratchDatabase, type ScratchDatabase } from './postgres.js'
import { startServiceProcess, type ServiceProcess } from './service-process.js'
import { startDevicesProcess, type DevicesProcess, type DevicesSoftware } from './devices-process.js'
import { login, type Api } from './campaign-api.js'

export type Store = 'postgres' | 'pglite'

export interface CampaignFleet {
  store: Store
  svc: ServiceProcess
  devices: DevicesProcess
  api: Api
  /** Devices connected and subscribed. */
  connected: number
  close (): Promise<void>
}

export const LABEL = 'bench-campaign'
const MQTT_PASSWORD = 'bench-mqtt-password'
const ADMIN = { email: 'campaign@fleet.local', password: 'campaign-bench-password', client: 'campaign-bench', secret: 'campaign-bench-secret' }

export interface FleetInput {
  store: Store
  /** PostgreSQL server for the scratch database (store postgres). */
  serverUrl: string | undefined
  devices: number
  connectRate: number
  software: DevicesSoftware
  /** More variables for the service (WORKER_CONCURRENCY...). */
  env: Record<string, string>
}

export async function startCampaignFleet (input: FleetInput): Promise<CampaignFleet> {
  let scratch: ScratchDatabase | undefined
  if (input.store === 'postgres' && input.serverUrl !== undefined) scratch = await createScratchDatabase(input.serverUrl, 'fleet_bench_campaign')
  let svc: ServiceProcess | undefined
  let devices: DevicesProcess | undefined
  const close = async (): Promise<void> => {
    await devices?.close()
    await svc?.close()
    await scratch?.drop()
  }
  try {
    svc = await startServiceProcess({
      databaseUrl: scratch?.url,
      env: { ...input.env, FLEET_ADMIN_EMAIL: ADMIN.email, FLEET_ADMIN_PASSWORD: ADMIN.password, FLEET_CLIENT_ID: ADMIN.client, FLEET_CLIENT_SECRET: ADMIN.secret },
      devices: input.devices,
      seed: { password: MQTT_PASSWORD, applicationType: 'generic.mqtt', label: LABEL },
      // The service's RSS is a target (< 1 GiB): measured on a store another process created and seeded, as a service
      // restarted on its DATA_DIR runs (docs/benchmarks.md#campaign).
      seedIn: 'apart'
    })
    let shown = 0
    devices = startDevicesProcess({ mqttUrl: svc.mqttUrl, devices: input.devices, password: MQTT_PASSWORD, perSecond: input.connectRate, rebootMs: 1000, client: 'lean', software: input.software },
      (connected) => {
        if (connected - shown < input.devices / 5) return
        shown = connected
        console.log(`   ${connected} connected`)
      })
    const ready = await devices.ready
    console.log(`   ${ready.connected} of ${input.devices} devices connected in ${ready.seconds.toFixed(1)} s${ready.failed > 0 ? ` (${ready.failed} gave up: ${ready.lastError ?? '?'})` : ''}; ` +
      `seeded in ${svc.seedSeconds.toFixed(1)} s`)
    const api = await login(svc.origin, ADMIN)
    return { store: input.store, svc, devices, api, connected: ready.connected, close }
  } catch (err) {
    await close().catch(() => {})
    throw err
  }
}
