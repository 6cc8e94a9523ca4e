// Acknowledge after commit, never lose (shared/design.md §How data flows; shared/style.md §2.1 rule 5): the real
// service runs as a child process (`node bin/fleet.mjs serve`), a simulated MQTT fleet publishes QoS 1 messages
// numbered by `sim.seq`, the service is killed with SIGKILL in the middle of it, restarted on the same store, and
// every message whose PUBACK reached its device must be there.
import { describe, expect, it, onTestFinished } from 'vitest'
import { startFleet } from '../../simulator/fleet.js'
import { connectApi } from '../../simulator/provision.js'
import { cliService, until } from '../helpers/cli-service.js'
import { storeKinds } from '../helpers/cli-stores.js'

const DEVICES = 20
const ACKED_BEFORE_KILL = 200
const CLIENT_SECRET = 'kill-test-secret'
const ADMIN_PASSWORD = 'kill-test-password'

describe.each(storeKinds())('SIGKILL of the service on %s', (_kind, makeStore) => {
  it('loses no message whose PUBACK was received', { timeout: 240_000 }, async () => {
    const store = await makeStore()
    onTestFinished(async () => { await store.drop() })
    const service = await cliService(store, { FLEET_ADMIN_PASSWORD: ADMIN_PASSWORD, FLEET_CLIENT_SECRET: CLIENT_SECRET })
    const { httpPort, mqttPort } = service
    const serve = service.serve
    const credentials = { url: `http://127.0.0.1:${httpPort}`, clientId: 'fleet-cli', clientSecret: CLIENT_SECRET, email: 'admin@fleet.local', password: ADMIN_PASSWORD }

    const first = await serve()
    // sim.seq of each message whose PUBACK came, per system.
    const acked = new Map<string, number[]>()
    let total = 0
    const fleet = startFleet({
      api: credentials,
      devices: DEVICES,
      protocol: 'mqtt',
      mqttUrl: `mqtt://127.0.0.1:${mqttPort}`,
      rate: 0, // as fast as the acknowledgements come
      reconnectPeriod: 0,
      events: {
        onData: (device, points) => {
          const seq = points.find((p) => p.dataId === 'sim.seq')?.value as number
          const list = acked.get(device.systemUid) ?? []
          list.push(seq)
          acked.set(device.systemUid, list)
          total++
        }
      }
    })
    onTestFinished(async () => { await fleet.stop() })
    await fleet.ready
    await until(`${ACKED_BEFORE_KILL} acknowledged messages`, () => total >= ACKED_BEFORE_KILL, 30_000)

    first.signal('SIGKILL')
    expect(await first.exited()).toMatchObject({ signal: 'SIGKILL' })
    const ackedAtKill = total
    await fleet.stop()
    expect(total).toBe(ackedAtKill) // nothing acknowledged by a dead service
    expect(acked.size).toBe(DEVICES)

    const second = await serve()
    const api = await connectApi(credentials)
    const uids = [...acked.keys()]
    const stored = new Map<string, Set<number>>()
    for (let i = 0; i < uids.length; i += 5) { // fleet-api.md §Raw data: up to 5 systems per request
      const targets = uids.slice(i, i + 5)
      const res = await api.request('GET', `/api/v1/systems/data/raw?targetIds=${targets.join(',')}&dataIds=sim.seq&from=0&size=500`)
      expect(res.status).toBe(200)
      const body = res.json as Record<string, Record<string, Array<{ ts: number, v: number }>>>
      for (const uid of targets) stored.set(uid, new Set((body[uid]?.['sim.seq'] ?? []).map((p) => p.v)))
    }
    for (const [uid, seqs] of acked) {
      expect(seqs.length).toBeLessThan(500) // all of them fit in one raw page
      const missing = seqs.filter((s) => stored.get(uid)?.has(s) !== true)
      expect(missing, `system ${uid}: acknowledged but not stored`).toEqual([])
    }

    second.signal('SIGTERM')
    expect(await second.exited()).toEqual({ code: 0, signal: null })
  })
})
