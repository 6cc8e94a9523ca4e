// The server's side of one DTLS 1.2 PSK handshake and the connection after it, fed datagrams, answering datagrams
// (no socket, no clock: endpoint.ts owns those). It starts from a ClientHello whose cookie the stateless check of
// hello-gate.ts accepted, and follows RFC 6347 §4.2.4's flights: ServerHello [ServerKeyExchange] ServerHelloDone;
// then ClientKeyExchange → PSK (RFC 4279 §2), ChangeCipherSpec, Finished verified (RFC 5246 §7.4.9); then our
// ChangeCipherSpec and Finished. The PSK is asked of `pskFor` and kept nowhere; the master secret is zeroed once the
// Finished messages are done.
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { AlertDescription, AlertLevel, encodeAlert } from './alert.js'
import { ContentType, DTLS_1_2, HandshakeType, MAX_PSK, NULL_COMPRESSION, PSK_AES_128_CCM_8 } from './constants.js'
import { Connection, newOutput, type ConnectionOptions, type FlightItem, type Output } from './connection.js'
import { encodeHandshake } from './handshake.js'
import { encodeServerHello, type ClientHello } from './hello.js'
import { negotiate } from './negotiate.js'
import { extendedMasterSecret, keyBlock, masterSecret, pskPremaster, sha256, verifyData } from './prf.js'
import { encodePskIdentity, identityText, parseFinished, parsePskIdentity } from './psk-messages.js'
import type { HandshakeMessage } from './reassembler.js'

/** Resolves the PSK of an identity, or undefined when the identity is unknown. Must not log the key. */
export type PskLookup = (identity: string) => Promise<Buffer | undefined>

export interface ServerConnectionOptions extends ConnectionOptions {
  pskFor: PskLookup
  /** Sent in a ServerKeyExchange when set (RFC 4279 §2); otherwise no ServerKeyExchange (RFC 7925 §4.2). */
  identityHint?: string
  /**
   * How an unknown identity is refused (RFC 4279 §2): `decrypt_error` (default) goes on as if the key were wrong and
   * fails at Finished, so a prober cannot tell unknown identities from wrong keys; `unknown_psk_identity` says so at once.
   */
  unknownIdentityAlert?: 'decrypt_error' | 'unknown_psk_identity'
}

/** A ClientHello with a valid cookie, as hello-gate.ts hands it over. */
export interface AcceptedHello {
  hello: ClientHello
  /** The ClientHello's body as received (hashed with its header into the transcript). */
  body: Buffer
  messageSeq: number
  recordSeq: number
}

type Step = 'wait-key-exchange' | 'wait-change-cipher-spec' | 'wait-finished' | 'done'

export class ServerConnection extends Connection {
  readonly clientRandom: Buffer
  readonly #options: ServerConnectionOptions
  readonly #accepted: AcceptedHello
  readonly #serverRandom = randomBytes(32)
  #step: Step = 'wait-key-exchange'
  #extendedMasterSecret = false
  #master: Buffer | undefined
  #identity: string | undefined
  #identityUnknown = false

  constructor (options: ServerConnectionOptions, accepted: AcceptedHello) {
    // The ServerHello takes the second ClientHello's message_seq and our records continue from its record sequence
    // number, past those of the HelloVerifyRequests (which reused the first ClientHello's, RFC 6347 §4.2.1).
    super(options, accepted.recordSeq, accepted.messageSeq + 1, accepted.messageSeq)
    this.#options = options
    this.#accepted = accepted
    this.clientRandom = accepted.hello.random
    this.records.markRead(accepted.recordSeq)
  }

  /** The PSK identity once the handshake is established. */
  get identity (): string | undefined { return this.state === 'established' ? this.#identity : undefined }

  /** Answers the accepted ClientHello: the server's flight, or a fatal alert when nothing can be agreed. */
  start (): Output {
    const out = newOutput()
    const { hello, body, messageSeq } = this.#accepted
    const chosen = negotiate(hello)
    if (!chosen.ok) {
      this.fail(out, chosen.alert, 'handshake.failure')
      return out
    }
    this.#extendedMasterSecret = chosen.extendedMasterSecret
    this.transcript.push(encodeHandshake(HandshakeType.clientHello, messageSeq, body))
    const flight: FlightItem[] = [this.message(HandshakeType.serverHello, encodeServerHello({
      version: DTLS_1_2,
      random: this.#serverRandom,
      sessionId: Buffer.alloc(0), // no session cache, no resumption (RFC 5246 §7.4.1.3)
      cipherSuite: PSK_AES_128_CCM_8,
      compression: NULL_COMPRESSION,
      extensions: chosen.extensions
    }))]
    if (this.#options.identityHint !== undefined) {
      flight.push(this.message(HandshakeType.serverKeyExchange, encodePskIdentity(this.#options.identityHint)))
    }
    flight.push(this.message(HandshakeType.serverHelloDone, Buffer.alloc(0)))
    this.sendFlight(flight, out, true)
    return out
  }

  protected async onMessage (m: HandshakeMessage, out: Output): Promise<void> {
    if (this.#step === 'wait-key-exchange' && m.msgType === HandshakeType.clientKeyExchange && m.epoch === 0) {
      await this.#onKeyExchange(m, out)
    } else if (this.#step === 'wait-finished' && m.msgType === HandshakeType.finished && m.epoch === 1) {
      this.#onFinished(m, out)
    } else if (this.#step === 'done' && m.msgType === HandshakeType.clientHello) {
      // RFC 5746 §4.4 / RFC 7925 §17: no renegotiation; a warning, and the connection goes on.
      out.datagrams.push(this.records.seal(ContentType.alert, encodeAlert(AlertLevel.warning, AlertDescription.noRenegotiation)))
    } else {
      this.unexpected(out)
    }
  }

  protected onChangeCipherSpec (out: Output): void {
    if (this.#step === 'wait-change-cipher-spec' && this.records.activateRead()) this.#step = 'wait-finished'
    else out.refused.push('bad.handshake') // before the key exchange (reordered or forged): dropped
  }

  /**
   * Right after the client's ChangeCipherSpec, the first record of epoch 1 is its Finished. With an AEAD suite a peer
   * holding another key sends a Finished that never authenticates, so it cannot reach the verify_data check: it is
   * refused as a Finished that failed (decrypt_error, RFC 4279 §2 for a wrong key) instead of being dropped while
   * the handshake waits out its deadline. Once established, such records are dropped silently (RFC 6347 §4.1.2.7).
   */
  protected onBadAuth (out: Output): boolean {
    if (this.#step !== 'wait-finished') return false
    this.fail(out, AlertDescription.decryptError, this.#identityUnknown ? 'unknown.identity' : 'bad.finished')
    return true
  }

  protected wipeSecrets (): void {
    this.#master?.fill(0)
    this.#master = undefined
  }

  async #onKeyExchange (m: HandshakeMessage, out: Output): Promise<void> {
    const parsed = parsePskIdentity(m.body)
    if (!parsed.ok) return this.fail(out, AlertDescription.decodeError, 'bad.handshake')
    const identity = identityText(parsed.value)
    let psk: Buffer | undefined
    if (identity !== undefined && identity !== '') {
      try {
        psk = await this.#options.pskFor(identity)
      } catch {
        if (this.state !== 'closed') this.fail(out, AlertDescription.internalError, 'psk.lookup.failed')
        return
      }
    }
    if (this.state === 'closed') return // ended while the lookup ran (handshake deadline, server closed)
    if (psk === undefined || psk.length === 0 || psk.length > MAX_PSK) {
      if (this.#options.unknownIdentityAlert === 'unknown_psk_identity') {
        return this.fail(out, AlertDescription.unknownPskIdentity, 'unknown.identity')
      }
      this.#identityUnknown = true
      psk = randomBytes(32) // RFC 4279 §2: proceed as if the key were wrong; Finished fails with decrypt_error
    }
    this.#identity = identity
    this.hash(m)
    const premaster = pskPremaster(psk)
    this.#master = this.#extendedMasterSecret
      ? extendedMasterSecret(premaster, sha256(this.transcript))
      : masterSecret(premaster, this.clientRandom, this.#serverRandom)
    premaster.fill(0)
    const keys = keyBlock(this.#master, this.clientRandom, this.#serverRandom)
    this.records.setPending(keys.client, keys.server)
    this.#step = 'wait-change-cipher-spec'
  }

  #onFinished (m: HandshakeMessage, out: Output): void {
    const master = this.#master
    const parsed = parseFinished(m.body)
    if (master === undefined || !parsed.ok) return this.fail(out, AlertDescription.decodeError, 'bad.handshake')
    const expected = verifyData(master, 'client finished', sha256(this.transcript))
    if (!timingSafeEqual(expected, parsed.value) || this.#identityUnknown) {
      // RFC 5246 §7.4.9: a Finished that does not verify is a decrypt_error; the alert goes out in our epoch 0.
      return this.fail(out, AlertDescription.decryptError, this.#identityUnknown ? 'unknown.identity' : 'bad.finished')
    }
    this.hash(m)
    const ours = verifyData(master, 'server finished', sha256(this.transcript))
    this.wipeSecrets()
    this.records.activateWrite()
    const changeCipherSpec: FlightItem = { kind: 'ccs', epoch: 0 }
    this.sendFlight([changeCipherSpec, this.message(HandshakeType.finished, ours, 1)], out, false)
    this.settle(false) // our last flight stays, answered again when the client retransmits its own (§4.2.4)
    this.transcript = []
    this.#step = 'done'
    this.state = 'established'
    out.established = true
  }
}
