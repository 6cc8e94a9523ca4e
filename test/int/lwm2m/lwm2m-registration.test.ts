// The LwM2M registration interface over plain CoAP and DTLS (docs/protocols/lwm2m.md): Register answered 2.01 with
// Location-Path rd/<id> and stored, Update and De-register, the registration as the system's communication, the
// lifetime's expiry; NoSec admitted only by the application's `security: "none"`, DTLS only with the endpoint's PSK.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { CoapCode } from '../../../protocols/coap/index.js'
import type { Stack } from '../../helpers/stack.js'
import { eventually, refusedCount, settle, telemetryCounts, transportOf } from '../../helpers/devices.js'
import { getSystem } from '../../helpers/systems.js'
import type { Lwm2mTransport } from '../../../ingest/lwm2m/lwm2m.transport.js'
import { dtlsDevice, udpDevice, type TestDevice } from './lwm2m-device.js'
import { lwm2mSystem, registrationsOf, startLwm2mStack } from './lwm2m-fixtures.js'

let stack: Stack
let nosec: string
let secured: string
beforeAll(async () => { ({ stack, nosec, secured } = await startLwm2mStack()) }, 120_000)
afterAll(async () => { await stack?.close() })

async function plain (): Promise<TestDevice> {
  const d = await udpDevice(stack.ports.lwm2m ?? 0)
  onTestFinished(async () => { await d.close() })
  return d
}

describe('over plain CoAP (NoSec)', () => {
  it('registers (2.01, Location-Path rd/<id>), stores the registration and counts as the system\'s communication', async () => {
    const s = await lwm2mSystem(stack, { applications: [nosec] })
    const d = await plain()
    const res = await d.register([`ep=${s.serial}`, 'lt=300', 'lwm2m=1.1', 'b=U'])
    expect(res.code).toBe(CoapCode.Created)
    expect(d.location[0]).toBe('rd')
    expect(d.location[1]).toMatch(/^[\w-]{8,}$/)
    const [reg] = await registrationsOf(stack, s.uid)
    expect(reg).toMatchObject({ id: d.location[1], endpoint: s.serial, lifetime_s: expect.anything(), binding: 'U', queue_mode: false, version: '1.1', secure: false, psk_identity: null })
    expect(Number(reg?.lifetime_s)).toBe(300)
    expect(reg?.object_links).toContain('</3/0>')
    expect(Number(reg?.expires_at) - Number(reg?.updated_at)).toBe(300_000)
    await eventually(async () => { await settle(stack); return (await getSystem(stack, s.uid)).commStatus === 'OK' }, 10_000, 'commStatus OK')
    expect((await getSystem(stack, s.uid)).lastCommDate).toBeGreaterThan(0)
  })

  it('updates (2.04: lifetime, binding, queue mode) and de-registers (2.02: nothing left)', async () => {
    const s = await lwm2mSystem(stack, { applications: [nosec] })
    const d = await plain()
    expect((await d.register([`ep=${s.serial}`, 'lt=60'])).code).toBe(CoapCode.Created)
    const before = await registrationsOf(stack, s.uid)
    expect((await d.update(['lt=120', 'b=UQ'])).code).toBe(CoapCode.Changed)
    const [after] = await registrationsOf(stack, s.uid)
    expect({ lt: Number(after?.lifetime_s), binding: after?.binding, queue: after?.queue_mode }).toEqual({ lt: 120, binding: 'UQ', queue: true })
    expect(Number(after?.updated_at)).toBeGreaterThanOrEqual(Number(before[0]?.updated_at))
    expect((await d.deregister()).code).toBe(CoapCode.Deleted)
    expect(await registrationsOf(stack, s.uid)).toEqual([])
    expect((await d.update()).code).toBe(CoapCode.NotFound)
  })

  it('a new Register replaces the system\'s earlier registration', async () => {
    const s = await lwm2mSystem(stack, { applications: [nosec] })
    const d = await plain()
    await d.register([`ep=${s.serial}`])
    const first = d.location[1]
    await d.register([`ep=${s.serial}`, 'lt=500'])
    expect(d.location[1]).not.toBe(first)
    const regs = await registrationsOf(stack, s.uid)
    expect(regs.map((r) => r.id)).toEqual([d.location[1]])
  })

  it('is refused (4.03) when the application requires security; counted, nothing stored', async () => {
    const s = await lwm2mSystem(stack, { applications: [secured], psk: true })
    const d = await plain()
    const refused = refusedCount(stack, 'LWM2M:lwm2m.security.required')
    expect((await d.register([`ep=${s.serial}`])).code).toBe(CoapCode.Forbidden)
    expect(refusedCount(stack, 'LWM2M:lwm2m.security.required')).toBe(refused + 1)
    expect(await registrationsOf(stack, s.uid)).toEqual([])
    expect(await telemetryCounts(stack, s.uid)).toEqual({ messages: 0, points: 0, last: 0, acks: 0 })
    expect((await getSystem(stack, s.uid)).commStatus).not.toBe('OK')
  })

  it('an unknown endpoint is 4.03 and a bad query 4.00, each counted; a device registered meanwhile is unaffected', async () => {
    const ok = await lwm2mSystem(stack, { applications: [nosec] })
    const good = await plain()
    expect((await good.register([`ep=${ok.serial}`])).code).toBe(CoapCode.Created)
    const d = await plain()
    const unknown = refusedCount(stack, 'LWM2M:device.unknown')
    expect((await d.register(['ep=NO-SUCH-DEVICE'])).code).toBe(CoapCode.Forbidden)
    expect(refusedCount(stack, 'LWM2M:device.unknown')).toBe(unknown + 1)
    const bad = refusedCount(stack, 'LWM2M:lwm2m.register')
    expect((await d.register(['lt=60'])).code).toBe(CoapCode.BadRequest)
    expect((await d.register([`ep=${ok.serial}`, 'lt=abc'])).code).toBe(CoapCode.BadRequest)
    expect((await d.register([`ep=${ok.serial}`, 'lwm2m=9.9'])).code).toBe(CoapCode.BadRequest)
    expect(refusedCount(stack, 'LWM2M:lwm2m.register')).toBe(bad + 3)
    expect((await d.register([`ep=${ok.serial}`], '<3/0>;;;="')).code).toBe(CoapCode.BadRequest)
    expect((await good.update()).code).toBe(CoapCode.Changed)
    expect((await registrationsOf(stack, ok.uid)).length).toBe(1)
  })
})

describe('over DTLS with a PSK', () => {
  it('registers with the endpoint name as identity; an update over plain CoAP is refused (4.03)', async () => {
    const s = await lwm2mSystem(stack, { applications: [secured], psk: true })
    const { device } = await dtlsDevice(stack.ports.lwm2ms ?? 0, s.serial, s.psk as Buffer)
    onTestFinished(async () => { await device.close() })
    expect((await device.register([`ep=${s.serial}`, 'lt=90'])).code).toBe(CoapCode.Created)
    expect((await registrationsOf(stack, s.uid))[0]).toMatchObject({ secure: true, psk_identity: s.serial })
    expect((await device.update(['lt=100'])).code).toBe(CoapCode.Changed)
    const d = await plain()
    d.location = device.location
    expect((await d.update()).code).toBe(CoapCode.Forbidden)
    expect((await d.deregister()).code).toBe(CoapCode.Forbidden)
    expect((await registrationsOf(stack, s.uid)).length).toBe(1)
  })

  it('registers with communication.lwm2m.pskIdentity as identity', async () => {
    const identity = `psk-${Math.random().toString(36).slice(2)}`
    const s = await lwm2mSystem(stack, { applications: [secured], psk: true, pskIdentity: identity })
    const { device } = await dtlsDevice(stack.ports.lwm2ms ?? 0, identity, s.psk as Buffer)
    onTestFinished(async () => { await device.close() })
    expect((await device.register([`ep=${s.serial}`])).code).toBe(CoapCode.Created)
    expect((await registrationsOf(stack, s.uid))[0]).toMatchObject({ psk_identity: identity })
  })

  it('a wrong PSK makes no session: refused by the handshake and counted, nothing stored', async () => {
    const s = await lwm2mSystem(stack, { applications: [secured], psk: true })
    const before = refusedCount(stack, 'LWM2M:dtls.bad.finished')
    await expect(dtlsDevice(stack.ports.lwm2ms ?? 0, s.serial, Buffer.alloc(16, 7))).rejects.toMatchObject({ code: expect.stringMatching(/^dtls\./) })
    await eventually(() => refusedCount(stack, 'LWM2M:dtls.bad.finished') === before + 1, 5000, 'the refusal counted')
    expect(await registrationsOf(stack, s.uid)).toEqual([])
  })

  it('an unknown identity makes no session', async () => {
    const before = refusedCount(stack, 'LWM2M:dtls.unknown.identity')
    await expect(dtlsDevice(stack.ports.lwm2ms ?? 0, 'NO-SUCH-IDENTITY', Buffer.alloc(16, 1))).rejects.toMatchObject({ code: expect.stringMatching(/^dtls\./) })
    await eventually(() => refusedCount(stack, 'LWM2M:dtls.unknown.identity') === before + 1, 5000, 'the refusal counted')
  })
})

describe('expiry', () => {
  it('a registration whose lifetime passed without an Update ends (the lwm2m.expire job) and its system turns WARNING', async () => {
    const s = await lwm2mSystem(stack, { applications: [nosec] })
    const d = await plain()
    expect((await d.register([`ep=${s.serial}`, 'lt=1'])).code).toBe(CoapCode.Created)
    const job = transportOf(stack, 'lwm2m').jobs?.['lwm2m.expire']
    expect(job).toBeDefined()
    await eventually(async () => { await job?.run(); return (await registrationsOf(stack, s.uid)).length === 0 }, { timeoutMs: 5000, intervalMs: 100, what: 'the registration expired' })
    await settle(stack)
    expect((await getSystem(stack, s.uid)).commStatus).toBe('WARNING')
    expect((transportOf(stack, 'lwm2m') as Lwm2mTransport).connected(s.uid)).toBe(false)
    expect((await d.update()).code).toBe(CoapCode.NotFound)
  })
})
