// Alerts survive a SIGKILL of the service (decision 0032: raised in the commit that stores the points): the real
// service runs as a child process, a rule `DATA.sim.seq GT 0` holds from each device's first message on, a simulated
// MQTT fleet publishes QoS 1 messages, the service is killed with SIGKILL in the middle of it and restarted on the same
// store. Every system with a message whose PUBACK came has its alert (none lost), exactly one (none twice), with the
// rule's answer stored beside it; on PostgreSQL, every alert is then notified (the pending sweep).
import { describe, expect, it, onTestFinished } from 'vitest'
import { startFleet } from '../../simulator/fleet.js'
import { connectApi } from '../../simulator/provision.js'
import { killAfterAcks, recordAckedSeqs } from '../helpers/acked-seqs.js'
import { signedInService } from '../helpers/signed-in-service.js'
import { storeKinds } from '../helpers/cli-stores.js'
import { eventually } from '../helpers/eventually.js'

// A kill in the middle of a busy fleet: about ten acknowledged messages per device before it.
const DEVICES = 20
const ACKED_BEFORE_KILL = 200

describe.each(storeKinds())('SIGKILL of the service raising alerts on %s', (_kind, makeStore) => {
  it('keeps one alert per system whose messages were acknowledged, none lost and none twice', { timeout: 300_000 }, async () => {
    const store = await makeStore()
    onTestFinished(async () => { await store.drop() })
    const { service, credentials } = await signedInService(store)

    const first = await service.serve()
    const api = await connectApi(credentials)
    const created = await api.request('POST', '/api/v2/alertrules', { name: 'Counting', conditions: [{ operator: 'GT', operands: [{ attributeId: { name: 'DATA.sim.seq' } }, { valueNum: 0 }] }] })
    expect(created.status).toBe(200)
    const rule = (created.json as { uid: string }).uid

    const acked = recordAckedSeqs()
    const fleet = startFleet({ api: credentials, devices: DEVICES, protocol: 'mqtt', mqttUrl: `mqtt://127.0.0.1:${service.mqttPort}`, rate: 0, reconnectPeriod: 0, events: acked.events })
    onTestFinished(async () => { await fleet.stop() })
    await killAfterAcks(first, fleet, acked, ACKED_BEFORE_KILL, 30_000)

    const second = await service.serve()
    const again = await connectApi(credentials)
    const alerts = await again.request('GET', `/api/v2/alerts?ruleId=${rule}&size=500`)
    expect(alerts.status).toBe(200)
    const targets = (alerts.json as Array<{ target: { uid: string }, state: string }>).map((a) => a.target.uid)
    expect(targets.sort()).toEqual([...acked.bySystem.keys()].sort())
    expect((alerts.json as Array<{ state: string }>).every((a) => a.state === 'OPEN')).toBe(true)
    const states = await again.request('GET', `/api/v2/alertstates?ruleId=${rule}&size=500`)
    expect((states.json as Array<{ target: { uid: string }, state: boolean }>).map((s) => [s.target.uid, s.state]).sort())
      .toEqual([...acked.bySystem.keys()].sort().map((uid) => [uid, true]))

    // Their notification too: an alert committed just before the kill, whose alert.notify was never queued, is queued
    // by alerts.sweep once 30 s old. Read while the service runs, so on PostgreSQL only (PGlite has one process).
    if (store.env.DATABASE_URL !== undefined) {
      const db = await store.open()
      onTestFinished(async () => { await db.close() })
      await eventually(async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM alerts WHERE notify_pending')).rows[0]?.n === 0,
        { timeoutMs: 150_000, what: 'every alert notified' })
    }

    second.signal('SIGTERM')
    expect(await second.exited()).toEqual({ code: 0, signal: null })
  })
})
