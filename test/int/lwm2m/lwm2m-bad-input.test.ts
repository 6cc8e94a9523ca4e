// What the LwM2M listeners refuse (docs/protocols/lwm2m.md#admission): datagrams that are no CoAP or no DTLS, a
// registration of another company's endpoint with this device's key, a NoSec registration where DTLS is required,
// requests outside /rd. Each is refused and counted, stores nothing, and the devices registered meanwhile go on.
// Also one NoSec registration by libcoap's coap-client-notls, an independent CoAP client.
import { createSocket } from 'node:dgram'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { CoapCode, coapRequest } from '../../../protocols/coap/index.js'
import type { Stack } from '../../helpers/stack.js'
import { eventually, refusedCount, telemetryCounts, transportOf } from '../../helpers/devices.js'
import { companyUid, createUser, uniq } from '../../helpers/factories.js'
import type { Lwm2mTransport } from '../../../ingest/lwm2m/lwm2m.transport.js'
import { dtlsDevice, udpDevice, type TestDevice } from './lwm2m-device.js'
import { lwm2mSystem, registrationsOf, startLwm2mStack } from './lwm2m-fixtures.js'

let stack: Stack
let nosec: string
let secured: string
beforeAll(async () => { ({ stack, nosec, secured } = await startLwm2mStack()) }, 120_000)
afterAll(async () => { await stack?.close() })

const lwm2m = (): Lwm2mTransport => transportOf(stack, 'lwm2m') as Lwm2mTransport

async function plain (): Promise<TestDevice> {
  const d = await udpDevice(stack.ports.lwm2m ?? 0)
  onTestFinished(async () => { await d.close() })
  return d
}

async function sendRaw (port: number, datagrams: Buffer[]): Promise<void> {
  const socket = createSocket('udp4')
  onTestFinished(() => { socket.close() })
  for (const d of datagrams) await new Promise<void>((resolve, reject) => { socket.send(d, port, '127.0.0.1', (err) => { if (err !== null) reject(err); else resolve() }) })
}

describe('bad input', () => {
  it('datagrams that are no CoAP are counted and dropped; a registered device goes on', async () => {
    const s = await lwm2mSystem(stack, { applications: [nosec] })
    const d = await plain()
    expect((await d.register([`ep=${s.serial}`])).code).toBe(CoapCode.Created)
    const before = lwm2m().coapCounters().udp?.malformed ?? 0
    // Too short, version 2, a token length of 9, a payload marker with nothing after it (the last three CON).
    await sendRaw(stack.ports.lwm2m ?? 0, [Buffer.from([0x40]), Buffer.from([0x80, 0x01, 0x00, 0x01]), Buffer.from([0x49, 0x01, 0x00, 0x02]), Buffer.from([0x40, 0x01, 0x00, 0x03, 0xff])])
    await eventually(() => (lwm2m().coapCounters().udp?.malformed ?? 0) >= before + 2, 5000, 'the malformed datagrams counted')
    expect((await d.update()).code).toBe(CoapCode.Changed)
  })

  it('datagrams that are no DTLS are counted and make no session', async () => {
    const before = refusedCount(stack, 'LWM2M:dtls.')
    await sendRaw(stack.ports.lwm2ms ?? 0, [Buffer.from('not dtls at all'), Buffer.from([0x17, 0xfe, 0xfd, 0, 0, 0, 0, 0, 0, 0, 9, 0, 1, 0])])
    await eventually(() => refusedCount(stack, 'LWM2M:dtls.') >= before + 2, 5000, 'the refusals counted')
  })

  it('requests outside /rd are 4.04, a GET of /rd 4.05; counted', async () => {
    const d = await plain()
    const before = refusedCount(stack, 'LWM2M:lwm2m.')
    expect((await d.endpoint.request(d.server, coapRequest('POST', '/bs', { query: ['ep=x'] }))).code).toBe(CoapCode.NotFound)
    expect((await d.endpoint.request(d.server, coapRequest('GET', '/rd'))).code).toBe(CoapCode.MethodNotAllowed)
    expect(refusedCount(stack, 'LWM2M:lwm2m.')).toBe(before + 2)
  })

  it('a device registering another company\'s endpoint with its own key is refused (4.03); counted, nothing stored', async () => {
    const otherName = uniq('Other Company')
    const admin = await createUser(stack, { company: otherName, administrator: true, rights: ['entities.systems.create', 'entities.systems.view', 'entities.systems.edit'] })
    expect(await companyUid(stack, otherName)).not.toBe(stack.companyUid)
    const victim = await lwm2mSystem(stack, { applications: [], psk: true, token: admin.token })
    const mine = await lwm2mSystem(stack, { applications: [secured], psk: true })
    const { device } = await dtlsDevice(stack.ports.lwm2ms ?? 0, mine.serial, mine.psk as Buffer)
    onTestFinished(async () => { await device.close() })
    const before = refusedCount(stack, 'LWM2M:lwm2m.psk.identity.mismatch')
    expect((await device.register([`ep=${victim.serial}`])).code).toBe(CoapCode.Forbidden)
    expect(refusedCount(stack, 'LWM2M:lwm2m.psk.identity.mismatch')).toBe(before + 1)
    expect(await registrationsOf(stack, victim.uid)).toEqual([])
    expect(await telemetryCounts(stack, victim.uid)).toEqual({ messages: 0, points: 0, last: 0, acks: 0 })
    // The victim's name as identity with this device's key: the handshake fails.
    await expect(dtlsDevice(stack.ports.lwm2ms ?? 0, victim.serial, mine.psk as Buffer)).rejects.toMatchObject({ code: expect.stringMatching(/^dtls\./) })
    // Its own registration still works over the same session.
    expect((await device.register([`ep=${mine.serial}`])).code).toBe(CoapCode.Created)
  })
})

describe('libcoap\'s coap-client-notls', () => {
  it('registers a NoSec device', async () => {
    const s = await lwm2mSystem(stack, { applications: [nosec] })
    const run = promisify(execFile)
    const url = `coap://127.0.0.1:${stack.ports.lwm2m ?? 0}/rd?ep=${s.serial}&lt=120&lwm2m=1.0&b=U`
    const { stdout, stderr } = await run('/usr/bin/coap-client-notls', ['-B', '10', '-m', 'post', '-t', '40', '-e', '</1/0>,</3/0>', '-v', '6', url], { timeout: 20_000, encoding: 'utf8' })
    expect(stdout + stderr).toMatch(/2\.01/)
    const [reg] = await registrationsOf(stack, s.uid)
    expect(reg).toMatchObject({ endpoint: s.serial, version: '1.0', binding: 'U', secure: false })
    expect(reg?.object_links).toBe('</1/0>,</3/0>')
  })
})
