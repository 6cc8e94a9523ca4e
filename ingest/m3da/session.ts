// What the service answers to each envelope a device sends, over TCP and HTTP alike (issue 10, "Transports";
// conventions.md §Devices, M3DA; protocols.md §2.5, §2.8). The outer header `id` names the system (gateway serial
// number or IMEI) and the company's deviceIpFiltering applies. Then:
// - a system with communication.m3da.password must sign: its envelopes are opened with the security extension
//   (unsigned → 407 challenge, wrong MAC → 401 challenge, a second failure closes the session);
// - one with only a registration password auto-registers first (§2.8.6), and the new password is stored;
// - an agent without security is admitted only when the system's M3DA application says `authentication: "none"`;
// - anything else is refused (403).
// Never throws: a failure of the store is answered 503 (the device sends again), anything else 500.
import type { Logger } from '../../core/logger.js'
import type { DevicesService } from '../../core/services/ingest/devices.service.js'
import type { M3daDevice } from '../../core/services/ingest/m3da-devices.js'
import type { IngestService } from '../../core/services/ingest/ingest.service.js'
import type { DeviceTask } from '../../core/domain/device-task.js'
import { encodeEnvelope, type Envelope } from '../../protocols/m3da/index.js'
import {
  answerAutoregKey, finishServerAutoreg, isAutoregStart, isCipherName, isMacAlgorithm, openDeviceEnvelope, sealServerEnvelope, startServerAutoreg,
  type InnerContent, type MacAlgorithm, type SecurityCipher, type ServerAutoregState
} from '../../protocols/m3da/security/index.js'
import type { Pipeline } from '../pipeline.js'
import { exchange } from './exchange.js'
import { SESSION_MS } from './limits.js'
import type { DeviceLimits } from '../device-limits.js'

export interface SessionDeps {
  devices: DevicesService
  ingest: Pick<IngestService, 'takeTasks'>
  pipeline: Pipeline
  serverId: string
  log: Logger
  /** Each device's budget (ingest/device-limits.ts); M3DA over TCP has one package outstanding, its own backpressure. */
  limits: DeviceLimits
}

/** One peer: a TCP connection (kept across packages) or one HTTP request. */
export interface Peer {
  ip: string
  /** A challenge was sent and not yet answered right: a second failure ends the session (§2.8.4). */
  challenged: boolean
  /** Authentic packages handled: the first one gets the tasks sent before and not answered again. */
  packages: number
  /** TCP: tasks the dispatch handed to this connection (push), for the next reply. */
  outbox?: DeviceTask[]
  /** When the store was last asked for the system's tasks on this peer (ms). */
  polledAt?: number
  /** When its last authentic package came (ms): in session for SESSION_MS after it. */
  lastAt?: number
  /** TCP: the nonce last stored for the system, so that a chatty device costs no read per package. */
  nonce?: { systemUid: string, value: Buffer | null }
  /** The system once a package was authentic (TCP: the connected-devices count). */
  systemUid?: string
  /** One HTTP request (POST /device/com), not a TCP connection: nothing to close. */
  http?: boolean
  /**
   * Our last reply carried a payload, so it was also a request (§2.5): the device's next envelope with a status and
   * no payload is its reply, which ends the session and is not answered. Any other envelope is answered, a keep-alive
   * included (the agent puts status 200 in every inner header).
   */
  awaitingReply?: boolean
}

/** The reply (null: answer nothing), its M3DA status, and whether the connection must end after it. */
export interface Answer { reply: Buffer | null, status: number, close: boolean }

// A device lookup is kept this long on a connection, so that a chatty device costs no lookup per package; a password
// or filter change takes effect within it (an MQTT device is checked once per connection).
const LOOKUP_MS = SESSION_MS
// An auto-registration left half-way is forgotten after this (the agent waits 60 s for a reply, §2.4).
const AUTOREG_MS = 120_000
// The last reply of each system, kept to re-seal it when the device challenges it (§2.8.4); bounded.
const LAST_REPLIES_MAX = 50_000

const text = (v: unknown): string | null => Buffer.isBuffer(v) ? v.toString('utf8') : typeof v === 'string' ? v : null
const isEmpty = (p: Buffer): boolean => p.length === 0 || (p.length === 1 && p[0] === 0)

/** An unsigned envelope that only carries a status (403, 400, 500...: §2.4 status codes). */
export function statusEnvelope (status: number): Buffer {
  return encodeEnvelope({ header: { status }, payload: Buffer.alloc(0), footer: {} })
}

const plain = (status: number, close = false): Answer => ({ reply: statusEnvelope(status), status, close })

interface LastReply { inner: InnerContent, algorithm: MacAlgorithm, cipher: SecurityCipher, password: string, deviceId: string }

export function createSessionHandler (deps: SessionDeps) {
  const m3da = deps.devices.m3da
  const lookups = new WeakMap<Peer, { id: string, at: number, device: M3daDevice }>()
  const autoregs = new Map<string, { state: ServerAutoregState, at: number }>()
  const lastReplies = new Map<string, LastReply>()
  const authentic = new WeakSet<Peer>()

  async function deviceOf (peer: Peer, id: string) {
    const hit = lookups.get(peer)
    if (hit !== undefined && hit.id === id && Date.now() - hit.at < LOOKUP_MS) return { ok: true as const, device: hit.device }
    const r = await m3da.lookup(id, peer.ip)
    if (r.ok) lookups.set(peer, { id, at: Date.now(), device: r.device })
    return r
  }

  function remember (systemUid: string, last: LastReply): void {
    if (lastReplies.size >= LAST_REPLIES_MAX) lastReplies.clear()
    lastReplies.set(systemUid, last)
  }

  /** The stored nonce of the system: read once per connection, then kept as this connection stores it. */
  async function nonceOf (peer: Peer, systemUid: string, fresh = false): Promise<Buffer | null> {
    if (!fresh && peer.nonce?.systemUid === systemUid) return peer.nonce.value
    const value = await m3da.nonce(systemUid)
    peer.nonce = { systemUid, value }
    return value
  }

  function storeNonce (peer: Peer, systemUid: string, value: Buffer): void {
    peer.nonce = { systemUid, value }
    m3da.setNonce(systemUid, value)
  }

  /** Seals the reply with the nonce the device announced, stores the nonce the reply announces (§2.8.3). */
  async function sealed (peer: Peer, device: M3daDevice, id: string, inner: InnerContent, nonce: Buffer, algorithm: MacAlgorithm, cipher: SecurityCipher): Promise<Buffer> {
    const password = device.password ?? ''
    const { bytes, nextNonce } = sealServerEnvelope(inner, { deviceId: id, password, serverId: deps.serverId, nonce, algorithm, cipher })
    storeNonce(peer, device.session.systemUid, nextNonce)
    remember(device.session.systemUid, { inner, algorithm, cipher, password, deviceId: id })
    return bytes
  }

  /**
   * The tasks for this reply: those pushed to the connection and, at its first package (with those sent before and
   * not answered: a new session may have lost them) or once SESSION_MS passed, those waiting in the store.
   */
  function tasksFor (peer: Peer, systemUid: string, first: boolean) {
    return async (): Promise<DeviceTask[]> => {
      const pushed = peer.outbox?.splice(0) ?? []
      const now = Date.now()
      if (!first && now - (peer.polledAt ?? 0) < SESSION_MS) return pushed
      peer.polledAt = now
      const taken = await deps.ingest.takeTasks(systemUid, 'M3DA', { again: first })
      const seen = new Set(pushed.map((t) => t.uid))
      return [...pushed, ...taken.filter((t) => !seen.has(t.uid))]
    }
  }

  /** The package of an authentic device: store, answer; `close`: the device keeps exceeding its budget. */
  async function handled (peer: Peer, device: M3daDevice, payload: Buffer): Promise<{ status: number, payload: Buffer, close?: boolean }> {
    const admitted = deps.limits.admit(device.session.systemUid, payload.length)
    if (!admitted.ok) {
      // Over the device's budget (README "Device limits"): nothing stored, status 503 (§2.4), which the agent sends
      // again later, as when the store is unavailable. A device that keeps at it has its TCP connection closed.
      if (admitted.disconnect && peer.http !== true) deps.limits.disconnected()
      return { status: 503, payload: Buffer.alloc(0), close: admitted.disconnect }
    }
    const first = peer.packages === 0
    peer.packages++
    peer.lastAt = Date.now()
    peer.systemUid = device.session.systemUid
    try {
      const out = await exchange({ m3da, pipeline: deps.pipeline, tasks: tasksFor(peer, device.session.systemUid, first) }, device, payload)
      return { status: out.status, payload: out.payload }
    } catch (err) {
      deps.log.warn({ err, systemUid: device.session.systemUid }, 'M3DA package not stored; answered 503, the device sends again')
      return { status: 503, payload: Buffer.alloc(0) }
    }
  }

  /** The device's reply to our last reply (§2.5: a status and no payload): it ends the session, nothing to answer. */
  function endsSession (peer: Peer, e: Envelope): boolean {
    const awaited = peer.awaitingReply === true
    peer.awaitingReply = false
    return awaited && e.header.status !== undefined && isEmpty(e.payload)
  }

  async function unsecured (peer: Peer, device: M3daDevice, outer: Envelope): Promise<Answer> {
    if (endsSession(peer, outer)) return { reply: null, status: 200, close: false }
    const out = await handled(peer, device, outer.payload)
    peer.awaitingReply = out.payload.length > 0
    return { reply: encodeEnvelope({ header: { status: out.status }, payload: out.payload, footer: {} }), status: out.status, close: out.close === true }
  }

  async function secured (peer: Peer, device: M3daDevice, id: string, outer: Envelope): Promise<Answer> {
    const systemUid = device.session.systemUid
    const algorithm = isMacAlgorithm(device.authentication) ? device.authentication : undefined
    const cipher: SecurityCipher | null = device.encryption === 'none' ? 'none' : isCipherName(device.encryption) ? device.encryption : null
    const open = (nonce: Buffer | null): ReturnType<typeof openDeviceEnvelope> =>
      openDeviceEnvelope(outer, { deviceId: id, password: device.password ?? '', serverId: deps.serverId, nonce, cipher, algorithm, challenged: peer.challenged })
    const cached = peer.nonce?.systemUid === systemUid
    let opened = open(await nonceOf(peer, systemUid))
    // Another connection of the device may have moved the chain on: the store is asked before a 401.
    if (cached && opened.kind === 'challenge' && opened.status === 401) opened = open(await nonceOf(peer, systemUid, true))
    switch (opened.kind) {
      case 'challenge':
        storeNonce(peer, systemUid, opened.nonce)
        peer.challenged = true
        return { reply: opened.reply, status: opened.status, close: false }
      case 'peer-error':
        deps.log.info({ systemUid, status: opened.status }, 'M3DA device reported a failure on its side')
        return { reply: null, status: opened.status, close: false }
      case 'peer-challenge': {
        const last = lastReplies.get(systemUid)
        if (last === undefined || last.deviceId !== id) return { reply: null, status: 401, close: true }
        return { reply: await sealed(peer, device, id, last.inner, opened.nonce, opened.algorithm ?? last.algorithm, last.cipher), status: 200, close: false }
      }
      case 'refused':
        deps.pipeline.refuse(opened.reason)
        return opened.reason === 'auth.failed.after.challenge' ? { reply: null, status: 401, close: true } : plain(400)
      case 'open': {
        peer.challenged = false
        authentic.add(peer) // its password proven: the connection's next envelopes skip the throttle
        const inner = opened.inner
        // The nonce the device announced is the one our next envelope is signed with: a reply now, or none.
        if (endsSession(peer, inner)) return { reply: null, status: 200, close: false }
        const out = await handled(peer, device, inner.payload)
        peer.awaitingReply = out.payload.length > 0
        const bytes = await sealed(peer, device, id, { header: { status: out.status }, payload: out.payload }, opened.nextNonce, opened.algorithm, opened.cipher)
        return { reply: bytes, status: out.status, close: out.close === true }
      }
    }
  }

  /** Auto-registration (§2.8.6): steps 1 and 3 answered, step 5 stores the password and is not answered. */
  async function autoreg (device: M3daDevice, id: string, outer: Envelope): Promise<Answer> {
    const creds = { deviceId: id, registrationPassword: device.registrationPassword ?? '', serverId: deps.serverId }
    const now = Date.now()
    const current = autoregs.get(id)
    const state = current !== undefined && now - current.at < AUTOREG_MS && !isAutoregStart(outer) ? current.state : undefined
    if (state === undefined) {
      const r = startServerAutoreg(outer)
      if (!r.ok) return refusedAutoreg(id, r.reason)
      autoregs.set(id, { state: r.state, at: now })
      return { reply: r.reply, status: 200, close: false }
    }
    if (state.step === 'wait-pubkey') {
      const r = answerAutoregKey(state, outer, creds)
      if (!r.ok) return refusedAutoreg(id, r.reason)
      autoregs.set(id, { state: r.state, at: now })
      return { reply: r.reply, status: 200, close: false }
    }
    const r = finishServerAutoreg(state, outer, creds)
    if (!r.ok) return refusedAutoreg(id, r.reason)
    autoregs.delete(id)
    await m3da.setPassword(device.session.systemUid, r.newPassword)
    device.password = r.newPassword
    deps.log.info({ systemUid: device.session.systemUid }, 'M3DA device auto-registered; its new password is stored')
    return { reply: null, status: 200, close: false }
  }

  function refusedAutoreg (id: string, reason: string): Answer {
    autoregs.delete(id)
    deps.pipeline.refuse(reason)
    return plain(401, true)
  }

  /**
   * Password guessing is throttled as device logins are (README "Device login throttling"): until a connection has had
   * one authentic signed envelope, each goes through the throttle: a 401 that ends the session (a second wrong
   * signature, a wrong registration password) counts as a wrong password, an authentic envelope as a right one, and
   * a challenge as neither (a new session's nonce is often not the one stored); during a wait the envelope is not
   * opened and the answer is 503.
   */
  async function throttled (peer: Peer, id: string, answer: () => Promise<Answer>): Promise<Answer> {
    if (authentic.has(peer)) return await answer()
    const r = await deps.devices.guarded('m3da', id, peer.ip, async () => {
      const value = await answer()
      return { right: value.status === 401 && value.close ? false : authentic.has(peer) ? true : undefined, value }
    })
    if (!('value' in r)) {
      deps.pipeline.refuse('device.throttled')
      return plain(503, true)
    }
    return r.value
  }

  /** Answers one outer envelope of a peer. Never throws. */
  async function handle (peer: Peer, outer: Envelope): Promise<Answer> {
    const id = text(outer.header.id)
    if (id === null || id === '') {
      deps.pipeline.refuse('m3da.id.missing')
      return plain(400)
    }
    try {
      const found = await deviceOf(peer, id)
      if (!found.ok) {
        deps.pipeline.refuse(found.reason)
        return plain(403, true)
      }
      const device = found.device
      if (device.password !== null) return await throttled(peer, id, async () => await secured(peer, device, id, outer))
      if (device.registrationPassword !== null && (isAutoregStart(outer) || autoregs.has(id))) return await throttled(peer, id, async () => await autoreg(device, id, outer))
      if (device.authentication === 'none') return await unsecured(peer, device, outer)
      deps.pipeline.refuse(device.registrationPassword !== null ? 'm3da.autoreg.required' : 'm3da.security.required')
      return plain(403, true)
    } catch (err) {
      deps.log.error({ err, id }, 'M3DA envelope not handled')
      return plain(500)
    }
  }

  /** A byte stream that is no envelope: refused and counted, answered 400 (§2.4). */
  function malformed (reason: string): Answer {
    deps.pipeline.refuse(reason)
    return plain(400, true)
  }

  return { handle, malformed }
}

export type SessionHandler = ReturnType<typeof createSessionHandler>
