// Acknowledge after commit, never lose, over M3DA (docs/architecture.md#how-data-flows): the
// real service runs as a child process, a simulated fleet of secured M3DA agents (hmac-sha1 + aes-cbc-128, over TCP)
// sends envelopes numbered by `sim.seq` as fast as the replies come, the service is killed with SIGKILL in the middle
// of it and restarted on the same store, and every message whose reply (status 200) reached its agent must be there.
import { describe, expect, it, onTestFinished } from 'vitest'
import { startFleet } from '../../simulator/fleet.js'
import { connectApi } from '../../simulator/provision.js'
import { expectAllStored, killAfterAcks, recordAckedSeqs } from '../helpers/acked-seqs.js'
import { restartablePort } from '../helpers/child.js'
import { cliService } from '../helpers/cli-service.js'
import { storeKinds } from '../helpers/cli-stores.js'

const DEVICES = 10
const ACKED_BEFORE_KILL = 100
const CLIENT_SECRET = 'm3da-kill-test-secret'
const ADMIN_PASSWORD = 'm3da-kill-test-password'

describe.each(storeKinds())('SIGKILL of the service during M3DA ingest on %s', (_kind, makeStore) => {
  it('loses no message whose reply envelope was received', { timeout: 240_000 }, async () => {
    const store = await makeStore()
    onTestFinished(async () => { await store.drop() })
    // A fixed M3DA port, so that the restarted service answers where the agents were connected.
    const m3daPort = await restartablePort()
    const service = await cliService(store, { FLEET_ADMIN_PASSWORD: ADMIN_PASSWORD, FLEET_CLIENT_SECRET: CLIENT_SECRET, M3DA_PORT: String(m3daPort) })
    const credentials = { url: `http://127.0.0.1:${service.httpPort}`, clientId: 'fleet-cli', clientSecret: CLIENT_SECRET, email: 'admin@fleet.local', password: ADMIN_PASSWORD }

    const first = await service.serve()
    const acked = recordAckedSeqs()
    const fleet = startFleet({
      api: credentials,
      devices: DEVICES,
      protocol: 'm3da',
      m3daUrl: `tcp://127.0.0.1:${m3daPort}`,
      m3daSecurity: { mode: 'password', mac: 'hmac-sha1', cipher: 'aes-cbc-128' },
      rate: 0, // as fast as the replies come
      taskPollMs: 600_000, // no tasks here: the agents only send data
      events: acked.events
    })
    onTestFinished(async () => { await fleet.stop() })
    await killAfterAcks(first, fleet, acked, ACKED_BEFORE_KILL, 60_000)

    const second = await service.serve()
    const api = await connectApi(credentials)
    await expectAllStored(api, acked)

    // The agents' messages are stored as M3DA device messages.
    const messages = await api.request('GET', `/api/v1/systems/${[...acked.bySystem.keys()][0] ?? ''}/messages?size=1`)
    expect((messages.json as { messages: Array<{ protocol: string }> }).messages[0]?.protocol).toBe('M3DA')

    second.signal('SIGTERM')
    expect(await second.exited()).toEqual({ code: 0, signal: null })
  })
})
