// Envelopes of a device that signs (docs/protocols/m3da.md): opened with the security extension (unsigned → 407
// challenge, wrong MAC → 401 challenge, a second failure closes the session), the reply sealed with the nonce the
// device announced, the nonce chain kept per connection and in the store (m3da-devices.ts writes it behind).
import type { Envelope } from '../../protocols/m3da/index.js'
import {
  isCipherName, isMacAlgorithm, openDeviceEnvelope, sealServerEnvelope,
  type InnerContent, type MacAlgorithm, type SecurityCipher
} from '../../protocols/m3da/security/index.js'
import type { M3daDevice } from './m3da-devices.js'
import type { Packages } from './session-packages.js'
import { plain, type Answer, type Peer, type SessionDeps } from './session-types.js'

// The last replies kept (createLastReplies).
const LAST_REPLIES_MAX = 50_000

interface LastReply { inner: InnerContent, algorithm: MacAlgorithm, cipher: SecurityCipher, password: string, deviceId: string }

type Opened = ReturnType<typeof openDeviceEnvelope>

/** The last reply of each system, kept to re-seal it when the device challenges it (§2.8.4); bounded. */
function createLastReplies () {
  const lastReplies = new Map<string, LastReply>()
  return {
    get: (systemUid: string): LastReply | undefined => lastReplies.get(systemUid),
    remember (systemUid: string, last: LastReply): void {
      if (lastReplies.size >= LAST_REPLIES_MAX) lastReplies.clear()
      lastReplies.set(systemUid, last)
    }
  }
}

/** `authentic`: the peers whose password is proven (session.ts: their next envelopes skip the throttle). */
export function createSecured (deps: SessionDeps, packages: Packages, authentic: WeakSet<Peer>) {
  const { m3da } = deps
  const lastReplies = createLastReplies()

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
  function sealed (peer: Peer, device: M3daDevice, id: string, inner: InnerContent, nonce: Buffer, algorithm: MacAlgorithm, cipher: SecurityCipher): Buffer {
    const password = device.password ?? ''
    const { bytes, nextNonce } = sealServerEnvelope(inner, { deviceId: id, password, serverId: deps.serverId, nonce, algorithm, cipher })
    storeNonce(peer, device.session.systemUid, nextNonce)
    lastReplies.remember(device.session.systemUid, { inner, algorithm, cipher, password, deviceId: id })
    return bytes
  }

  /** Opens the envelope with the nonce of this connection; another connection may have moved the chain on. */
  async function opened (peer: Peer, device: M3daDevice, id: string, outer: Envelope): Promise<Opened> {
    const systemUid = device.session.systemUid
    const algorithm = isMacAlgorithm(device.authentication) ? device.authentication : undefined
    const cipher: SecurityCipher | null = device.encryption === 'none' ? 'none' : isCipherName(device.encryption) ? device.encryption : null
    const open = (nonce: Buffer | null): Opened =>
      openDeviceEnvelope(outer, { deviceId: id, password: device.password ?? '', serverId: deps.serverId, nonce, cipher, algorithm, challenged: peer.challenged })
    const cached = peer.nonce?.systemUid === systemUid
    const first = open(await nonceOf(peer, systemUid))
    // Another connection of the device may have moved the chain on: the store is asked before a 401.
    return cached && first.kind === 'challenge' && first.status === 401 ? open(await nonceOf(peer, systemUid, true)) : first
  }

  /** An authentic envelope: its package handled, the reply sealed (or none when it ends the session). */
  async function authenticated (peer: Peer, device: M3daDevice, id: string, open: Extract<Opened, { kind: 'open' }>): Promise<Answer> {
    peer.challenged = false
    authentic.add(peer) // its password proven: the connection's next envelopes skip the throttle
    const inner = open.inner
    // The nonce the device announced is the one our next envelope is signed with: a reply now, or none.
    if (packages.endsSession(peer, inner)) return { reply: null, status: 200, close: false }
    const out = await packages.handled(peer, device, inner.payload)
    peer.awaitingReply = out.payload.length > 0
    const bytes = sealed(peer, device, id, { header: { status: out.status }, payload: out.payload }, open.nextNonce, open.algorithm, open.cipher)
    return { reply: bytes, status: out.status, close: out.close === true }
  }

  return async function secured (peer: Peer, device: M3daDevice, id: string, outer: Envelope): Promise<Answer> {
    const systemUid = device.session.systemUid
    const o = await opened(peer, device, id, outer)
    switch (o.kind) {
      case 'challenge':
        storeNonce(peer, systemUid, o.nonce)
        peer.challenged = true
        return { reply: o.reply, status: o.status, close: false }
      case 'peer-error':
        deps.log.info({ systemUid, status: o.status }, 'M3DA device reported a failure on its side')
        return { reply: null, status: o.status, close: false }
      case 'peer-challenge': {
        const last = lastReplies.get(systemUid)
        if (last === undefined || last.deviceId !== id) return { reply: null, status: 401, close: true }
        return { reply: sealed(peer, device, id, last.inner, o.nonce, o.algorithm ?? last.algorithm, last.cipher), status: 200, close: false }
      }
      case 'refused':
        deps.pipeline.refuse(o.reason)
        return o.reason === 'auth.failed.after.challenge' ? { reply: null, status: 401, close: true } : plain(400)
      case 'open':
        return await authenticated(peer, device, id, o)
    }
  }
}
