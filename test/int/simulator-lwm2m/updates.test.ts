// Simulated LwM2M devices installing: a firmware through Object 5 (pull from a local HTTP download link, SHA-256
// checked against its ETag) and a package through Object 9, driven by the test's LwM2M server as the service's
// LWM2M_FW and LWM2M_SW installs drive them (docs/protocols/lwm2m.md); and the failures: the failing share
// of --update-failure-rate, a package whose bytes do not match the link's tag, a link that does not answer.
import { describe, expect, it, onTestFinished } from 'vitest'
import { CoapCode } from '../../../protocols/coap/index.js'
import { ContentFormat } from '../../../protocols/lwm2m/index.js'
import { installedApplications } from '../../../simulator/devices/installed.js'
import { connectLwm2mDevice, type Lwm2mDevice } from '../../../simulator/transports/lwm2m.js'
import type { Lwm2mDeviceOptions } from '../../../simulator/transports/lwm2m-options.js'
import { closedPort } from '../../helpers/http-receiver.js'
import { eventually } from '../../helpers/eventually.js'
import { startPackageLink, startUdpLwm2mServer, type TestLwm2mServer } from './lwm2m-server.js'

const FIRMWARE = Buffer.alloc(40_000, 7)

async function setup (o: Partial<Lwm2mDeviceOptions> = {}): Promise<{ s: TestLwm2mServer, d: Lwm2mDevice, ep: string }> {
  const s = await startUdpLwm2mServer()
  onTestFinished(async () => { await s.close() })
  const ep = `SIMFW${Math.floor(Math.random() * 1e6)}`
  const d = await connectLwm2mDevice({ url: `coap://127.0.0.1:${s.port}`, endpointName: ep, rebootMs: 50, firmwareUpdateMs: 50, software: { download: { retryDelayMs: 10, tries: 2 } }, ...o })
  onTestFinished(async () => { await d.close() })
  return { s, d, ep }
}

const text = { contentFormat: ContentFormat.TEXT }

describe('firmware update (Object 5, pull)', () => {
  it('downloads, updates on Execute, re-registers and reports the new version', async () => {
    const { s, ep } = await setup()
    const link = await startPackageLink(FIRMWARE, 'gateway-fw-2.4.1.bin')
    onTestFinished(link.close)
    const states: unknown[] = []
    await s.observe(ep, '/5/0/3', (v) => { states.push(v['lwm2m.5.0.3']) }, ContentFormat.TEXT)
    expect((await s.request(ep, 'PUT', '/5/0/1', { ...text, payload: link.url })).code).toBe(CoapCode.Changed)
    await eventually(() => states.includes(2), 5000, 'State 2 Downloaded')
    expect(states).toEqual([1, 2])
    expect(link.gets()).toBe(1)
    const back = s.next('register', ep)
    expect((await s.request(ep, 'POST', '/5/0/2')).code).toBe(CoapCode.Changed)
    await back
    expect(await s.read(ep, '/5/0', ContentFormat.SENML_CBOR)).toMatchObject({ 'lwm2m.5.0.3': 0, 'lwm2m.5.0.5': 1, 'lwm2m.5.0.6': 'gateway-fw', 'lwm2m.5.0.7': '2.4.1' })
    expect(await s.read(ep, '/3/0/3', ContentFormat.TEXT)).toEqual({ 'lwm2m.3.0.3': '2.4.1' })
  })

  it('fails with Update Result 8 on a device of the failing share, keeping its firmware', async () => {
    const { s, d, ep } = await setup({ software: { failsInstalls: true, download: { retryDelayMs: 10 } } })
    const link = await startPackageLink(FIRMWARE, 'fw-3.0.0.bin')
    onTestFinished(link.close)
    await s.request(ep, 'PUT', '/5/0/1', { ...text, payload: link.url })
    await eventually(() => d.client.firmware.state === 2, 5000, 'Downloaded')
    await s.request(ep, 'POST', '/5/0/2')
    await eventually(() => d.client.firmware.result === 8, 5000, 'Update Result 8')
    expect(await s.read(ep, '/5/0', ContentFormat.TLV)).toMatchObject({ 'lwm2m.5.0.3': 0, 'lwm2m.5.0.5': 8 })
    expect(await s.read(ep, '/3/0/3', ContentFormat.TEXT)).toEqual({ 'lwm2m.3.0.3': '1.0.0' })
    expect(s.events.filter((e) => e.kind === 'register')).toHaveLength(1)
  })

  it('answers Update Result 5 when the bytes do not match the link\'s SHA-256, and 4 when the link does not answer', async () => {
    const { s, d, ep } = await setup()
    const link = await startPackageLink(FIRMWARE, 'fw-3.0.0.bin', `"${'0'.repeat(64)}"`)
    onTestFinished(link.close)
    await s.request(ep, 'PUT', '/5/0/1', { ...text, payload: link.url })
    await eventually(() => d.client.firmware.result === 5, 5000, 'Update Result 5')
    expect(d.client.firmware.state).toBe(0)
    await s.request(ep, 'PUT', '/5/0/1', { ...text, payload: `http://127.0.0.1:${await closedPort()}/device/packages/x` })
    await eventually(() => d.client.firmware.result === 4, 5000, 'Update Result 4')
    expect((await s.request(ep, 'POST', '/5/0/2')).code).toBe(CoapCode.MethodNotAllowed)
  })
})

describe('software management (Object 9)', () => {
  it('lists installed packages, installs a new one through a written URI, and uninstalls', async () => {
    const apps = installedApplications([{ type: 'modem-agent', revision: '1.2', running: true }])
    const { s, ep } = await setup({ applications: apps })
    expect(await s.read(ep, '/9', ContentFormat.TLV)).toMatchObject({ 'lwm2m.9.0.0': 'modem-agent', 'lwm2m.9.0.1': '1.2', 'lwm2m.9.0.7': 4, 'lwm2m.9.0.12': true })
    const link = await startPackageLink(Buffer.from('package bytes'), 'telemetry-app_5.0.bin')
    onTestFinished(link.close)
    const linksUpdated = s.next('update', ep)
    expect((await s.request(ep, 'PUT', '/9/1/3', { ...text, payload: link.url })).code).toBe(CoapCode.Changed)
    expect((await linksUpdated).payload).toContain('</9/1>')
    await eventually(async () => (await s.read(ep, '/9/1/7', ContentFormat.TEXT))['lwm2m.9.1.7'] === 3, 5000, 'DELIVERED')
    expect((await s.request(ep, 'POST', '/9/1/4')).code).toBe(CoapCode.Changed)
    expect(await s.read(ep, '/9/1', ContentFormat.SENML_JSON)).toMatchObject({ 'lwm2m.9.1.0': 'telemetry-app', 'lwm2m.9.1.1': '5.0', 'lwm2m.9.1.7': 4, 'lwm2m.9.1.9': 2 })
    expect(apps.list()).toContainEqual({ type: 'telemetry-app', revision: '5.0', running: true })
    expect((await s.request(ep, 'POST', '/9/1/11')).code).toBe(CoapCode.Changed)
    expect(apps.list()).toContainEqual({ type: 'telemetry-app', revision: '5.0', running: false })
    expect((await s.request(ep, 'POST', '/9/0/6')).code).toBe(CoapCode.Changed)
    expect(apps.list().map((a) => a.type)).toEqual(['telemetry-app'])
    expect((await s.request(ep, 'GET', '/9/0', { accept: ContentFormat.TLV })).code).toBe(CoapCode.NotFound)
  })

  it('creates an instance with Create, and fails the install with Result 58 on the failing share', async () => {
    const { s, ep } = await setup({ software: { failsInstalls: true } })
    const link = await startPackageLink(Buffer.from('x'), 'app-1.0.bin')
    onTestFinished(link.close)
    const created = await s.request(ep, 'POST', '/9', { contentFormat: ContentFormat.TLV, payload: Buffer.alloc(0) })
    expect(created.code).toBe(CoapCode.Created)
    await s.request(ep, 'PUT', '/9/0/3', { ...text, payload: link.url })
    await eventually(async () => (await s.read(ep, '/9/0/7', ContentFormat.TEXT))['lwm2m.9.0.7'] === 3, 5000, 'DELIVERED')
    await s.request(ep, 'POST', '/9/0/4')
    expect(await s.read(ep, '/9/0', ContentFormat.TLV)).toMatchObject({ 'lwm2m.9.0.7': 3, 'lwm2m.9.0.9': 58 })
  })
})
