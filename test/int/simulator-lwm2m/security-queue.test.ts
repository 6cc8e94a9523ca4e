// Simulated LwM2M devices over DTLS with a pre-shared key (the identity its endpoint name unless given), and in
// queue mode: reachable for a moment after each update, asleep (datagrams dropped) otherwise, notifications kept
// until it wakes.
import { describe, expect, it, onTestFinished } from 'vitest'
import { ContentFormat } from '../../../protocols/lwm2m/index.js'
import { connectLwm2mDevice } from '../../../simulator/transports/lwm2m.js'
import { eventually } from '../../helpers/eventually.js'
import { startDtlsLwm2mServer, startUdpLwm2mServer } from './lwm2m-server.js'

const KEY = 'a1b2c3d4e5f60718293a4b5c6d7e8f90'

describe('DTLS with PSK', () => {
  it('registers over DTLS with its endpoint name as identity, and answers reads there', async () => {
    const s = await startDtlsLwm2mServer(new Map([['SIMPSK1', Buffer.from(KEY, 'hex')]]))
    onTestFinished(async () => { await s.close() })
    const d = await connectLwm2mDevice({ url: `coaps://127.0.0.1:${s.port}`, endpointName: 'SIMPSK1', psk: { keyHex: KEY } })
    onTestFinished(async () => { await d.close() })
    expect(s.registrations.get('SIMPSK1')?.identity).toBe('SIMPSK1')
    expect(await s.read('SIMPSK1', '/3/0/2', ContentFormat.TEXT)).toEqual({ 'lwm2m.3.0.2': 'SIMPSK1' })
  })

  it('takes another identity when given, and reboots into a new DTLS session', async () => {
    const s = await startDtlsLwm2mServer(new Map([['id-7', Buffer.from(KEY, 'hex')]]))
    onTestFinished(async () => { await s.close() })
    const d = await connectLwm2mDevice({ url: `coaps://127.0.0.1:${s.port}`, endpointName: 'SIMPSK2', psk: { identity: 'id-7', keyHex: KEY }, rebootMs: 50 })
    onTestFinished(async () => { await d.close() })
    const first = s.registrations.get('SIMPSK2')?.peer
    const again = s.next('register', 'SIMPSK2')
    await s.request('SIMPSK2', 'POST', '/3/0/4')
    await again
    expect(s.registrations.get('SIMPSK2')?.peer).not.toBe(first)
    expect(await s.read('SIMPSK2', '/3/0/3', ContentFormat.TEXT)).toEqual({ 'lwm2m.3.0.3': '1.0.0' })
  })

  it('registers again over a new session when the server ends its session, without counting a restart', async () => {
    const s = await startDtlsLwm2mServer(new Map([['SIMPSK4', Buffer.from(KEY, 'hex')]]))
    onTestFinished(async () => { await s.close() })
    let restarts = 0
    const d = await connectLwm2mDevice({ url: `coaps://127.0.0.1:${s.port}`, endpointName: 'SIMPSK4', psk: { keyHex: KEY }, rebootMs: 50, onReboot: () => { restarts++ } })
    onTestFinished(async () => { await d.close() })
    const again = s.next('register', 'SIMPSK4')
    s.dropSessions()
    await again
    expect(restarts).toBe(0)
    expect(await s.read('SIMPSK4', '/3/0/2', ContentFormat.TEXT)).toEqual({ 'lwm2m.3.0.2': 'SIMPSK4' })
  })

  it('fails to connect with a wrong key', async () => {
    const s = await startDtlsLwm2mServer(new Map([['SIMPSK3', Buffer.from(KEY, 'hex')]]))
    onTestFinished(async () => { await s.close() })
    await expect(connectLwm2mDevice({ url: `coaps://127.0.0.1:${s.port}`, endpointName: 'SIMPSK3', psk: { keyHex: 'ff'.repeat(16) } })).rejects.toMatchObject({ code: expect.stringMatching(/^dtls\./) })
  })
})

describe('queue mode', () => {
  it('is reachable only after an update, and sends what changed while it slept when it wakes', async () => {
    const s = await startUdpLwm2mServer()
    onTestFinished(async () => { await s.close() })
    const d = await connectLwm2mDevice({ url: `coap://127.0.0.1:${s.port}`, endpointName: 'SIMQ1', queue: true, queueAwakeMs: 300, ackTimeoutMs: 100 })
    onTestFinished(async () => { await d.close() })
    const rssi: unknown[] = []
    await s.observe('SIMQ1', '/4/0/2', (v) => { rssi.push(v['lwm2m.4.0.2']) }, ContentFormat.TEXT)
    await eventually(() => !d.client.awake, 5000, 'the device asleep')
    await expect(s.request('SIMQ1', 'GET', '/3/0/2', { accept: ContentFormat.TEXT }, 500)).rejects.toMatchObject({ code: 'coap.timeout' })
    await d.sendData([{ dataId: '_RSSI', ts: Date.now(), value: -99 }])
    expect(rssi).toEqual([])
    const updated = s.next('update', 'SIMQ1')
    await d.checkTasks() // its poll: a registration update
    await updated
    expect(d.client.awake).toBe(true)
    await eventually(() => rssi.includes(-99), 5000, 'the stored notification')
    expect(await s.read('SIMQ1', '/3/0/2', ContentFormat.TEXT)).toEqual({ 'lwm2m.3.0.2': 'SIMQ1' })
  })
})
