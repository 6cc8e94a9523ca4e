// Device logins are throttled after wrong passwords (core/services/ingest/device-login-throttle.ts,
// docs/security.md#device-login-throttling): per device from one address, then per address for every device. During a
// wait even the right password is refused unchecked (MQTT 3.1.1 CONNACK 4 as a wrong password, MQTT 5 0x97 quota
// exceeded, REST 429 with Retry-After); a success forgets the device's failures, so an owner's typos never add up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createDevice, deviceFetch, endAll, eventually, tryConnect, type Device } from '../../helpers/devices.js'
import { metricValue } from '../../helpers/raw-mqtt.js'
import { m3daApplication, m3daSystem } from '../m3da/m3da-fixtures.js'
import { SecureDevice, tcpLink, type Outgoing } from '../m3da/m3da-device.js'

let stack: Stack
beforeAll(async () => {
  stack = await startStack({
    listen: true,
    env: { DEVICE_LOGIN_THROTTLE_FAILURES: '5', DEVICE_LOGIN_THROTTLE_ADDRESS_FAILURES: '30', DEVICE_LOGIN_THROTTLE_BASE_MS: '2000' }
  })
}, 120_000)
afterAll(async () => { await stack.close() })

/** One MQTT login: 'accepted' (then closed) or the CONNACK code. */
async function mqttLogin (username: string, password: string, version: 4 | 5 = 4): Promise<number | 'accepted'> {
  const o = await tryConnect(stack.mqttUrl, { version, username, password })
  if (!o.ok) return o.code ?? -1
  await endAll(o.client)
  return 'accepted'
}

const restLogin = async (d: Device, password: string): Promise<{ status: number, retryAfter?: string }> => {
  const res = await fetch(`${stack.httpUrl}/device/tasks`, { headers: { authorization: 'Basic ' + Buffer.from(`${d.serial}:${password}`).toString('base64') } })
  await res.text()
  return { status: res.status, ...(res.headers.get('retry-after') === null ? {} : { retryAfter: res.headers.get('retry-after') ?? '' }) }
}

describe('device login throttling', () => {
  it('30 wrong MQTT passwords, then the right one is refused until the wait is over; REST waits too, with 429', async () => {
    const d = await createDevice(stack)
    const before = await metricValue(stack, 'fleet_device_logins_throttled_total', { protocol: 'mqtt' })
    for (let i = 0; i < 30; i++) expect(await mqttLogin(d.serial, `wrong-${i}`)).toBe(4)
    expect(await mqttLogin(d.serial, d.mqttPassword ?? '')).toBe(4)
    expect(await mqttLogin(d.serial, d.mqttPassword ?? '', 5)).toBe(0x97)
    const rest = await restLogin(d, d.restPassword ?? '')
    expect(rest.status).toBe(429)
    expect(Number(rest.retryAfter)).toBeGreaterThanOrEqual(1)
    expect(await metricValue(stack, 'fleet_device_logins_throttled_total', { protocol: 'mqtt' })).toBeGreaterThan(before)
    // The wait ends (2 s doubling per counted failure; tries during a wait do not count): the owner gets in.
    await eventually(async () => await mqttLogin(d.serial, d.mqttPassword ?? '') === 'accepted', 15_000, 'the right password accepted')
    expect((await restLogin(d, d.restPassword ?? '')).status).toBe(200)
  })

  it('a success forgets the device\'s failures: typos between good logins never add up to a wait', async () => {
    const d = await createDevice(stack)
    for (let i = 0; i < 4; i++) expect(await mqttLogin(d.serial, `typo-${i}`)).toBe(4)
    expect(await mqttLogin(d.serial, d.mqttPassword ?? '')).toBe('accepted')
    for (let i = 0; i < 4; i++) expect((await restLogin(d, `typo-${i}`)).status).toBe(401)
    // Without the first success forgotten, this would be the 9th failure of the device from this address.
    expect((await restLogin(d, d.restPassword ?? '')).status).toBe(200)
    for (let i = 0; i < 10; i++) expect(await mqttLogin(d.serial, d.mqttPassword ?? '', i % 2 === 0 ? 4 : 5)).toBe('accepted')
  })

  it('M3DA: wrong signatures make the device wait (503, the envelope not opened) until the wait is over', async () => {
    const s = await m3daSystem(stack, { password: 'the-right-one', applications: [await m3daApplication(stack, null)] })
    const message: Outgoing[] = [{ kind: 'message', path: 'g', ticketId: null, body: { x: 1 } }]
    const session = async (password: string): Promise<number | null> => {
      const link = await tcpLink(stack)
      const reply = await SecureDevice.withPassword(s.serial, password, { algorithm: 'hmac-md5', cipher: 'none' }).request(link, message)
      await link.close()
      return reply.status
    }
    // A session of a wrong password is challenged 401 (which counts as nothing: a new session's nonce often differs),
    // then ended unanswered (a failure): the 5th session's failure starts the wait.
    const wrong: Array<number | null> = []
    for (let i = 0; i < 6; i++) wrong.push(await session('a-wrong-one'))
    expect(wrong).toEqual([null, null, null, null, null, 503])
    expect(await session('the-right-one')).toBe(503)
    await eventually(async () => await session('the-right-one') === 200, 15_000, 'the right signature accepted')
  })

  it('wrong passwords for many devices from one address make every device login from it wait', async () => {
    const d = await createDevice(stack)
    for (let i = 0; i < 35; i++) expect(await mqttLogin(`UNKNOWN-${i}`, 'not-a-password')).toBe(4)
    expect(await mqttLogin(d.serial, d.mqttPassword ?? '', 5)).toBe(0x97)
    expect((await deviceFetch(stack, 'GET', '/device/tasks', { user: d.serial, password: d.restPassword ?? '' })).status).toBe(429)
  })
})
