// An LwM2M device for the tests (docs/protocols/lwm2m.md), made of our own CoAP endpoint (protocols/coap) over UDP or
// over our DTLS client (protocols/dtls): it registers, updates and de-registers, serves objects 3, 4 and 6 in TLV
// (Read, Observe, Write, Execute), notifies its observers on demand, and records the server's requests.
import { EventEmitter, once } from 'node:events'
import { CoapCode, CoapEndpoint, coapRequest, encodeUint, getOptions, OptionNumber, uriPathOf, type CoapMessage, type OutgoingResponse } from '../../../protocols/coap/index.js'
import { listenUdp, udpPeer, type UdpCoap } from '../../../protocols/coap/udp.js'
import { connectDtls, type DtlsClient } from '../../../protocols/dtls/index.js'
import { ContentFormat, encodeContent, parsePath, type LwM2mPath, type LwM2mValue, type WriteValue } from '../../../protocols/lwm2m/index.js'

/** Resource values by object, instance and resource id. */
export type Objects = Record<number, Record<number, Record<number, LwM2mValue>>>

export function defaultObjects (): Objects {
  return {
    3: { 0: { 0: 'Acme', 1: 'Tracker', 2: 'SN-1', 3: '1.2.3', 13: new Date(1_700_000_000_000) } },
    4: { 0: { 0: 6, 2: -71, 3: 80, 8: 12345, 9: 1, 10: 208 } },
    6: { 0: { 0: 45.5, 1: 4.75, 5: new Date(1_700_000_000_000) } }
  }
}

export const OBJECT_LINKS = '</>;rt="oma.lwm2m";ct=11542,</1/0>,</3/0>,</4/0>,</6/0>'

export interface Served { code: number, path: string, observe: boolean, payload: Buffer }

export class TestDevice extends EventEmitter {
  readonly requests: Served[] = []
  location: string[] = []
  /** The content format of each object's answers (default TLV): objects no registry knows read best in SenML. */
  readonly formats = new Map<number, number>()
  constructor (readonly endpoint: CoapEndpoint, readonly server: string, readonly objects: Objects, private readonly closer: () => Promise<void>) { super() }

  valuesAt (path: LwM2mPath): WriteValue[] {
    const out: WriteValue[] = []
    const instances = this.objects[path.objectId] ?? {}
    for (const [i, resources] of Object.entries(instances)) {
      if (path.instanceId !== undefined && Number(i) !== path.instanceId) continue
      for (const [r, value] of Object.entries(resources)) {
        if (path.resourceId !== undefined && Number(r) !== path.resourceId) continue
        out.push({ path: { objectId: path.objectId, instanceId: Number(i), resourceId: Number(r) }, value })
      }
    }
    return out
  }

  read (path: LwM2mPath): OutgoingResponse {
    const values = this.valuesAt(path)
    if (values.length === 0) return { code: CoapCode.NotFound }
    const format = this.formats.get(path.objectId) ?? ContentFormat.TLV
    const encoded = encodeContent(format, values, { basePath: path })
    if (!encoded.ok) throw new Error(encoded.reason)
    return { code: CoapCode.Content, payload: encoded.payload, options: [{ number: OptionNumber.ContentFormat, value: encodeUint(format) }] }
  }

  handle (req: CoapMessage): OutgoingResponse {
    const path = uriPathOf(req)
    const observe = getOptions(req, OptionNumber.Observe).length > 0
    this.requests.push({ code: req.code, path, observe, payload: req.payload })
    this.emit('request', path, req.code)
    const parsed = parsePath(path)
    if (!parsed.ok) return { code: CoapCode.NotFound }
    if (req.code === CoapCode.GET) {
      const answer = this.read(parsed.path)
      return observe && answer.code === CoapCode.Content ? { ...answer, options: [...(answer.options ?? []), { number: OptionNumber.Observe, value: Buffer.from([1]) }] } : answer
    }
    if (req.code === CoapCode.POST) return { code: CoapCode.Changed }
    if (req.code === CoapCode.PUT) return { code: CoapCode.Changed }
    return { code: CoapCode.MethodNotAllowed }
  }

  async register (query: string[], links = OBJECT_LINKS): Promise<CoapMessage> {
    const res = await this.endpoint.request(this.server, coapRequest('POST', '/rd', { query, payload: links, contentFormat: ContentFormat.LINK }), { timeoutMs: 10_000 })
    if (res.code === CoapCode.Created) this.location = getOptions(res, OptionNumber.LocationPath).map((b) => b.toString())
    return res
  }

  async update (query: string[] = [], links?: string): Promise<CoapMessage> {
    return await this.endpoint.request(this.server, coapRequest('POST', '/' + this.location.join('/'), { query, ...(links === undefined ? {} : { payload: links, contentFormat: ContentFormat.LINK }) }), { timeoutMs: 10_000 })
  }

  async deregister (): Promise<CoapMessage> {
    return await this.endpoint.request(this.server, coapRequest('DELETE', '/' + this.location.join('/')), { timeoutMs: 10_000 })
  }

  /** Sends the observers of `path` its current values; answers how many were notified. */
  async notify (path: string): Promise<number> {
    const parsed = parsePath(path)
    if (!parsed.ok) throw new Error(path)
    const observers = this.endpoint.servedObservers().filter((o) => o.path === path)
    for (const o of observers) await this.endpoint.notify(o.peer, o.token, this.read(parsed.path), { confirmable: true })
    return observers.length
  }

  /** Resolves at the server's next request for `path` (or at once when one was made). */
  async requested (path: string, code: number = CoapCode.GET): Promise<void> {
    if (this.requests.some((r) => r.path === path && r.code === code)) return
    for (;;) {
      const [p, c] = await once(this, 'request') as [string, number]
      if (p === path && c === code) return
    }
  }

  async close (): Promise<void> { await this.closer() }
}

/** A device speaking plain CoAP from a UDP socket of its own to the service's LWM2M_PORT. */
export async function udpDevice (port: number, objects = defaultObjects()): Promise<TestDevice> {
  const at: { device?: TestDevice } = {}
  const udp: UdpCoap = await listenUdp({ address: '127.0.0.1', handler: (req) => at.device?.handle(req) ?? { code: CoapCode.ServiceUnavailable } })
  at.device = new TestDevice(udp.endpoint, udpPeer('127.0.0.1', port), objects, async () => { await udp.close() })
  return at.device
}

/** A device speaking CoAP over our DTLS client to the service's LWM2MS_PORT. */
export async function dtlsDevice (port: number, identity: string, psk: Buffer, objects = defaultObjects()): Promise<{ device: TestDevice, client: DtlsClient }> {
  const client = await connectDtls({ host: '127.0.0.1', port, identity, psk, handshakeTimeoutMs: 10_000 })
  const at: { device?: TestDevice } = {}
  const endpoint = new CoapEndpoint({
    send: (_peer, datagram) => { client.send(datagram) },
    handler: (req) => at.device?.handle(req) ?? { code: CoapCode.ServiceUnavailable }
  })
  client.on('message', (m: Buffer) => { endpoint.receive('server', m) })
  const device = new TestDevice(endpoint, 'server', objects, async () => { endpoint.close(); await client.close() })
  at.device = device
  return { device, client }
}
