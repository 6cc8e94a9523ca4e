// How a simulated M3DA agent carries envelopes (docs/protocols/m3da.md): over TCP the envelope is written on the socket
// and the reply read back envelope by envelope (Bysant is self-delimiting, the EnvelopeReader says when one is
// whole), the connection kept across exchanges and opened again when it was lost; over HTTP each envelope is one
// `POST` with an application/octet-stream body and the reply envelope is the answer's body. One package (request
// and reply) at a time (§2.5): the caller waits for a reply before it sends again.
import { connect, type Socket } from 'node:net'
import { EnvelopeReader, decodeEnvelope, type Envelope } from '../../protocols/m3da/index.js'
import { TransportError } from './transport.js'

export interface M3daLink {
  /** Sends one envelope and resolves with the reply envelope. @throws TransportError */
  exchange (envelope: Buffer): Promise<Envelope>
  /**
   * Sends an envelope that gets no reply: the last step of auto-registration (docs/protocols/m3da.md), after which the
   * agent's next request follows at once. TCP writes it on the connection; HTTP posts it and ignores the answer.
   */
  send (envelope: Buffer): Promise<void>
  /** TCP: opens the connection now if it is not open (a device back from a reboot). HTTP: nothing. @throws TransportError */
  connect (): Promise<void>
  /** Bytes of the last exchange, for the device's link counters. */
  readonly lastTraffic: { sent: number, received: number }
  /** TCP: closes the connection (the next exchange opens another). HTTP: nothing. */
  disconnect (): Promise<void>
}

// The Mihini agent gives up on a reply after 60 s (docs/protocols/m3da.md, status 408).
const REPLY_TIMEOUT_MS = 60_000
const HTTP_HEADERS = 200 // request line and headers, roughly: for the link counters

/** tcp://host:port or http(s)://host:port/path. */
export function m3daLink (url: string): M3daLink {
  const u = new URL(url)
  if (u.protocol === 'tcp:') return tcpLink(u.hostname, Number(u.port === '' ? 44900 : u.port))
  if (u.protocol === 'http:' || u.protocol === 'https:') return httpLink(url)
  throw new TransportError(`M3DA URL must be tcp://host:port or http://host:port/device/com, got ${url}`)
}

interface Waiting { resolve: (e: Envelope) => void, reject: (err: Error) => void, timer: NodeJS.Timeout }

function tcpLink (host: string, port: number): M3daLink {
  const traffic = { sent: 0, received: 0 }
  let socket: Socket | undefined
  let reader = new EnvelopeReader()
  let waiting: Waiting | undefined

  const settle = (outcome: { envelope: Envelope } | { err: Error }): void => {
    const w = waiting
    if (w === undefined) return
    waiting = undefined
    clearTimeout(w.timer)
    if ('envelope' in outcome) w.resolve(outcome.envelope)
    else w.reject(outcome.err)
  }

  const drop = (s: Socket, err: Error): void => {
    s.destroy()
    if (socket === s) socket = undefined
    settle({ err })
  }

  async function open (): Promise<Socket> {
    if (socket !== undefined && !socket.destroyed) return socket
    const s = connect(port, host)
    s.setNoDelay(true)
    reader = new EnvelopeReader()
    const mine = reader
    await new Promise<void>((resolve, reject) => {
      s.once('connect', resolve)
      s.once('error', (err) => { reject(new TransportError(`M3DA connect to ${host}:${port}: ${err.message}`, (err as NodeJS.ErrnoException).code)) })
    })
    s.on('error', (err) => { drop(s, new TransportError(`M3DA connection: ${err.message}`, (err as NodeJS.ErrnoException).code)) })
    s.on('close', () => { drop(s, new TransportError('M3DA connection closed by the service')) })
    s.on('data', (chunk: Buffer) => {
      traffic.received += chunk.length
      mine.push(chunk)
      for (;;) {
        const next = mine.next()
        if (next === 'more') return
        if (!next.ok) { drop(s, new TransportError(`M3DA reply unreadable: ${next.reason}`)); return }
        // An envelope nobody waits for (the service speaks only in replies, §2.5) is dropped.
        settle({ envelope: next.envelope })
      }
    })
    socket = s
    return s
  }

  return {
    async exchange (envelope) {
      if (waiting !== undefined) throw new TransportError('M3DA: one package at a time (protocols.md §2.5)')
      const s = await open()
      traffic.sent = envelope.length
      traffic.received = 0
      return await new Promise<Envelope>((resolve, reject) => {
        const timer = setTimeout(() => { drop(s, new TransportError('M3DA: no reply within 60 s', 408)) }, REPLY_TIMEOUT_MS)
        timer.unref()
        waiting = { resolve, reject, timer }
        s.write(envelope)
      })
    },
    async connect () { await open() },
    async send (envelope) {
      if (waiting !== undefined) throw new TransportError('M3DA: one package at a time (protocols.md §2.5)')
      const s = await open()
      traffic.sent = envelope.length
      traffic.received = 0
      await new Promise<void>((resolve, reject) => { s.write(envelope, (err) => { if (err == null) resolve(); else reject(new TransportError(`M3DA write: ${err.message}`)) }) })
    },
    lastTraffic: traffic,
    async disconnect () {
      const s = socket
      socket = undefined
      if (s === undefined || s.destroyed) return
      await new Promise<void>((resolve) => { s.once('close', () => { resolve() }); s.end() })
    }
  }
}

function httpLink (url: string): M3daLink {
  const traffic = { sent: 0, received: 0 }
  const post = async (envelope: Buffer): Promise<Response> => {
    try {
      return await fetch(url, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: envelope })
    } catch (err) {
      throw new TransportError(`M3DA POST ${url}: ${(err as Error).message}`)
    }
  }
  return {
    async connect () {},
    async send (envelope) {
      const res = await post(envelope)
      await res.arrayBuffer()
      traffic.sent = HTTP_HEADERS + envelope.length
      traffic.received = HTTP_HEADERS
    },
    async exchange (envelope) {
      const res = await post(envelope)
      const body = Buffer.from(await res.arrayBuffer())
      traffic.sent = HTTP_HEADERS + envelope.length
      traffic.received = HTTP_HEADERS + body.length
      // A refusal may come as an HTTP error carrying a reply envelope (its status says why): the session reads it.
      const decoded = body.length === 0 ? undefined : decodeEnvelope(body)
      if (decoded?.ok === true) return decoded.envelope
      if (res.status !== 200) throw new TransportError(`M3DA POST ${url}: ${res.status}`, res.status)
      throw new TransportError(`M3DA reply unreadable: ${decoded?.reason ?? 'empty body'}`)
    },
    lastTraffic: traffic,
    async disconnect () {}
  }
}
