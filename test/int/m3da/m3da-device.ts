// A small M3DA device for the transport tests, built on the codecs' device side (protocols/m3da, protocols/m3da/security):
// a link (TCP: envelopes back to back on one connection; HTTP: one POST /device/com per envelope), and a device that
// sends Messages and Responses unsecured or signed (with the nonce chain and the answer to a challenge, as the Mihini
// agent does), or auto-registers. Assertions stay in the tests.
import { connect, type Socket } from 'node:net'
import { encodeEnvelope, EnvelopeReader, decodeEnvelope, decodePayload, encodePayload, type Envelope, type M3daObject, type MessageToEncode, type M3daResponse } from '../../../protocols/m3da/index.js'
import {
  answerServerSalt, deriveKeys, finishDeviceAutoreg, newNonce, openServerEnvelope, sealDeviceEnvelope, startDeviceAutoreg,
  type MacAlgorithm, type SecurityCipher, type SessionKeys
} from '../../../protocols/m3da/security/index.js'
import type { Stack } from '../../helpers/stack.js'

export interface Link {
  /** Sends bytes and answers the next envelope the service sends (null: none came, or an empty HTTP body). */
  exchange (bytes: Buffer): Promise<Envelope | null>
  /** Sends bytes and expects no answer (autoreg step 5). */
  send (bytes: Buffer): Promise<void>
  /** TCP: whether the service closed the connection. */
  closed (): boolean
  /** The HTTP status of the last exchange (HTTP only). */
  lastStatus?: number
  close (): Promise<void>
}

/** One TCP connection to M3DA_PORT. */
export async function tcpLink (stack: Stack, waitMs = 5000, first?: Buffer): Promise<Link> {
  const socket: Socket = connect(stack.ports.m3da ?? 0, '127.0.0.1')
  await new Promise<void>((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject) })
  if (first !== undefined) socket.write(first) // a PROXY protocol header, as a proxy in front of the service sends
  const reader = new EnvelopeReader()
  const waiting: Array<(e: Envelope | null) => void> = []
  const received: Envelope[] = []
  let ended = false
  socket.on('data', (chunk: Buffer) => {
    reader.push(chunk)
    for (let r = reader.next(); r !== 'more' && r.ok; r = reader.next()) {
      const w = waiting.shift()
      if (w !== undefined) w(r.envelope)
      else received.push(r.envelope)
    }
  })
  socket.on('error', () => {})
  socket.on('close', () => { ended = true; for (const w of waiting.splice(0)) w(null) })
  const next = async (): Promise<Envelope | null> => {
    const ready = received.shift()
    if (ready !== undefined) return ready
    if (ended) return null
    return await new Promise((resolve) => {
      const t = setTimeout(() => { const i = waiting.indexOf(done); if (i >= 0) waiting.splice(i, 1); resolve(null) }, waitMs)
      const done = (e: Envelope | null): void => { clearTimeout(t); resolve(e) }
      waiting.push(done)
    })
  }
  return {
    async exchange (bytes) { socket.write(bytes); return await next() },
    async send (bytes) { socket.write(bytes) },
    closed: () => ended,
    async close () { socket.destroy() }
  }
}

/** POST /device/com, one envelope per request. */
export function httpLink (stack: Stack): Link {
  const link: Link = {
    async exchange (bytes) {
      const res = await fetch(`${stack.httpUrl}/device/com`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: bytes })
      link.lastStatus = res.status
      const body = Buffer.from(await res.arrayBuffer())
      if (body.length === 0) return null
      const d = decodeEnvelope(body)
      return d.ok ? d.envelope : null
    },
    async send (bytes) { await link.exchange(bytes) },
    closed: () => false,
    async close () {}
  }
  return link
}

export type Outgoing = MessageToEncode | M3daResponse

export interface Reply { status: number | null, objects: M3daObject[], envelope: Envelope | null }

const statusOf = (e: Envelope | null): number | null => typeof e?.header.status === 'number' ? e.header.status : null

/** The objects of a reply payload (the test fails on a payload that does not decode). */
function objectsOf (payload: Buffer): M3daObject[] {
  const d = decodePayload(payload)
  if (!d.ok) throw new Error(`reply payload does not decode: ${d.reason}`)
  return d.objects
}

/** A device without security: its envelopes are `{id}` + the payload, answered `{status}` + the payload. */
export async function sendUnsecured (link: Link, id: string, objects: Outgoing[]): Promise<Reply> {
  const envelope = await link.exchange(encodeEnvelope({ header: { id }, payload: encodePayload(objects), footer: null }))
  return { status: statusOf(envelope), objects: envelope === null ? [] : objectsOf(envelope.payload), envelope }
}

export interface SecureOptions { algorithm: MacAlgorithm, cipher: SecurityCipher, serverId?: string }

/** A device that signs (§2.8): keeps the nonce the service announced, answers one challenge per request. */
export class SecureDevice {
  /** The nonce to sign the next envelope with (null: none agreed yet, a random one forces a challenge). */
  nonce: Buffer | null = null
  readonly serverId: string
  /** Statuses of the challenges met, in order. */
  readonly challenges: number[] = []

  constructor (readonly id: string, public keys: SessionKeys, readonly opts: SecureOptions) {
    this.serverId = opts.serverId ?? 'AIRVANTAGE'
  }

  static withPassword (id: string, password: string, opts: SecureOptions): SecureDevice {
    return new SecureDevice(id, deriveKeys(password, id, opts.serverId ?? 'AIRVANTAGE'), opts)
  }

  /** Seals these objects as the next request: answers the bytes and the nonce the reply must be signed with. */
  seal (objects: Outgoing[], nonce = this.nonce ?? newNonce(), nextNonce?: Buffer): { bytes: Buffer, nextNonce: Buffer } {
    return sealDeviceEnvelope({ payload: encodePayload(objects) }, { deviceId: this.id, keys: this.keys, nonce, nextNonce, algorithm: this.opts.algorithm, cipher: this.opts.cipher })
  }

  /** Sends a request; a challenge is answered once (re-sealed with its nonce). */
  async request (link: Link, objects: Outgoing[]): Promise<Reply> {
    let sealed = this.seal(objects)
    let envelope = await link.exchange(sealed.bytes)
    for (let tries = 0; tries < 2; tries++) {
      if (envelope === null) return { status: null, objects: [], envelope }
      const opened = openServerEnvelope(envelope, { keys: this.keys, nonce: sealed.nextNonce, cipher: this.opts.cipher })
      if (opened.kind === 'open') {
        this.nonce = opened.nextNonce
        return { status: statusOf(opened.inner), objects: objectsOf(opened.inner.payload), envelope: opened.inner }
      }
      if (opened.kind !== 'challenge' || tries > 0) return { status: opened.kind === 'challenge' ? opened.status : statusOf(envelope), objects: [], envelope }
      this.challenges.push(opened.status ?? 0)
      sealed = this.seal(objects, opened.nonce, sealed.nextNonce)
      envelope = await link.exchange(sealed.bytes)
    }
    return { status: statusOf(envelope), objects: [], envelope }
  }
}

/** Auto-registration (§2.8.6) with the registration password: answers the keys of the new password. */
export async function autoregister (link: Link, id: string, registrationPassword: string, serverId = 'AIRVANTAGE'): Promise<SessionKeys> {
  const creds = { deviceId: id, registrationPassword, serverId }
  const step1 = startDeviceAutoreg(id)
  const step2 = await link.exchange(step1.bytes)
  if (step2 === null || step1.state.step !== 'wait-salt') throw new Error('no step 2')
  const step3 = answerServerSalt(step1.state, step2, creds)
  if (!step3.ok) throw new Error(`step 3: ${step3.reason}`)
  const step4 = await link.exchange(step3.bytes)
  if (step4 === null || step3.state.step !== 'wait-key') throw new Error('no step 4')
  const step5 = finishDeviceAutoreg(step3.state, step4, creds)
  if (!step5.ok) throw new Error(`step 5: ${step5.reason}`)
  await link.send(step5.bytes)
  return step5.keys
}
