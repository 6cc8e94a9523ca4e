// A small LwM2M server for the simulated devices' tests, written on our CoAP endpoint (protocols/coap): the
// registration interface (`/rd` register, update, de-register, recorded), and the server's requests to a registered
// device (read, write, execute, discover, observe) by endpoint name. Over UDP on 127.0.0.1:0, or over DTLS with a PSK
// per identity (protocols/dtls), one CoAP endpoint for every session, the session's key as the peer.
import { EventEmitter, once } from 'node:events'
import { createHash } from 'node:crypto'
import { CoapCode, CoapEndpoint, OptionNumber, coapRequest, uriPathOf, uriQueryOf, type CoapMessage, type Observation, type OutgoingResponse, type RequestExtras } from '../../../protocols/coap/index.js'
import { listenUdp } from '../../../protocols/coap/udp.js'
import { createDtlsServer, type DtlsSession } from '../../../protocols/dtls/index.js'
import { ContentFormat, decodeContent, parsePath, pathToDataId, type LwM2mEntry } from '../../../protocols/lwm2m/index.js'
import { listenLocal } from '../../helpers/http-receiver.js'

export interface Registration { ep: string, query: string[], links: string, peer: string, location: string, identity?: string }
export interface RdEvent { kind: 'register' | 'update' | 'deregister', ep: string, query: string[], payload: string }

export interface TestLwm2mServer {
  readonly port: number
  readonly endpoint: CoapEndpoint
  readonly registrations: Map<string, Registration>
  readonly events: RdEvent[]
  readonly emitter: EventEmitter
  /** Resolves with the next /rd event of this kind for this endpoint (or the count-th one seen in all). */
  next (kind: RdEvent['kind'], ep: string): Promise<RdEvent>
  request (ep: string, method: 'GET' | 'PUT' | 'POST' | 'DELETE', path: string, extras?: RequestExtras, timeoutMs?: number): Promise<CoapMessage>
  /** Reads and decodes: data id → value. */
  read (ep: string, path: string, accept?: number): Promise<Record<string, unknown>>
  observe (ep: string, path: string, onValues: (values: Record<string, unknown>) => void, accept?: number): Promise<Observation>
  /** DTLS: ends every session with close_notify, as a server that restarts does (nothing on UDP). */
  dropSessions (): void
  close (): Promise<void>
}

const byDataId = (values: readonly LwM2mEntry[]): Record<string, unknown> => Object.fromEntries(values.map((v) => [pathToDataId(v.path), v.value]))

export function decode (msg: CoapMessage, path: string): Record<string, unknown> {
  const parsed = parsePath(path)
  if (!parsed.ok) throw new Error(`bad path ${path}`)
  const format = msg.options.find((o) => o.number === OptionNumber.ContentFormat)
  const n = format === undefined ? ContentFormat.TEXT : format.value.length === 0 ? 0 : format.value.readUIntBE(0, format.value.length)
  const decoded = decodeContent(n, msg.payload, parsed.path)
  if (!decoded.ok) throw new Error(`undecodable ${path} (${n}): ${decoded.reason}`)
  return byDataId(decoded.values)
}

interface Core { registrations: Map<string, Registration>, events: RdEvent[], emitter: EventEmitter }

/** The /rd resource: 2.01 with /rd/<n>, 2.04 for an update of a known registration, 2.02 for a de-register. */
function rdHandler (c: Core, identityOf: (peer: string) => string | undefined): (req: CoapMessage, peer: string) => OutgoingResponse {
  let n = 0
  return (req, peer) => {
    const path = uriPathOf(req)
    const query = uriQueryOf(req)
    const payload = req.payload.toString('utf8')
    const record = (kind: RdEvent['kind'], ep: string): void => { const e = { kind, ep, query, payload }; c.events.push(e); c.emitter.emit(kind, e) }
    if (path === '/rd' && req.code === CoapCode.POST) {
      const ep = query.find((q) => q.startsWith('ep='))?.slice(3) ?? ''
      const location = `/rd/${++n}`
      c.registrations.set(ep, { ep, query, links: payload, peer, location, ...(identityOf(peer) === undefined ? {} : { identity: identityOf(peer) }) })
      record('register', ep)
      return { code: CoapCode.Created, options: [{ number: OptionNumber.LocationPath, value: Buffer.from('rd') }, { number: OptionNumber.LocationPath, value: Buffer.from(String(n)) }] }
    }
    const reg = [...c.registrations.values()].find((r) => r.location === path)
    if (reg === undefined) return { code: CoapCode.NotFound }
    if (req.code === CoapCode.DELETE) { c.registrations.delete(reg.ep); record('deregister', reg.ep); return { code: CoapCode.Deleted } }
    reg.peer = peer
    if (payload !== '') reg.links = payload
    record('update', reg.ep)
    return { code: CoapCode.Changed }
  }
}

function api (c: Core, endpoint: CoapEndpoint, port: number, close: () => Promise<void>, dropSessions = (): void => {}): TestLwm2mServer {
  const peerOf = (ep: string): string => {
    const r = c.registrations.get(ep)
    if (r === undefined) throw new Error(`${ep} is not registered`)
    return r.peer
  }
  const self: TestLwm2mServer = {
    port,
    endpoint,
    ...c,
    async next (kind, ep) {
      for (;;) {
        const [e] = await once(c.emitter, kind) as [RdEvent]
        if (e.ep === ep) return e
      }
    },
    request: async (ep, method, path, extras = {}, timeoutMs = 10_000) => await endpoint.request(peerOf(ep), coapRequest(method, path, extras), { timeoutMs }),
    async read (ep, path, accept) {
      const res = await self.request(ep, 'GET', path, accept === undefined ? {} : { accept })
      if (res.code !== CoapCode.Content) throw new Error(`read ${path}: ${res.code >> 5}.${String(res.code & 31).padStart(2, '0')}`)
      return decode(res, path)
    },
    observe: async (ep, path, onValues, accept) => await endpoint.observe(peerOf(ep), coapRequest('GET', path, accept === undefined ? {} : { accept }), {
      onNotification: (msg) => { onValues(decode(msg, path)) }
    }),
    dropSessions,
    close
  }
  return self
}

/** A NoSec LwM2M server on UDP 127.0.0.1:0. */
export async function startUdpLwm2mServer (): Promise<TestLwm2mServer> {
  const c: Core = { registrations: new Map(), events: [], emitter: new EventEmitter() }
  const rd = rdHandler(c, () => undefined)
  const udp = await listenUdp({ address: '127.0.0.1', handler: (req, peer) => rd(req, peer) })
  return api(c, udp.endpoint, udp.port, async () => { await udp.close() })
}

/** An LwM2M server over DTLS with PSK on UDP 127.0.0.1:0; `keys` by identity. */
export async function startDtlsLwm2mServer (keys: Map<string, Buffer>): Promise<TestLwm2mServer> {
  const c: Core = { registrations: new Map(), events: [], emitter: new EventEmitter() }
  const sessions = new Map<string, DtlsSession>()
  const server = createDtlsServer({ pskFor: async (identity) => keys.get(identity) })
  const rd = rdHandler(c, (peer) => sessions.get(peer)?.identity)
  const endpoint = new CoapEndpoint({ send: (peer, d) => { sessions.get(peer)?.send(d) }, handler: (req, peer) => rd(req, peer) })
  server.on('session', (s: DtlsSession) => {
    const key = `${s.remote.address}:${s.remote.port}`
    sessions.set(key, s)
    s.on('message', (d: Buffer) => { endpoint.receive(key, d) })
    s.on('close', () => { if (sessions.get(key) === s) { sessions.delete(key); endpoint.forgetPeer(key) } })
  })
  const { port } = await server.listen({ port: 0, host: '127.0.0.1' })
  return api(c, endpoint, port, async () => { endpoint.close(); await server.close() }, () => { for (const session of [...sessions.values()]) session.close() })
}

/** An HTTP download link for a package, as the service serves one: ETag the quoted SHA-256, its file name announced. */
export async function startPackageLink (bytes: Buffer, filename: string, etag = `"${createHash('sha256').update(bytes).digest('hex')}"`): Promise<{ url: string, gets: () => number, close: () => Promise<void> }> {
  let gets = 0
  const r = await listenLocal((req, res) => {
    const headers = { 'content-length': bytes.length, etag, 'content-disposition': `attachment; filename="${filename}"` }
    if (req.method === 'HEAD') { res.writeHead(200, headers).end(); return }
    gets++
    res.writeHead(200, headers).end(bytes)
  })
  return { url: `http://${r.origin}/device/packages/token`, gets: () => gets, close: r.close }
}
