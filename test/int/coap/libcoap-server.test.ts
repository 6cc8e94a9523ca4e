// Our endpoint as the client (what an LwM2M server does towards a device), with libcoap's coap-server-notls as the
// server: discovery, a body over one block written with Block1 and read back with Block2, and an observation of its
// /time resource (a notification a second) cancelled with a GET carrying Observe 1; and a lost response (the server
// told to drop its first datagram) recovered by our retransmission.
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { CoapCode, OptionNumber, coapRequest, getOption, getUintOption, type CoapMessage } from '../../../protocols/coap/index.js'
import { listenUdp, udpPeer, type UdpCoap } from '../../../protocols/coap/udp.js'
import { eventually } from '../../helpers/eventually.js'
import { startCoapServer, type CoapServerProcess } from './libcoap.js'

let libcoap: CoapServerProcess
let us: UdpCoap
let peer: string

beforeAll(async () => {
  libcoap = await startCoapServer()
  us = await listenUdp({ address: '127.0.0.1', params: { ackTimeoutMs: 300 } })
  peer = udpPeer('127.0.0.1', libcoap.port)
  // Ready when it answers (a request before it binds is lost, and retried by eventually).
  await eventually(async () => (await us.endpoint.request(peer, coapRequest('GET', '/'), { timeoutMs: 500 })).code === CoapCode.Content,
    { timeoutMs: 10_000, retryErrors: true, what: 'coap-server-notls answering' })
})
afterAll(async () => {
  await us?.close()
  await libcoap?.stop()
})

describe('our endpoint against coap-server-notls', () => {
  it('reads /.well-known/core', async () => {
    const res = await us.endpoint.request(peer, coapRequest('GET', '/.well-known/core'))
    expect(res.code).toBe(CoapCode.Content)
    expect(res.payload.toString()).toContain('</time>')
  })

  it('writes 5,000 bytes block-wise (Block1) and reads them back block-wise (Block2)', async () => {
    const body = Buffer.from(randomBytes(3750).toString('base64'))
    const sentBefore = us.endpoint.counters.sent
    const put = await us.endpoint.request(peer, coapRequest('PUT', '/blob', { payload: body, contentFormat: 0 }))
    expect(put.code).toBe(CoapCode.Created)
    expect(us.endpoint.counters.sent - sentBefore).toBe(Math.ceil(body.length / 1024))
    const got = await us.endpoint.request(peer, coapRequest('GET', '/blob'))
    expect(got.code).toBe(CoapCode.Content)
    expect(got.payload.toString()).toBe(body.toString())
    expect(getOption(got, OptionNumber.Block2)).toBeUndefined()
  })

  it('observes /time: notifications with increasing Observe values, then a cancel by GET with Observe 1', async () => {
    const notifications: CoapMessage[] = []
    let twoSeen: () => void = () => {}
    const two = new Promise<void>((resolve) => { twoSeen = resolve })
    const obs = await us.endpoint.observe(peer, coapRequest('GET', '/time'), {
      onNotification: (m) => { if (notifications.push(m) === 2) twoSeen() }
    })
    expect(obs.active).toBe(true)
    await two
    const [first, second] = notifications.map((m) => getUintOption(m, OptionNumber.Observe) as number)
    expect(second).toBeGreaterThan(first as number)
    expect(notifications.every((m) => m.code === CoapCode.Content && m.payload.length > 0)).toBe(true)
    const res = await obs.cancel()
    expect(res?.code).toBe(CoapCode.Content)
    expect(getUintOption(res as CoapMessage, OptionNumber.Observe)).toBeUndefined()
    expect(us.endpoint.gauges().observations).toBe(0)
    expect(us.endpoint.counters).toMatchObject({ malformed: 0, internalErrors: 0 })
  })
})

describe('a lossy coap-server-notls (-l 1: its first datagram is not sent)', () => {
  it('our CON is retransmitted and the answer comes to the retransmission', async () => {
    const lossy = await startCoapServer(['-l', '1'])
    onTestFinished(async () => { await lossy.stop() })
    const client = await listenUdp({ address: '127.0.0.1', params: { ackTimeoutMs: 300 } })
    onTestFinished(async () => { await client.close() })
    const to = udpPeer('127.0.0.1', lossy.port)
    const res = await eventually(async () => await client.endpoint.request(to, coapRequest('GET', '/')), { timeoutMs: 10_000, retryErrors: true, what: 'an answer' })
    expect(res.code).toBe(CoapCode.Content)
    expect(client.endpoint.counters.retransmissions).toBeGreaterThanOrEqual(1)
  })
})
