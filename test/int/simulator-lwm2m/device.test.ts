// Simulated LwM2M devices (simulator/transports/lwm2m*.ts) against a small LwM2M server written here on our CoAP
// endpoint, over real UDP sockets on 127.0.0.1: registration, reads in each format, discover, write, observe and its
// notifications, reboot, lifetime updates, and de-registration.
import { describe, expect, it, onTestFinished } from 'vitest'
import { CoapCode, OptionNumber, getUintOption } from '../../../protocols/coap/index.js'
import { ContentFormat, parseRegisterQuery, parseRegistrationLinks, parseLinkFormat } from '../../../protocols/lwm2m/index.js'
import { createDeviceModel } from '../../../simulator/devices/device-model.js'
import { deviceIdentity, newRunTag } from '../../../simulator/devices/identity.js'
import { installedApplications } from '../../../simulator/devices/installed.js'
import { createSimulatedDevice } from '../../../simulator/devices/simulated-device.js'
import { openTransport } from '../../../simulator/fleet.js'
import { connectLwm2mDevice, type Lwm2mDevice } from '../../../simulator/transports/lwm2m.js'
import type { Lwm2mDeviceOptions } from '../../../simulator/transports/lwm2m-options.js'
import { eventually } from '../../helpers/eventually.js'
import { startUdpLwm2mServer, type TestLwm2mServer } from './lwm2m-server.js'

async function server (): Promise<TestLwm2mServer> {
  const s = await startUdpLwm2mServer()
  onTestFinished(async () => { await s.close() })
  return s
}

let n = 0
async function device (s: TestLwm2mServer, o: Partial<Lwm2mDeviceOptions> = {}): Promise<Lwm2mDevice> {
  const d = await connectLwm2mDevice({ url: `coap://127.0.0.1:${s.port}`, endpointName: `SIMLW${++n}`, rebootMs: 50, ...o })
  onTestFinished(async () => { await d.close() })
  return d
}

describe('registration', () => {
  it('registers as LwM2M 1.1 with its objects and the formats it speaks', async () => {
    const s = await server()
    const apps = installedApplications([{ type: 'agent', revision: '3.1', running: true }])
    const d = await device(s, { lifetime: 120, applications: apps })
    const reg = s.registrations.get(d.client.state.serialNumber)
    expect(reg).toBeDefined()
    const q = parseRegisterQuery(reg?.query ?? [])
    expect(q.ok && q.query).toMatchObject({ endpoint: d.client.state.serialNumber, lifetime: 120, version: '1.1', binding: { transports: ['U'], queue: false } })
    const links = parseRegistrationLinks(reg?.links ?? '')
    expect(links.ok).toBe(true)
    if (!links.ok) return
    expect(links.registration.contentFormats).toEqual(expect.arrayContaining([ContentFormat.TLV, ContentFormat.SENML_CBOR, ContentFormat.SENML_JSON]))
    expect(links.registration.objects.map((o) => [o.objectId, o.instances])).toEqual([[1, [0]], [3, [0]], [4, [0]], [5, [0]], [6, [0]], [9, [0]]])
  })

  it('says 1.0 and b=UQ in queue mode for LwM2M 1.0, and Q for 1.1', async () => {
    const s = await server()
    const old = await device(s, { version: '1.0', queue: true })
    const recent = await device(s, { queue: true })
    expect(s.registrations.get(old.client.state.serialNumber)?.query).toEqual(expect.arrayContaining(['lwm2m=1.0', 'b=UQ']))
    expect(s.registrations.get(old.client.state.serialNumber)?.links).toBe('</1/0>,</3/0>,</4/0>,</5/0>,</6/0>,</9>')
    expect(s.registrations.get(recent.client.state.serialNumber)?.query).toEqual(expect.arrayContaining(['lwm2m=1.1', 'b=U', 'Q']))
  })

  it('registers again when an update finds its registration forgotten (4.04)', async () => {
    const s = await server()
    const d = await device(s, { lifetime: 1 })
    const ep = d.client.state.serialNumber
    s.registrations.delete(ep)
    await s.next('register', ep)
    // The server records it before its answer reaches the device.
    await eventually(() => d.client.registrations === 2, 5000, 'the device registered again')
    await s.next('update', ep)
  })

  it('updates before its lifetime ends, and de-registers when stopped', async () => {
    const s = await server()
    const d = await connectLwm2mDevice({ url: `coap://127.0.0.1:${s.port}`, endpointName: 'SIMLWLIFE', lifetime: 1 })
    await s.next('update', 'SIMLWLIFE')
    const gone = s.next('deregister', 'SIMLWLIFE')
    await d.close()
    await gone
    expect(s.registrations.has('SIMLWLIFE')).toBe(false)
  })
})

describe('device management', () => {
  it('answers reads of an object, an instance and a resource in TLV, SenML CBOR, SenML JSON and text', async () => {
    const s = await server()
    const d = await device(s)
    const ep = d.client.state.serialNumber
    for (const accept of [ContentFormat.TLV, ContentFormat.SENML_CBOR, ContentFormat.SENML_JSON]) {
      const v = await s.read(ep, '/3/0', accept)
      expect(v).toMatchObject({ 'lwm2m.3.0.0': 'Fleet Simulator', 'lwm2m.3.0.2': ep, 'lwm2m.3.0.3': '1.0.0', 'lwm2m.3.0.9': 100 })
    }
    expect(await s.read(ep, '/4', ContentFormat.TLV)).toMatchObject({ 'lwm2m.4.0.2': -75, 'lwm2m.4.0.9': expect.any(Number), 'lwm2m.4.0.10': 208 })
    expect(await s.read(ep, '/6/0/0', ContentFormat.TEXT)).toEqual({ 'lwm2m.6.0.0': 45.19 })
    const none = await s.request(ep, 'GET', '/3/0/4') // an executable is not read
    expect(none.code).toBe(CoapCode.MethodNotAllowed)
    expect((await s.request(ep, 'GET', '/3/0/77')).code).toBe(CoapCode.NotFound)
  })

  it('refuses SenML to a 1.0 device with 4.06, and serves TLV without an Accept', async () => {
    const s = await server()
    const d = await device(s, { version: '1.0' })
    const ep = d.client.state.serialNumber
    expect((await s.request(ep, 'GET', '/3/0', { accept: ContentFormat.SENML_CBOR })).code).toBe(CoapCode.NotAcceptable)
    const res = await s.request(ep, 'GET', '/3/0')
    expect(getUintOption(res, OptionNumber.ContentFormat)).toBe(ContentFormat.TLV)
  })

  it('discovers an object with its instances and resources', async () => {
    const s = await server()
    const d = await device(s)
    const ep = d.client.state.serialNumber
    await s.request(ep, 'PUT', '/3/0/9', { query: ['pmin=2', 'pmax=30'] })
    const res = await s.request(ep, 'GET', '/3', { accept: ContentFormat.LINK })
    const links = parseLinkFormat(res.payload)
    expect(links.ok).toBe(true)
    const targets = links.ok ? links.links.map((l) => l.target) : []
    expect(targets).toEqual(expect.arrayContaining(['/3', '/3/0', '/3/0/3', '/3/0/4', '/3/0/9']))
    expect(res.payload.toString()).toContain('</3/0/9>;pmin=2;pmax=30')
  })

  it('takes a Write of the lifetime and tells it in its next update', async () => {
    const s = await server()
    const d = await device(s)
    const ep = d.client.state.serialNumber
    const updated = s.next('update', ep)
    const res = await s.request(ep, 'PUT', '/1/0/1', { contentFormat: ContentFormat.TEXT, payload: '45' })
    expect(res.code).toBe(CoapCode.Changed)
    expect((await updated).query).toContain('lt=45')
    expect(await s.read(ep, '/1/0/1', ContentFormat.TEXT)).toEqual({ 'lwm2m.1.0.1': 45 })
    expect((await s.request(ep, 'PUT', '/3/0/0', { contentFormat: ContentFormat.TEXT, payload: 'x' })).code).toBe(CoapCode.MethodNotAllowed)
  })

  it('reboots on Execute 3/0/4: the session dropped, a new registration a moment later, the restart counted', async () => {
    const s = await server()
    let restarts = 0
    const d = await device(s, { onReboot: () => { restarts++ } })
    const ep = d.client.state.serialNumber
    const again = s.next('register', ep)
    expect((await s.request(ep, 'POST', '/3/0/4')).code).toBe(CoapCode.Changed)
    await again
    expect(restarts).toBe(1)
    expect(s.events.filter((e) => e.ep === ep).map((e) => e.kind)).toEqual(['register', 'register'])
    expect(await s.read(ep, '/3/0/2', ContentFormat.TEXT)).toEqual({ 'lwm2m.3.0.2': ep })
  })
})

describe('observations', () => {
  it('notifies RSSI and location as the device model moves them, honours pmin, and stops once cancelled', async () => {
    const s = await server()
    const d = await device(s)
    const ep = d.client.state.serialNumber
    const rssi: unknown[] = []
    const places: unknown[] = []
    const obs = await s.observe(ep, '/4/0/2', (v) => { rssi.push(v['lwm2m.4.0.2']) }, ContentFormat.TEXT)
    await s.observe(ep, '/6/0', (v) => { places.push([v['lwm2m.6.0.0'], v['lwm2m.6.0.1']]) }, ContentFormat.SENML_CBOR)
    expect(obs.active).toBe(true)
    await d.sendData([{ dataId: '_RSSI', ts: Date.now(), value: -90.2 }, { dataId: '_LATITUDE', ts: Date.now(), value: 45.2 }])
    await eventually(() => rssi.includes(-90) && places.some((p) => (p as number[])[0] === 45.2), 5000, 'the notifications')
    // Unchanged after rounding: nothing is sent.
    await d.sendData([{ dataId: '_RSSI', ts: Date.now(), value: -90.4 }])
    expect(rssi).toEqual([-90])
    await obs.cancel()
    await eventually(() => d.client.observers.size === 1, 5000, 'the cancellation')
    await d.sendData([{ dataId: '_RSSI', ts: Date.now(), value: -60 }])
    expect(rssi).toEqual([-90])
  })

  it('waits pmin seconds after the last notification before the next', async () => {
    const s = await server()
    const d = await device(s)
    const ep = d.client.state.serialNumber
    await s.request(ep, 'PUT', '/4/0/2', { query: ['pmin=1'] })
    const seen: Array<{ v: unknown, at: number }> = []
    const start = Date.now()
    await s.observe(ep, '/4/0/2', (v) => { seen.push({ v: v['lwm2m.4.0.2'], at: Date.now() }) }, ContentFormat.TEXT)
    await d.sendData([{ dataId: '_RSSI', ts: Date.now(), value: -80 }])
    await eventually(() => seen.length === 1, 5000, 'the deferred notification')
    expect(seen[0]?.v).toBe(-80)
    expect((seen[0]?.at ?? 0) - start).toBeGreaterThanOrEqual(900)
  })
})

describe('observations without changes', () => {
  it('notifies at least every pmax seconds, the value unchanged', async () => {
    const s = await server()
    const d = await device(s)
    const ep = d.client.state.serialNumber
    await s.request(ep, 'PUT', '/3/0/9', { query: ['pmax=1'] })
    const seen: number[] = []
    const start = Date.now()
    await s.observe(ep, '/3/0/9', () => { seen.push(Date.now() - start) }, ContentFormat.TEXT)
    await eventually(() => seen.length >= 2, 5000, 'two periodic notifications')
    expect(seen[0]).toBeGreaterThanOrEqual(900)
  })
})

describe('as a device of a fleet', () => {
  it('publishes the device model\'s samples to its observers, and counts a reboot in the model', async () => {
    const s = await server()
    const model = createDeviceModel({ origin: { latitude: 48.85, longitude: 2.35 } })
    const id = deviceIdentity(newRunTag(), 1)
    const transport = await openTransport(id, { protocol: 'lwm2m', lwm2mUrl: `coap://127.0.0.1:${s.port}` }, 'http://unused', { model, rebootMs: 50 })
    const d = createSimulatedDevice({ identity: id, systemUid: 'u1', transport, model })
    onTestFinished(async () => { await d.close() })
    const ep = id.serialNumber
    const places: number[] = []
    await s.observe(ep, '/6/0', (v) => { places.push(v['lwm2m.6.0.0'] as number) }, ContentFormat.SENML_JSON)
    await d.publish()
    await eventually(() => places.length > 0, 5000, 'a position notified')
    expect(Math.abs((places[0] ?? 0) - 48.85)).toBeLessThan(0.01)
    const again = s.next('register', ep)
    await s.request(ep, 'POST', '/3/0/4')
    await again
    expect(model.numberOfResets).toBe(1)
    model.write([{ 'config.apn': 'other' }])
    expect((await s.request(ep, 'POST', '/3/0/5')).code).toBe(CoapCode.Changed)
    await eventually(() => model.read(['config.apn'], 0)[0]?.value === 'internet', 5000, 'the factory settings')
  })
})
