// Acknowledge after commit, never lose (docs/architecture.md#how-data-flows; docs/architecture.md#house-rules rule 5):
// the real service runs as a child process (`node bin/fleet.mjs serve`), a simulated MQTT fleet publishes QoS 1
// messages numbered by `sim.seq`, the service is killed with SIGKILL in the middle of it, restarted on the same store,
// and every message whose PUBACK reached its device must be there.
import { describe, expect, it, onTestFinished } from 'vitest'
import { startFleet } from '../../simulator/fleet.js'
import { connectApi } from '../../simulator/provision.js'
import { expectAllStored, killAfterAcks, recordAckedSeqs } from '../helpers/acked-seqs.js'
import { cliService } from '../helpers/cli-service.js'
import { bothStoreKinds } from '../helpers/cli-stores.js'

const DEVICES = 20
const ACKED_BEFORE_KILL = 200
const CLIENT_SECRET = 'kill-test-secret'
const ADMIN_PASSWORD = 'kill-test-password'

describe.each(bothStoreKinds())('SIGKILL of the service on %s', (_kind, makeStore) => {
  it('loses no message whose PUBACK was received', { timeout: 240_000 }, async () => {
    const store = await makeStore()
    onTestFinished(async () => { await store.drop() })
    const service = await cliService(store, { FLEET_ADMIN_PASSWORD: ADMIN_PASSWORD, FLEET_CLIENT_SECRET: CLIENT_SECRET })
    const { httpPort, mqttPort } = service
    const serve = service.serve
    const credentials = { url: `http://127.0.0.1:${httpPort}`, clientId: 'fleet-cli', clientSecret: CLIENT_SECRET, email: 'admin@fleet.local', password: ADMIN_PASSWORD }

    const first = await serve()
    // sim.seq of each message whose PUBACK came, per system.
    const acked = recordAckedSeqs()
    const fleet = startFleet({
      api: credentials,
      devices: DEVICES,
      protocol: 'mqtt',
      mqttUrl: `mqtt://127.0.0.1:${mqttPort}`,
      rate: 0, // as fast as the acknowledgements come
      reconnectPeriod: 0,
      events: acked.events
    })
    onTestFinished(async () => { await fleet.stop() })
    await killAfterAcks(first, fleet, acked, ACKED_BEFORE_KILL, 30_000)

    const second = await serve()
    const api = await connectApi(credentials)
    await expectAllStored(api, acked)

    second.signal('SIGTERM')
    expect(await second.exited()).toEqual({ code: 0, signal: null })
  })
})
