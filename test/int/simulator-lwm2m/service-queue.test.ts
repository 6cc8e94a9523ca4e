// The simulator's queue-mode LwM2M devices against the service (docs/protocols/lwm2m.md#device-tasks, #installs,
// #wake-up): an install for a device asleep waits for its next Update, then goes through its restart; a download that
// fails ends the task with the Update Result's name; a wake-up operation sends a device asleep the SMS shoulder tap
// and the Update it makes ends the task, while a device awake is sent the Registration Update Trigger; and an install still going at the operation's
// timeout ends FAILURE operation.timeout, its record removed by lwm2m.installs.prune. The service's clock is moved
// forward to put a device to sleep for the service (CoAP keeps real time).
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { AWAKE_MS } from '../../../ingest/lwm2m/live.js'
import type { SimulatedDevice } from '../../../simulator/devices/simulated-device.js'
import { connectLwm2mDevice } from '../../../simulator/transports/lwm2m.js'
import { eventually } from '../../helpers/eventually.js'
import { transportOf } from '../../helpers/devices.js'
import { listenLocal, type Receiver } from '../../helpers/http-receiver.js'
import { started, type Json } from '../../helpers/operations.js'
import { getSystem } from '../../helpers/systems.js'
import { lwm2mSystem } from '../lwm2m/lwm2m-fixtures.js'
import { finished, releasedPackage, simulatedDevice, software, startLwm2mService, type Lwm2mService, type SimulatedLwm2m } from './service-fixtures.js'

let offset = 0
let s: Lwm2mService
let gateway: Receiver
const taps: Json[] = []
const phones = new Map<string, SimulatedDevice>()

beforeAll(async () => {
  // The SMS gateway: records each shoulder tap and hands it to the device with that number, as a phone network would.
  gateway = await listenLocal((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => { body += c.toString() })
    req.on('end', () => {
      const sms = JSON.parse(body) as Json
      taps.push(sms)
      res.writeHead(200).end()
      phones.get(String(sms.to))?.wake().catch(() => {})
    })
  })
  s = await startLwm2mService({ clock: { now: () => Date.now() + offset }, env: { SMS_GATEWAY_URL: `http://${gateway.origin}/sms` } })
}, 120_000)
afterAll(async () => {
  await s?.stack.close()
  await gateway?.close()
})

/** A queue-mode device, served at its Register, then asleep for the service. */
async function asleep (): Promise<SimulatedLwm2m> {
  const device = await simulatedDevice(s, { queue: true })
  phones.set(device.d.identity.mobileNumber, device.d)
  await eventually(async () => (await getSystem(s.stack, device.uid)).data?.firmwareVersion === '1.0.0', 10_000, 'the device observed at its Register')
  offset += AWAKE_MS + 1000
  return device
}

const wakeup = async (uid: string): Promise<string> =>
  await started(s.stack.call(s.stack.adminToken, { method: 'POST', url: '/api/v1/operations/systems/wakeup', payload: { systems: { uids: [uid] } } }))

const installsOf = async (systemUid: string): Promise<unknown[]> =>
  (await s.stack.db.query('SELECT i.* FROM lwm2m_installs i JOIN device_tasks d ON d.uid = i.task_uid WHERE d.system_uid = $1', [systemUid])).rows

const deviceTaskState = async (systemUid: string): Promise<string | undefined> =>
  (await s.stack.db.query<{ state: string }>('SELECT state FROM device_tasks WHERE system_uid = $1 ORDER BY created_at DESC LIMIT 1', [systemUid])).rows[0]?.state

describe('queue mode', () => {
  it('an install waits for the device\'s next Update, then updates it through its restart: SUCCESS', async () => {
    const { uid, d, client } = await asleep()
    const fw = await releasedPackage(s.stack, 'LWM2M_FW', 'sensor-fw-1.1.bin', '1.1')
    const op = await software(s.stack, 'install', fw.uid, { uids: [uid] })
    await eventually(async () => await deviceTaskState(uid) === 'PENDING', 10_000, 'the install written, waiting')
    expect(client.tree.instance({ objectId: 5, instanceId: 0 })?.values().get(1)).toBe('')
    await d.wake() // its next Update
    expect(await finished(s.stack, op)).toMatchObject([{ state: 'SUCCESS', error: null }])
    expect(client.firmware.firmwareVersion).toBe('1.1')
  })

  it('a download that fails (its link gone) ends the task with the Update Result\'s name', async () => {
    const { uid, d, client } = await asleep()
    const fw = await releasedPackage(s.stack, 'LWM2M_FW', 'sensor-fw-1.2.bin', '1.2')
    const op = await software(s.stack, 'install', fw.uid, { uids: [uid] })
    await eventually(async () => await deviceTaskState(uid) === 'PENDING', 10_000, 'the install written, waiting')
    await s.stack.db.query('DELETE FROM package_downloads WHERE system_uid = $1', [uid])
    await d.wake()
    expect(await finished(s.stack, op)).toMatchObject([
      { state: 'FAILURE', error: { code: 'operation.device.error', message: 'Connection lost during downloading process (Update Result 4)' } }
    ])
    expect(client.firmware.firmwareVersion).toBe('1.0.0')
  })

  it('a wake-up sends a device asleep the SMS shoulder tap; the Update it makes ends the task', async () => {
    const { uid, d, client } = await asleep()
    const updates = client.updates
    const op = await wakeup(uid)
    expect(await finished(s.stack, op)).toMatchObject([{ state: 'SUCCESS', error: null }])
    expect(taps.filter((t) => t.system === uid)).toEqual([{ to: d.identity.mobileNumber, text: 'FLEET CONNECT', system: uid }])
    await eventually(() => client.updates === updates + 1, 5000, 'the Update the SMS made')
  })

  it('a wake-up of a device awake is Execute /1/0/8 (Registration Update Trigger): no SMS, the device updates', async () => {
    const { uid, client } = await simulatedDevice(s, { queue: true })
    const updates = client.updates
    expect(await finished(s.stack, await wakeup(uid))).toMatchObject([{ state: 'SUCCESS', error: null }])
    await eventually(() => client.updates === updates + 1, 5000, 'the triggered Update')
    expect(taps.filter((t) => t.system === uid)).toEqual([])
  })
})

describe('the operation\'s timeout', () => {
  it('ends an install still going FAILURE operation.timeout; the install moves no more and its record is pruned', async () => {
    const sys = await lwm2mSystem(s.stack, { applications: [s.nosec] })
    const device = await connectLwm2mDevice({ url: `coap://127.0.0.1:${s.stack.ports.lwm2m ?? 0}`, endpointName: sys.serial, rebootMs: 50, firmwareUpdateMs: 15_000 })
    onTestFinished(async () => { await device.close() })
    const fw = await releasedPackage(s.stack, 'LWM2M_FW', 'slow-fw-9.0.bin', '9.0')
    const op = await software(s.stack, 'install', fw.uid, { uids: [sys.uid] }, { timeout: Date.now() + offset + 2000 })
    expect(await finished(s.stack, op, 15_000)).toMatchObject([{ state: 'FAILURE', error: { code: 'operation.timeout' } }])
    expect(await deviceTaskState(sys.uid)).toBe('CANCELLED')
    const recorded = await installsOf(sys.uid)
    expect(recorded).toHaveLength(1) // how far it went when the time was up
    await device.client.update() // an Update takes no task: the install is over for the service
    expect(await installsOf(sys.uid)).toEqual(recorded)
    expect(device.client.firmware.firmwareVersion).toBe('1.0.0')
    await transportOf(s.stack, 'lwm2m').jobs?.['lwm2m.installs.prune']?.run()
    expect(await installsOf(sys.uid)).toEqual([])
  })
})
