// What both peers of a DTLS connection do alike, fed datagrams and answering datagrams, with no socket and no
// clock: records through the RecordLayer, handshake fragments through the Reassembler, alerts, application data,
// and the flights of RFC 6347 §4.2.4 (the last flight is kept, retransmitted when the timer the owner runs fires,
// and when the peer retransmits its previous flight). The handshake itself is the subclass's (server-connection.ts,
// client-connection.ts). Secrets stay in private fields; toString names no key.
import { AlertDescription, AlertLevel, alertName, encodeAlert, parseAlert } from './alert.js'
import { ContentType, MAX_PLAINTEXT } from './constants.js'
import { encodeFlight, type FlightItem } from './flight.js'
import { encodeHandshake, parseHandshakeFragments } from './handshake.js'
import { Reassembler, type HandshakeMessage } from './reassembler.js'
import { RecordLayer } from './record-layer.js'
import { parseRecords, type DtlsRecord } from './record.js'
import type { RefusalReason } from './refusals.js'

export type { FlightItem } from './flight.js'

export interface ConnectionOptions {
  /** The largest datagram written (default 1200: under IPv6's minimum MTU with room for headers, RFC 7925 §11). */
  mtu?: number
  /** First retransmission timeout, doubled at each one up to 60 s (RFC 6347 §4.2.4.1; default 1000 ms). */
  retransmitMs?: number
  /** Retransmissions of one flight before the handshake is given up (default 5). */
  maxRetransmits?: number
}

/** What one call produced: datagrams to send to the peer, application data received, and what happened. */
export interface Output {
  datagrams: Buffer[]
  data: Buffer[]
  refused: RefusalReason[]
  /** Records that authenticated (and were not replays) in this call: the peer is alive. */
  accepted: number
  established: boolean
  /** Set when the connection closed in this call: `peer.close_notify`, `local.close`, `alert.<name>`, `refused.<reason>`, `handshake.timeout`. */
  closed: string | undefined
}

/** Datagrams waiting for one connection (behind an unfinished pskFor) before more are dropped. */
const MAX_QUEUED = 16

export type ConnectionState = 'handshake' | 'established' | 'closed'

export function newOutput (): Output {
  return { datagrams: [], data: [], refused: [], accepted: 0, established: false, closed: undefined }
}

export abstract class Connection {
  protected readonly records: RecordLayer
  protected readonly reassembler: Reassembler
  /** The handshake messages hashed for Finished (RFC 6347 §4.2.6: each as one whole fragment). */
  protected transcript: Buffer[] = []
  /** message_seq of our next handshake message. */
  protected sendSeq: number
  state: ConnectionState = 'handshake'
  readonly #mtu: number
  readonly #retransmitMs: number
  readonly #maxRetransmits: number
  #flight: FlightItem[] = []
  #retransmits = 0
  #timer: { id: number, ms: number } | undefined
  #timerIds = 0
  #queue: Promise<unknown> = Promise.resolve()
  #queued = 0

  constructor (options: ConnectionOptions, firstRecordSeq: number, readSeq: number, sendSeq: number) {
    this.records = new RecordLayer(firstRecordSeq)
    this.reassembler = new Reassembler(readSeq)
    this.sendSeq = sendSeq
    this.#mtu = Math.max(64, options.mtu ?? 1200)
    this.#retransmitMs = options.retransmitMs ?? 1000
    this.#maxRetransmits = options.maxRetransmits ?? 5
  }

  /** The retransmission timer the owner should run: a new id means (re)arm for `ms`; undefined means none. */
  get timer (): { id: number, ms: number } | undefined { return this.#timer }

  /**
   * Feeds one datagram. Calls are handled one after another; the promise never rejects. While a slow pskFor holds
   * the queue, datagrams past MAX_QUEUED are dropped unread (the peer retransmits what matters).
   */
  receive (datagram: Uint8Array): Promise<Output> {
    if (this.#queued >= MAX_QUEUED) return Promise.resolve(newOutput())
    this.#queued += 1
    const run = this.#queue.then(async () => await this.#guarded(datagram)).finally(() => { this.#queued -= 1 })
    this.#queue = run
    return run
  }

  /** The retransmission timer fired: the last flight again, or the end of the handshake when retransmissions ran out. */
  timeout (): Output {
    const out = newOutput()
    if (this.#timer === undefined || this.state === 'closed') return out
    if (this.#retransmits >= this.#maxRetransmits) {
      out.refused.push('handshake.timeout')
      this.finish(out, 'handshake.timeout')
      return out
    }
    this.#retransmits += 1
    out.datagrams.push(...encodeFlight(this.records, this.#flight, this.#mtu))
    this.#timer = { id: ++this.#timerIds, ms: Math.min(60_000, this.#timer.ms * 2) }
    return out
  }

  /** One datagram carrying `data` as application data (RFC 5246 §6.2.1: at most 2^14 bytes). */
  send (data: Uint8Array): Buffer {
    if (this.state !== 'established') throw new Error('dtls: the connection is not established')
    if (data.length > MAX_PLAINTEXT) throw new RangeError(`dtls: application data over ${MAX_PLAINTEXT} bytes`)
    return this.records.seal(ContentType.applicationData, Buffer.from(data))
  }

  /** Closes with a close_notify alert (RFC 5246 §7.2.1); the datagrams to send. */
  close (): Buffer[] {
    if (this.state === 'closed') return []
    const out = newOutput()
    out.datagrams.push(this.records.seal(ContentType.alert, encodeAlert(AlertLevel.warning, AlertDescription.closeNotify)))
    this.finish(out, 'local.close')
    return out.datagrams
  }

  /** Ends the connection without a word to the peer (the owner's handshake deadline, a replacement, a closing server). */
  abort (reason: string): void {
    if (this.state !== 'closed') this.finish(newOutput(), reason)
  }

  /** A getter, not a read of `state`, so that TypeScript does not keep a narrowing across an await. */
  get closed (): boolean { return this.state === 'closed' }

  toString (): string { return `${this.constructor.name}(${this.state})` }

  protected abstract onMessage (message: HandshakeMessage, out: Output): void | Promise<void>
  protected abstract onChangeCipherSpec (out: Output): void
  /** A record failed authentication: true when the subclass ended the handshake for it (the peer's Finished). */
  protected onBadAuth (_out: Output): boolean { return false }

  /** Zeroes what the subclass holds (master secret); called once when the connection closes. */
  protected wipeSecrets (): void {}

  /** A handshake message of ours: numbered, added to the transcript, and ready for a flight. */
  protected message (msgType: number, body: Buffer, epoch = 0): FlightItem {
    const messageSeq = this.sendSeq++
    this.transcript.push(encodeHandshake(msgType, messageSeq, body))
    return { kind: 'handshake', epoch, msgType, messageSeq, body }
  }

  /** Adds a received message to the transcript. */
  protected hash (m: HandshakeMessage): void {
    this.transcript.push(encodeHandshake(m.msgType, m.messageSeq, m.body))
  }

  /** Sends a new flight; `awaitsAnswer` starts the retransmission timer (the last flight of a side has none). */
  protected sendFlight (items: FlightItem[], out: Output, awaitsAnswer: boolean): void {
    this.#flight = items
    this.#retransmits = 0
    out.datagrams.push(...encodeFlight(this.records, this.#flight, this.#mtu))
    this.#timer = awaitsAnswer ? { id: ++this.#timerIds, ms: this.#retransmitMs } : undefined
  }

  /** The handshake is over for this side: no timer, and the last flight is no longer answered again. */
  protected settle (forgetFlight: boolean): void {
    this.#timer = undefined
    if (forgetFlight) this.#flight = []
  }

  /** A fatal alert (sealed when our write epoch is 1), then closed. */
  protected fail (out: Output, description: number, reason: RefusalReason): void {
    out.refused.push(reason)
    out.datagrams.push(this.records.seal(ContentType.alert, encodeAlert(AlertLevel.fatal, description)))
    this.finish(out, `refused.${reason}`)
  }

  protected unexpected (out: Output): void {
    this.fail(out, AlertDescription.unexpectedMessage, 'bad.handshake')
  }

  protected finish (out: Output, reason: string): void {
    this.state = 'closed'
    out.closed = reason
    this.#timer = undefined
    this.#flight = []
    this.transcript = []
    this.records.wipe()
    this.wipeSecrets()
  }

  /** A fault of ours (not of the input, which is refused as data) ends this connection only, never the caller. */
  async #guarded (datagram: Uint8Array): Promise<Output> {
    try {
      return await this.#receive(datagram)
    } catch {
      const out = newOutput()
      out.refused.push('internal.error')
      this.finish(out, 'internal.error')
      return out
    }
  }

  async #receive (datagram: Uint8Array): Promise<Output> {
    const out = newOutput()
    if (this.state === 'closed') return out
    const { records, malformed } = parseRecords(datagram)
    if (malformed) out.refused.push('bad.record')
    let peerRetransmitted = false
    for (const record of records) {
      if (this.closed) break
      const opened = this.records.open(record)
      if (!opened.ok) {
        if (opened.reason === 'bad.auth' && this.onBadAuth(out)) break
        if (opened.reason !== 'stale.epoch') out.refused.push(opened.reason)
        continue
      }
      out.accepted += 1
      if (await this.#dispatch(record, opened.plaintext, out)) peerRetransmitted = true
    }
    // RFC 6347 §4.2.4: a retransmitted flight from the peer means ours was lost; at most once per datagram.
    if (peerRetransmitted && !this.closed && this.#flight.length > 0) out.datagrams.push(...encodeFlight(this.records, this.#flight, this.#mtu))
    return out
  }

  /** Handles one authenticated record; true when it held a handshake message the peer sent before (a retransmission). */
  async #dispatch (record: DtlsRecord, plaintext: Buffer, out: Output): Promise<boolean> {
    switch (record.type) {
      case ContentType.handshake:
        return await this.#onHandshake(plaintext, record.epoch, out)
      case ContentType.changeCipherSpec:
        // RFC 5246 §7.1: the message is one byte, 1.
        if (plaintext.length === 1 && plaintext[0] === 1) this.onChangeCipherSpec(out)
        else out.refused.push('bad.record')
        return false
      case ContentType.alert:
        this.#onAlert(plaintext, out)
        return false
      case ContentType.applicationData:
        // Application data only under keys (epoch 0 is unauthenticated) and after our Finished.
        if (this.state === 'established' && record.epoch > 0) out.data.push(plaintext)
        else out.refused.push('bad.record')
        return false
      default:
        out.refused.push('bad.record')
        return false
    }
  }

  async #onHandshake (plaintext: Buffer, epoch: number, out: Output): Promise<boolean> {
    const parsed = parseHandshakeFragments(plaintext)
    if (!parsed.ok) {
      out.refused.push('bad.handshake')
      return false
    }
    let old = false
    for (const fragment of parsed.fragments) {
      const pushed = this.reassembler.push(fragment, epoch)
      if (pushed === 'old') old = true
      else if (pushed === 'bad') out.refused.push('bad.handshake')
    }
    for (let m = this.reassembler.pop(); m !== undefined; m = this.reassembler.pop()) {
      await this.onMessage(m, out)
      if (this.state === 'closed') break
    }
    return old
  }

  #onAlert (plaintext: Buffer, out: Output): void {
    const alert = parseAlert(plaintext)
    if (alert === undefined) {
      out.refused.push('bad.record')
      return
    }
    if (alert.description === AlertDescription.closeNotify) {
      // RFC 5246 §7.2.1: answered with a close_notify of our own.
      out.datagrams.push(this.records.seal(ContentType.alert, encodeAlert(AlertLevel.warning, AlertDescription.closeNotify)))
      this.finish(out, 'peer.close_notify')
    } else if (alert.level === AlertLevel.fatal) {
      if (this.state === 'handshake') out.refused.push('alert.received')
      this.finish(out, `alert.${alertName(alert.description)}`)
    }
    // Warnings other than close_notify change nothing (RFC 5246 §7.2.2).
  }
}
