// The client's side of a DTLS 1.2 PSK handshake, fed datagrams, answering datagrams (no socket, no clock: client.ts
// owns those): ClientHello, the cookie of a HelloVerifyRequest (RFC 6347 §4.2.1), ServerHello [ServerKeyExchange]
// ServerHelloDone, then ClientKeyExchange ChangeCipherSpec Finished, and the server's ChangeCipherSpec and Finished
// verified (RFC 5246 §7.4.9). For the simulator and the tests; it offers only TLS_PSK_WITH_AES_128_CCM_8.
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { AlertDescription } from './alert.js'
import {
  DTLS_1_2, EMPTY_RENEGOTIATION_INFO_SCSV, ExtensionType, HandshakeType, MAX_PSK, MAX_PSK_IDENTITY,
  NULL_COMPRESSION, PSK_AES_128_CCM_8
} from './constants.js'
import { Connection, newOutput, type ConnectionOptions, type FlightItem, type Output } from './connection.js'
import { encodeClientHello, parseHelloVerifyRequest, parseServerHello, type ClientHello } from './hello.js'
import { extendedMasterSecret, keyBlock, masterSecret, pskPremaster, sha256, verifyData } from './prf.js'
import { encodePskIdentity, parseFinished, parsePskIdentity } from './psk-messages.js'
import type { HandshakeMessage } from './reassembler.js'

export interface ClientConnectionOptions extends ConnectionOptions {
  identity: string
  psk: Buffer
  /** Offer extended master secret (RFC 7627; default true). */
  extendedMasterSecret?: boolean
}

type Step = 'wait-hello' | 'wait-hello-done' | 'wait-change-cipher-spec' | 'wait-finished' | 'done'

/** HelloVerifyRequests answered before the handshake is given up (a server that never accepts its own cookie). */
const MAX_HELLO_VERIFY = 4

export class ClientConnection extends Connection {
  readonly identity: string
  readonly #psk: Buffer
  readonly #hello: ClientHello
  #step: Step = 'wait-hello'
  #helloVerifies = 0
  #serverRandom: Buffer = Buffer.alloc(0)
  #extendedMasterSecret = false
  #master: Buffer | undefined
  /** The identity hint of a ServerKeyExchange, if the server sent one. */
  hint: Buffer | undefined

  constructor (options: ClientConnectionOptions) {
    super(options, 0, 0, 0)
    if (Buffer.byteLength(options.identity) > MAX_PSK_IDENTITY) throw new RangeError(`dtls: a PSK identity is at most ${MAX_PSK_IDENTITY} bytes`)
    if (options.psk.length === 0 || options.psk.length > MAX_PSK) throw new RangeError(`dtls: a PSK is 1 to ${MAX_PSK} bytes`)
    this.identity = options.identity
    this.#psk = Buffer.from(options.psk) // our own copy, zeroed on close
    const extensions = new Map<number, Buffer>()
    if (options.extendedMasterSecret !== false) extensions.set(ExtensionType.extendedMasterSecret, Buffer.alloc(0))
    this.#hello = {
      version: DTLS_1_2,
      random: randomBytes(32),
      sessionId: Buffer.alloc(0),
      cookie: Buffer.alloc(0),
      cipherSuites: [PSK_AES_128_CCM_8, EMPTY_RENEGOTIATION_INFO_SCSV],
      compressions: [NULL_COMPRESSION],
      extensions
    }
  }

  /** The first ClientHello, without a cookie. */
  start (): Output {
    const out = newOutput()
    this.sendFlight([this.message(HandshakeType.clientHello, encodeClientHello(this.#hello))], out, true)
    return out
  }

  protected onMessage (m: HandshakeMessage, out: Output): void {
    const step = this.#step
    if (step === 'wait-hello' && m.msgType === HandshakeType.helloVerifyRequest) this.#onHelloVerify(m, out)
    else if (step === 'wait-hello' && m.msgType === HandshakeType.serverHello) this.#onServerHello(m, out)
    else if (step === 'wait-hello-done' && m.msgType === HandshakeType.serverKeyExchange && this.hint === undefined) this.#onKeyExchange(m, out)
    else if (step === 'wait-hello-done' && m.msgType === HandshakeType.serverHelloDone) this.#onHelloDone(m, out)
    else if (step === 'wait-finished' && m.msgType === HandshakeType.finished && m.epoch === 1) this.#onFinished(m, out)
    // RFC 5246 §7.4.1.1: a HelloRequest may be ignored; we never renegotiate.
    else if (!(step === 'done' && m.msgType === HandshakeType.helloRequest)) this.unexpected(out)
  }

  protected onChangeCipherSpec (out: Output): void {
    if (this.#step === 'wait-change-cipher-spec' && this.records.activateRead()) this.#step = 'wait-finished'
    else out.refused.push('bad.handshake')
  }

  /** The server's Finished under another key never authenticates: a failed Finished (see ServerConnection). */
  protected onBadAuth (out: Output): boolean {
    if (this.#step !== 'wait-finished') return false
    this.fail(out, AlertDescription.decryptError, 'bad.finished')
    return true
  }

  protected wipeSecrets (): void {
    this.#master?.fill(0)
    this.#master = undefined
    this.#psk.fill(0) // zeroed as soon as the premaster is made; here for a handshake that ends before that
  }

  #onHelloVerify (m: HandshakeMessage, out: Output): void {
    const parsed = parseHelloVerifyRequest(m.body)
    if (!parsed.ok) return this.fail(out, AlertDescription.decodeError, 'bad.handshake')
    if (++this.#helloVerifies > MAX_HELLO_VERIFY) return this.fail(out, AlertDescription.handshakeFailure, 'bad.cookie')
    // RFC 6347 §4.2.1: the same hello with the cookie; the handshake hash starts with this second ClientHello.
    this.#hello.cookie = parsed.value.cookie
    this.transcript = []
    this.sendFlight([this.message(HandshakeType.clientHello, encodeClientHello(this.#hello))], out, true)
  }

  #onServerHello (m: HandshakeMessage, out: Output): void {
    const parsed = parseServerHello(m.body)
    if (!parsed.ok) return this.fail(out, AlertDescription.decodeError, 'bad.handshake')
    const sh = parsed.value
    if (sh.version !== DTLS_1_2) return this.fail(out, AlertDescription.protocolVersion, 'handshake.failure')
    if (sh.cipherSuite !== PSK_AES_128_CCM_8 || sh.compression !== NULL_COMPRESSION) {
      return this.fail(out, AlertDescription.illegalParameter, 'handshake.failure')
    }
    // RFC 5246 §7.4.1.4: a server may only answer extensions that were offered.
    for (const type of sh.extensions.keys()) {
      if (type !== ExtensionType.renegotiationInfo && !this.#hello.extensions.has(type)) {
        return this.fail(out, AlertDescription.unsupportedExtension, 'handshake.failure')
      }
    }
    this.#extendedMasterSecret = sh.extensions.has(ExtensionType.extendedMasterSecret)
    this.#serverRandom = sh.random
    this.hash(m)
    this.#step = 'wait-hello-done'
  }

  #onKeyExchange (m: HandshakeMessage, out: Output): void {
    const parsed = parsePskIdentity(m.body)
    if (!parsed.ok) return this.fail(out, AlertDescription.decodeError, 'bad.handshake')
    this.hint = parsed.value
    this.hash(m)
  }

  #onHelloDone (m: HandshakeMessage, out: Output): void {
    if (m.body.length !== 0) return this.fail(out, AlertDescription.decodeError, 'bad.handshake')
    this.hash(m)
    const keyExchange = this.message(HandshakeType.clientKeyExchange, encodePskIdentity(this.identity))
    const premaster = pskPremaster(this.#psk)
    this.#psk.fill(0) // not needed again: retransmissions resend the sealed flight
    const clientRandom = this.#hello.random
    this.#master = this.#extendedMasterSecret
      ? extendedMasterSecret(premaster, sha256(this.transcript))
      : masterSecret(premaster, clientRandom, this.#serverRandom)
    premaster.fill(0)
    const keys = keyBlock(this.#master, clientRandom, this.#serverRandom)
    this.records.setPending(keys.server, keys.client)
    this.records.activateWrite()
    const changeCipherSpec: FlightItem = { kind: 'ccs', epoch: 0 }
    const finished = this.message(HandshakeType.finished, verifyData(this.#master, 'client finished', sha256(this.transcript)), 1)
    this.sendFlight([keyExchange, changeCipherSpec, finished], out, true)
    this.#step = 'wait-change-cipher-spec'
  }

  #onFinished (m: HandshakeMessage, out: Output): void {
    const master = this.#master
    const parsed = parseFinished(m.body)
    if (master === undefined || !parsed.ok) return this.fail(out, AlertDescription.decodeError, 'bad.handshake')
    const expected = verifyData(master, 'server finished', sha256(this.transcript))
    if (!timingSafeEqual(expected, parsed.value)) return this.fail(out, AlertDescription.decryptError, 'bad.finished')
    this.wipeSecrets()
    this.transcript = []
    this.settle(true)
    this.#step = 'done'
    this.state = 'established'
    out.established = true
  }
}
