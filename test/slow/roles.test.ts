// Roles: `fleet serve --roles api,ingest,worker` runs only the named parts. On its own store each role
// serves what it should and nothing else; on PostgreSQL, Redis and a Mosquitto of the test's own, an api, a worker
// and an ingest process make one service: devices publish to the broker and the ingest process stores their data,
// a reboot asked of the api process is run by the worker, whose task reaches the devices through the broker, and
// their acknowledgements, read by the ingest process, finish it.
import { describe, expect, it, onTestFinished } from 'vitest'
import mqtt from 'mqtt'
import { startFleet } from '../../simulator/fleet.js'
import { connectApi } from '../../simulator/provision.js'
import { expectAllStored, recordAckedSeqs } from '../helpers/acked-seqs.js'
import { freePort, spawnFleet, type Child } from '../helpers/child.js'
import { cliService, until } from '../helpers/cli-service.js'
import { inspect, pgliteStore, postgresStore, quiet } from '../helpers/cli-stores.js'
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../helpers/env.js'
import { startMosquitto } from '../helpers/mosquitto.js'
import { eventually } from '../helpers/eventually.js'

const CLIENT_SECRET = 'roles-secret'
const ADMIN_PASSWORD = 'roles-password'
const first = { FLEET_ADMIN_PASSWORD: ADMIN_PASSWORD, FLEET_CLIENT_SECRET: CLIENT_SECRET }

async function status (url: string): Promise<number> {
  return (await fetch(url)).status
}

describe('one role per process, each on its own store', () => {
  it('api serves the API and no device port; ingest the device ports and no API', { timeout: 180_000 }, async () => {
    const apiStore = await pgliteStore()
    onTestFinished(async () => { await apiStore.drop() })
    const api = await cliService(apiStore, first)
    const apiProc = spawnFleet(['serve', '--roles', 'api'], api.env)
    const started = await apiProc.waitForLine(/fleet service started/, 90_000)
    expect(started).toContain('"roles":["api"]')
    expect(started).toContain('"ports":{}')
    expect(await status(`http://127.0.0.1:${api.httpPort}/api/v1/users/current`)).toBe(401)
    expect(await status(`http://127.0.0.1:${api.httpPort}/ready`)).toBe(200)
    await expect(mqtt.connectAsync(`mqtt://127.0.0.1:${api.mqttPort}`, { reconnectPeriod: 0, connectTimeout: 2000 })).rejects.toThrow()
    apiProc.signal('SIGTERM')
    await apiProc.exited()

    const ingestStore = await pgliteStore()
    onTestFinished(async () => { await ingestStore.drop() })
    const ingest = await cliService(ingestStore, first)
    const ingestProc = spawnFleet(['serve', '--roles=ingest'], ingest.env)
    expect(await ingestProc.waitForLine(/fleet service started/, 90_000)).toContain('"roles":["ingest"]')
    // No API, no first company (an api process makes it), but health, readiness and the devices' routes.
    expect(await status(`http://127.0.0.1:${ingest.httpPort}/api/v1/users/current`)).toBe(404)
    expect(await status(`http://127.0.0.1:${ingest.httpPort}/api/oauth/token`)).toBe(404)
    expect(await status(`http://127.0.0.1:${ingest.httpPort}/health`)).toBe(200)
    expect(await status(`http://127.0.0.1:${ingest.httpPort}/device/tasks`)).toBe(401)
    const refused = await mqtt.connectAsync(`mqtt://127.0.0.1:${ingest.mqttPort}`, { username: 'nobody', password: 'x', reconnectPeriod: 0 }).then(() => 'accepted', (err: Error) => err.message)
    expect(refused).toMatch(/not authorized|bad user ?name or password/i)
    expect(ingestProc.stdout()).not.toContain('Created company')
    ingestProc.signal('SIGTERM')
    expect(await ingestProc.exited()).toEqual({ code: 0, signal: null })
  })

  it('refuses an unknown role, naming the --roles flag it came from', { timeout: 60_000 }, async () => {
    const store = await pgliteStore()
    onTestFinished(async () => { await store.drop() })
    const bad = spawnFleet(['serve', '--roles', 'api,broker'], { ...store.env, ...quiet })
    expect(await bad.exited()).toMatchObject({ code: 1 })
    expect(bad.stderr()).toBe('fleet: --roles must be a comma-separated list of api, ingest, worker, got "api,broker"\n')
  })
})

// A cluster needs a store every process shares: PostgreSQL, with Redis for the queue. These runs need
// TEST_DATABASE_URL and TEST_REDIS_URL; without them they are left out locally, but with CI=true they run and fail
// (a CI run never passes by leaving the servers out: docs/testing.md).
const CI = process.env.CI === 'true'
const servers = (TEST_DATABASE_URL !== undefined && TEST_REDIS_URL !== undefined) || CI ? ['PostgreSQL, Redis and Mosquitto'] : []

describe.each(servers)('an api, a worker and an ingest process on %s', () => {
  it('store device data and run a reboot together', { timeout: 300_000 }, async () => {
    if (TEST_REDIS_URL === undefined) throw new Error('TEST_REDIS_URL is needed')
    const broker = await startMosquitto()
    onTestFinished(async () => { await broker.stop() })
    const store = await postgresStore()
    onTestFinished(async () => { await store.drop() })
    const shared = { ...store.env, ...first, REDIS_URL: TEST_REDIS_URL, MQTT_URL: broker.adminUrl, HTTP_HOST: '127.0.0.1', M3DA_PORT: '0', LWM2M_PORT: '0', LWM2MS_PORT: '0', LOG_LEVEL: 'info', RATE_LIMIT_PER_S: '100000' }
    const ports = { api: await freePort(), worker: await freePort(), ingest: await freePort() }
    // The api process first: it migrates and makes the first company.
    const apiProc = spawnFleet(['serve', '--roles', 'api'], { ...shared, HTTP_PORT: String(ports.api), FLEET_NODE_ID: 'api-1' })
    await apiProc.waitForLine(/fleet service started/, 90_000)
    const workerProc = spawnFleet(['serve', '--roles', 'worker'], { ...shared, HTTP_PORT: String(ports.worker), FLEET_NODE_ID: 'worker-1' })
    const ingestProc = spawnFleet(['serve', '--roles', 'ingest'], { ...shared, HTTP_PORT: String(ports.ingest), FLEET_NODE_ID: 'ingest-1' })
    await workerProc.waitForLine(/fleet service started/, 90_000)
    await ingestProc.waitForLine(/fleet service started/, 90_000)

    const api = await connectApi({ url: `http://127.0.0.1:${ports.api}`, clientId: 'fleet-cli', clientSecret: CLIENT_SECRET, email: 'admin@fleet.local', password: ADMIN_PASSWORD })
    const apps = await api.request('GET', '/api/v1/applications?type=generic.mqtt')
    const app = (apps.json as { items: Array<{ uid: string }> }).items[0]?.uid
    expect(app).toBeDefined()
    const devices: Array<{ uid: string, serial: string, client: mqtt.MqttClient }> = []
    for (let i = 0; i < 3; i++) {
      const serial = `ROLES-${i}-${Date.now()}`
      const res = await api.request('POST', '/api/v1/systems', { name: serial, gateway: { serialNumber: serial }, communication: { mqtt: { password: 'pw-' + serial } }, applications: [{ uid: app }], labels: ['roles'] })
      expect(res.status).toBe(200)
      const client = await mqtt.connectAsync(broker.url, { username: serial, password: 'pw-' + serial, reconnectPeriod: 0 })
      onTestFinished(async () => { await client.endAsync(true) })
      await client.subscribeAsync(`${serial}/tasks/json`, { qos: 1 })
      client.on('message', (_topic, payload) => {
        const tasks = JSON.parse(payload.toString('utf8')) as Array<{ uid: string }>
        client.publish(`${serial}/acks/json`, JSON.stringify(tasks.map((t) => ({ uid: t.uid, status: 'OK' }))), { qos: 1 })
      })
      await client.publishAsync(`${serial}/messages/json`, JSON.stringify({ 'machine.temperature': 20 + i }), { qos: 1 })
      devices.push({ uid: (res.json as { uid: string }).uid, serial, client })
    }
    // Stored by the ingest process, read through the api process.
    await until('the devices\' data', async () => {
      const res = await api.request('GET', `/api/v1/systems/data/raw?targetIds=${devices.map((d) => d.uid).join(',')}&dataIds=machine.temperature&from=0`)
      const body = res.json as Record<string, Record<string, unknown[]>>
      return devices.every((d) => (body[d.uid]?.['machine.temperature'] ?? []).length === 1)
    }, 60_000)

    const reboot = await api.request('POST', '/api/v1/operations/systems/reboot', { systems: { label: 'roles' } })
    expect(reboot.status).toBe(200)
    const op = (reboot.json as { operation: string }).operation
    let last: { state?: string, counters?: Array<{ state: string, count: number }> } = {}
    await until('the reboot FINISHED', async () => {
      last = (await api.request('GET', `/api/v1/operations/${op}`)).json as typeof last
      return last.state === 'FINISHED'
    }, 90_000, () => JSON.stringify(last))
    expect(last.counters?.find((c) => c.state === 'SUCCESS')?.count).toBe(3)
    for (const p of [apiProc, workerProc, ingestProc]) p.signal('SIGTERM')
    for (const p of [apiProc, workerProc, ingestProc]) expect(await p.exited()).toEqual({ code: 0, signal: null })
  })
})

// The cluster proof: two api, two worker and two ingest processes of the real CLI; a simulated fleet of
// 200 MQTT devices publishing through the broker while a reboot of all of them runs. In the middle, one ingest and one
// worker process are killed with SIGKILL (the ingest process is started again, as an orchestrator would, with its
// FLEET_NODE_ID). Then: no message the broker acknowledged to a device is lost, the reboot finishes with every task
// SUCCESS, one device task per system and one reboot per device, and both api processes answered every request.
const DEVICES = 200

type Json = Record<string, any>

describe.each(servers)('a cluster of two api, two worker and two ingest processes on %s', () => {
  it('loses no acknowledged message and ends every task once when an ingest and a worker process are killed', { timeout: 600_000 }, async () => {
    if (TEST_REDIS_URL === undefined) throw new Error('TEST_REDIS_URL is needed')
    const broker = await startMosquitto()
    onTestFinished(async () => { await broker.stop() })
    const store = await postgresStore()
    onTestFinished(async () => { await store.drop() })
    const shared = {
      ...store.env,
      FLEET_ADMIN_PASSWORD: ADMIN_PASSWORD,
      FLEET_CLIENT_SECRET: CLIENT_SECRET,
      REDIS_URL: TEST_REDIS_URL,
      MQTT_URL: broker.adminUrl,
      HTTP_HOST: '127.0.0.1',
      M3DA_PORT: '0',
      LWM2M_PORT: '0',
      LWM2MS_PORT: '0',
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_S: '100000',
      // Busy cores would otherwise make the api processes shed the test's own requests (api/plugins/overload.ts).
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
      WORKER_CONCURRENCY: '4'
    }
    const names = ['api-1', 'api-2', 'worker-1', 'worker-2', 'ingest-1', 'ingest-2'] as const
    const ports: Partial<Record<typeof names[number], number>> = {}
    const start = async (name: typeof names[number]): Promise<Child> => {
      // A port asked for just before its process starts, and a new one when it starts again: a port left free while
      // a process was down (or while the others started) can be taken meanwhile as the local port of any outgoing
      // connection of the machine (the CI once saw a restarted ingest find its old port in use).
      ports[name] = await freePort()
      const child = spawnFleet(['serve', '--roles', name.split('-')[0] ?? ''], { ...shared, HTTP_PORT: String(ports[name]), FLEET_NODE_ID: name })
      await child.waitForLine(/fleet service started/, 120_000)
      return child
    }
    // api-1 migrates the store and makes the first company; the others after it.
    const procs: Record<string, Child> = { 'api-1': await start('api-1') }
    for (const n of names.slice(1)) procs[n] = await start(n)

    const credentials = { url: `http://127.0.0.1:${ports['api-1'] ?? 0}`, clientId: 'fleet-cli', clientSecret: CLIENT_SECRET, email: 'admin@fleet.local', password: ADMIN_PASSWORD }
    const api1 = await connectApi(credentials)
    const api2 = await connectApi({ ...credentials, url: `http://127.0.0.1:${ports['api-2'] ?? 0}` })

    const acked = recordAckedSeqs()
    const reboots = new Map<string, number>()
    let answered = 0
    const fleet = startFleet({
      api: credentials,
      devices: DEVICES,
      protocol: 'mqtt',
      mqttUrl: broker.url,
      rate: 1,
      rebootMs: 500,
      reconnectPeriod: 1000,
      events: {
        // A device back from its reboot reports its state in a message of its own, without sim.seq: only the
        // numbered messages are compared.
        onData: (device, points) => { if (points.some((p) => p.dataId === 'sim.seq')) acked.events.onData?.(device, points) },
        // The reboot is the only task: each device runs each task uid once (a redelivery is acknowledged again).
        onTask: (device) => {
          answered++
          reboots.set(device.systemUid, (reboots.get(device.systemUid) ?? 0) + 1)
        }
      }
    })
    onTestFinished(async () => { await fleet.stop() })
    await fleet.ready
    await until('data from every device', () => acked.bySystem.size === DEVICES, 120_000)

    // Both api processes are asked, in turn, all along; each request must be answered.
    const failures: string[] = []
    let asked = 0
    const poll = { on: true }
    // A request every quarter of a second until the reboot has finished (poll.on turned off).
    const poller = eventually(async () => {
      if (!poll.on) return true
      const client = asked++ % 2 === 0 ? api1 : api2
      try {
        const res = await client.request('GET', '/api/v1/systems?size=1')
        if (res.status !== 200) failures.push(`${res.status}`)
      } catch (err) { failures.push((err as Error).message) }
      return false
    }, { timeoutMs: 600_000, intervalMs: 250, what: 'the end of the reboot, asking both api processes' })

    const res = await api2.request('POST', '/api/v1/operations/systems/reboot', { systems: { label: `sim-${fleet.run}` } })
    expect(res.status).toBe(200)
    const op = (res.json as { operation: string }).operation
    await until('some reboots answered', () => answered >= 20, 120_000)
    procs['ingest-1']?.signal('SIGKILL')
    procs['worker-1']?.signal('SIGKILL')
    expect(await procs['ingest-1']?.exited()).toMatchObject({ signal: 'SIGKILL' })
    expect(await procs['worker-1']?.exited()).toMatchObject({ signal: 'SIGKILL' })
    // The killed ingest process comes back under its name and resumes its sessions, once every device had a message
    // acknowledged while it was down (some waited in its sessions meanwhile); the worker stays dead.
    const atKill = new Map([...acked.bySystem].map(([uid, seqs]) => [uid, seqs.length]))
    await until('a message of every device acknowledged with ingest-1 down',
      () => [...atKill].every(([uid, n]) => (acked.bySystem.get(uid)?.length ?? 0) > n), 120_000)
    procs['ingest-1'] = await start('ingest-1')

    let last: Json = {}
    await until('the reboot FINISHED', async () => {
      last = (await api1.request('GET', `/api/v1/operations/${op}`)).json as Json
      return last.state === 'FINISHED'
    }, 300_000, () => JSON.stringify(last))
    poll.on = false
    await poller
    await fleet.stop()

    expect(last.counters.find((c: Json) => c.state === 'SUCCESS')?.count).toBe(DEVICES)
    expect([...reboots.values()].filter((n) => n !== 1)).toEqual([])
    expect(reboots.size).toBe(DEVICES)
    expect(failures).toEqual([])
    expect(asked).toBeGreaterThan(10)

    // Every message the broker acknowledged is stored (what waited in the killed process's sessions included).
    await eventually(async () => { await expectAllStored(api1, acked); return true }, { timeoutMs: 90_000, intervalMs: 1000, retryErrors: true })
    for (const p of Object.values(procs)) p.signal('SIGTERM')
    for (const [name, p] of Object.entries(procs)) if (name !== 'worker-1') expect(await p.exited()).toEqual({ code: 0, signal: null })
    // One device task per system: nothing was created twice.
    const perSystem = await inspect(store, async (db) => (await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM device_tasks WHERE operation_uid = $1 GROUP BY system_uid HAVING count(*) > 1', [op])).rows)
    expect(perSystem).toEqual([])
  })
})
