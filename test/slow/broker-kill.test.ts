// Acknowledge after commit, never lose, behind an external broker (docs/cluster.md#external-mqtt-broker-ingest):
// devices publish to a Mosquitto of the test's own, which acknowledges them itself; the service (a child process,
// MQTT_URL) reads them through its shared subscriptions and acknowledges to the broker only after commit. It is killed
// with SIGKILL while the devices keep publishing, and started again with the same FLEET_NODE_ID: every message the
// broker acknowledged to a device, before the kill or while no service ran, must then be stored.
import { describe, expect, it, onTestFinished } from 'vitest'
import { startFleet } from '../../simulator/fleet.js'
import { connectApi } from '../../simulator/provision.js'
import { expectAllStored, recordAckedSeqs } from '../helpers/acked-seqs.js'
import { cliService, until } from '../helpers/cli-service.js'
import { storeKinds } from '../helpers/cli-stores.js'
import { startMosquitto } from '../helpers/mosquitto.js'
import { eventually } from '../helpers/eventually.js'

const DEVICES = 10
const ACKED_BEFORE_KILL = 150
const PUBLISHED_WHILE_DOWN = 100
const CLIENT_SECRET = 'broker-kill-secret'
const ADMIN_PASSWORD = 'broker-kill-password'

describe.each(storeKinds())('SIGKILL of an ingest process behind Mosquitto on %s', (_kind, makeStore) => {
  it('stores every message the broker acknowledged, before the kill and while the service was down', { timeout: 300_000 }, async () => {
    const broker = await startMosquitto()
    onTestFinished(async () => { await broker.stop() })
    const store = await makeStore()
    onTestFinished(async () => { await store.drop() })
    const service = await cliService(store, {
      FLEET_ADMIN_PASSWORD: ADMIN_PASSWORD,
      FLEET_CLIENT_SECRET: CLIENT_SECRET,
      MQTT_URL: broker.adminUrl,
      FLEET_NODE_ID: 'kill-node'
    })
    const credentials = { url: `http://127.0.0.1:${service.httpPort}`, clientId: 'fleet-cli', clientSecret: CLIENT_SECRET, email: 'admin@fleet.local', password: ADMIN_PASSWORD }

    const first = await service.serve()
    const acked = recordAckedSeqs()
    // The devices connect to the broker with the logins the service put in its dynamic security.
    const fleet = startFleet({ api: credentials, devices: DEVICES, protocol: 'mqtt', mqttUrl: broker.url, rate: 20, reconnectPeriod: 1000, events: acked.events })
    onTestFinished(async () => { await fleet.stop() })
    await fleet.ready
    await until(`${ACKED_BEFORE_KILL} acknowledged messages`, () => acked.total >= ACKED_BEFORE_KILL, 60_000)
    first.signal('SIGKILL')
    expect(await first.exited()).toMatchObject({ signal: 'SIGKILL' })
    // The broker goes on acknowledging: those messages wait in the sessions of the dead process.
    const atKill = acked.total
    await until(`${PUBLISHED_WHILE_DOWN} more acknowledged messages`, () => acked.total >= atKill + PUBLISHED_WHILE_DOWN, 60_000)
    await fleet.stop()
    expect(acked.bySystem.size).toBe(DEVICES)

    const second = await service.serve()
    const api = await connectApi(credentials)
    // The restarted process resumes the sessions and writes what they kept.
    await eventually(async () => { await expectAllStored(api, acked); return true }, { timeoutMs: 60_000, intervalMs: 500, retryErrors: true })
    const messages = await api.request('GET', `/api/v1/systems/${[...acked.bySystem.keys()][0] ?? ''}/messages?size=1`)
    expect((messages.json as { messages: Array<{ protocol: string }> }).messages[0]?.protocol).toBe('MQTT')

    second.signal('SIGTERM')
    expect(await second.exited()).toEqual({ code: 0, signal: null })
  })
})
