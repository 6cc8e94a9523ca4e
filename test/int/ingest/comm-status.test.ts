// lastCommDate and commStatus (docs/devices.md): OK on device traffic; WARNING once the system misses its
// expected period, ERROR after two; the period is the heartbeat period when the heartbeat is ON, else COMM_PERIOD_S.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, COMPANY_NAME, type Stack } from '../../helpers/stack.js'
import { seed, uniq } from '../../helpers/factories.js'
import { getSystem } from '../../helpers/systems.js'
import { connectDevice, createDevice, deviceFetch, endAll, publish, settle, type Device } from '../../helpers/devices.js'
import { eventually } from '../../helpers/eventually.js'

let stack: Stack
beforeAll(async () => { stack = await startStack({ listen: true, env: { COMM_PERIOD_S: '60' } }) })
afterAll(async () => { await stack.close() })

const S = 1000
const MIN = 60 * S

async function sendMqtt (d: Device): Promise<void> {
  const c = await connectDevice(stack.mqttUrl, d.serial, d.mqttPassword ?? '', { version: 4 })
  expect(await publish(c, `${d.serial}/messages/json`, '{"machine.temperature": 20}')).toBe(0)
  await endAll(c)
  await settle(stack)
}

/** Moves the last communication `agoMs` into the past, sweeps, and answers the system's commStatus. */
async function statusAfter (uid: string, agoMs: number): Promise<string> {
  await stack.db.query('UPDATE system_state SET last_comm_date = $2 WHERE system_uid = $1', [uid, Date.now() - agoMs])
  await stack.ctx.services.sweepCommStatus()
  return (await getSystem(stack, uid)).commStatus
}

/** A system seeded with a heartbeat (the API does not edit heartbeat). */
async function seededDevice (heartbeat: { state: string, period: string, sla?: { warning: string, error: string } }): Promise<Device> {
  const serial = uniq('HB').toUpperCase()
  await seed(stack, { systems: [{ company: COMPANY_NAME, name: serial, gateway: { serialNumber: serial }, communication: { mqtt: { password: 'hb-password' }, rest: { password: 'hb-rest-password' } }, heartbeat }] })
  const { rows } = await stack.db.query<{ uid: string }>('SELECT uid FROM systems WHERE name = $1', [serial])
  return { uid: rows[0]?.uid ?? '', serial, imei: '', mqttPassword: 'hb-password', restPassword: 'hb-rest-password' }
}

describe('traffic', () => {
  it('an MQTT message sets lastCommDate and commStatus OK (UNDEFINED before any traffic)', async () => {
    const d = await createDevice(stack)
    expect(await getSystem(stack, d.uid)).toMatchObject({ commStatus: 'UNDEFINED', lastCommDate: null })
    const before = Date.now()
    await sendMqtt(d)
    const s = await getSystem(stack, d.uid)
    expect(s.commStatus).toBe('OK')
    expect(s.lastCommDate).toBeGreaterThanOrEqual(before)
    expect(s.lastCommDate).toBeLessThanOrEqual(Date.now())
    // A system that never communicated is left alone by the sweep.
    const silent = await createDevice(stack)
    await stack.ctx.services.sweepCommStatus()
    expect((await getSystem(stack, silent.uid)).commStatus).toBe('UNDEFINED')
  })

  it('REST data, a task poll and an ack bring an ERROR system back to OK', async () => {
    const d = await createDevice(stack)
    const rest = { user: d.serial, password: d.restPassword ?? '' }
    const calls: Array<() => Promise<{ status: number }>> = [
      async () => await deviceFetch(stack, 'POST', '/device/messages', { ...rest, body: '{"a": 1}' }),
      async () => await deviceFetch(stack, 'GET', '/device/tasks', rest),
      async () => await deviceFetch(stack, 'POST', '/device/acks', { ...rest, body: '[{"uid": "t1", "status": "OK"}]' })
    ]
    for (const call of calls) {
      await sendMqtt(d)
      expect(await statusAfter(d.uid, 10 * MIN)).toBe('ERROR')
      const before = Date.now()
      expect((await call()).status).toBe(200)
      await settle(stack)
      const s = await getSystem(stack, d.uid)
      expect(s.commStatus).toBe('OK')
      expect(s.lastCommDate).toBeGreaterThanOrEqual(before)
    }
  })

  it('a late message (old timestamps) does not move lastCommDate backwards: it is the reception time', async () => {
    const d = await createDevice(stack)
    const before = Date.now()
    const res = await deviceFetch(stack, 'POST', '/device/messages', { user: d.serial, password: d.restPassword ?? '', body: JSON.stringify({ 1_000_000_000_000: { a: 1 } }) })
    expect(res.status).toBe(200)
    await settle(stack)
    expect((await getSystem(stack, d.uid)).lastCommDate).toBeGreaterThanOrEqual(before)
  })
})

describe('sweepCommStatus', () => {
  it('default period (COMM_PERIOD_S=60): OK within it, WARNING after one missed period, ERROR after two', async () => {
    const d = await createDevice(stack)
    await sendMqtt(d)
    expect(await statusAfter(d.uid, 30 * S)).toBe('OK')
    expect(await statusAfter(d.uid, 90 * S)).toBe('WARNING')
    expect(await statusAfter(d.uid, 150 * S)).toBe('ERROR')
    expect(await statusAfter(d.uid, 30 * S)).toBe('OK')
    const found = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems?commStatus=OK&uid=${d.uid}&fields=uid,commStatus` })
    expect(found.json().items).toEqual([{ uid: d.uid, commStatus: 'OK' }])
  })

  it('answers how many systems changed', async () => {
    const d = await createDevice(stack)
    await sendMqtt(d)
    await stack.db.query('UPDATE system_state SET last_comm_date = $2 WHERE system_uid = $1', [d.uid, Date.now() - 90 * S])
    expect(await stack.ctx.services.sweepCommStatus()).toBeGreaterThanOrEqual(1)
    expect((await getSystem(stack, d.uid)).commStatus).toBe('WARNING')
  })

  it('heartbeat ON, period "120" (seconds) is used instead of the default', async () => {
    const d = await seededDevice({ state: 'ON', period: '120' })
    await sendMqtt(d)
    expect(await statusAfter(d.uid, 90 * S)).toBe('OK') // the default (60 s) would say WARNING
    expect(await statusAfter(d.uid, 150 * S)).toBe('WARNING')
    expect(await statusAfter(d.uid, 230 * S)).toBe('WARNING')
    expect(await statusAfter(d.uid, 250 * S)).toBe('ERROR')
  })

  it('heartbeat periods with a unit ("1h") and an sla {warning, error}', async () => {
    const h = await seededDevice({ state: 'ON', period: '1h' })
    await sendMqtt(h)
    expect(await statusAfter(h.uid, 50 * MIN)).toBe('OK')
    expect(await statusAfter(h.uid, 90 * MIN)).toBe('WARNING')
    expect(await statusAfter(h.uid, 130 * MIN)).toBe('ERROR')
    const sla = await seededDevice({ state: 'ON', period: '1h', sla: { warning: '2h', error: '3h' } })
    await sendMqtt(sla)
    expect(await statusAfter(sla.uid, 90 * MIN)).toBe('OK')
    expect(await statusAfter(sla.uid, 150 * MIN)).toBe('WARNING')
    expect(await statusAfter(sla.uid, 170 * MIN)).toBe('WARNING')
    expect(await statusAfter(sla.uid, 190 * MIN)).toBe('ERROR')
  })

  it('heartbeat OFF or unreadable: the default period applies', async () => {
    for (const heartbeat of [{ state: 'OFF', period: '3600' }, { state: 'ON', period: 'soon' }, { state: 'ON', period: '0' }]) {
      const d = await seededDevice(heartbeat)
      await sendMqtt(d)
      expect({ heartbeat, status: await statusAfter(d.uid, 90 * S) }).toEqual({ heartbeat, status: 'WARNING' })
    }
  })
})

describe('the periodic sweep', () => {
  const dueJob = async (id: string): Promise<Array<{ run_at: string, repeat_every_ms: string }>> =>
    (await stack.db.query<{ run_at: string, repeat_every_ms: string }>('SELECT run_at, repeat_every_ms FROM jobs WHERE id = $1', [id])).rows

  it('is a repeatable job of the queue (once per period in a cluster) that the service works by itself', async () => {
    // One job each, with the periods of bin/serve.ts: not a timer per process.
    expect((await dueJob('repeat:sweep.comm-status')).map((r) => Number(r.repeat_every_ms))).toEqual([30_000])
    expect((await dueJob('repeat:sweep.timeouts')).map((r) => Number(r.repeat_every_ms))).toEqual([5_000])
    const d = await createDevice(stack)
    await sendMqtt(d)
    await stack.db.query('UPDATE system_state SET last_comm_date = $2 WHERE system_uid = $1', [d.uid, Date.now() - 150 * S])
    // Its period is due now: a worker of the service runs it, nobody calls sweepCommStatus.
    await stack.db.query("UPDATE jobs SET run_at = 0 WHERE id = 'repeat:sweep.comm-status'")
    await eventually(async () => (await getSystem(stack, d.uid)).commStatus === 'ERROR', { timeoutMs: 10_000, intervalMs: 50, what: 'the periodic sweep' })
    // The run moved the job's due time one period on (at least now, the due time having been long past).
    const [next] = await dueJob('repeat:sweep.comm-status')
    expect(Number(next?.run_at)).toBeGreaterThanOrEqual(Date.now() - 10_000)
  })
})
