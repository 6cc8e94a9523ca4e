// Epochs and sequence numbers of one connection (RFC 6347 §4.1): what is written is sealed with the keys of its
// epoch, and every write takes the next 48-bit sequence number of that epoch (retransmitted records get new ones,
// §4.2.4). What is read must be of the current read epoch, pass the replay window of §4.1.2.6 and authenticate;
// otherwise it is dropped with a reason. Keys are held in private fields and zeroed by wipe().
import { DTLS_1_2, MAX_SEQUENCE } from './constants.js'
import type { TrafficKeys } from './prf.js'
import { openFragment, sealFragment } from './record-cipher.js'
import { encodeRecord, type DtlsRecord } from './record.js'
import type { RefusalReason } from './refusals.js'
import { ReplayWindow } from './replay-window.js'

interface WriteState { seq: number, keys: TrafficKeys | undefined }

/** `stale.epoch`: a record of the epoch before the current one, a retransmission the peer sent before it saw ours. */
export type Opened = { ok: true, plaintext: Buffer } | { ok: false, reason: RefusalReason | 'stale.epoch' }

export class RecordLayer {
  #write: WriteState[]
  #read: { epoch: number, keys: TrafficKeys | undefined, window: ReplayWindow }
  #pending: { read: TrafficKeys, write: TrafficKeys } | undefined

  /** `firstSeq`: the first sequence number written in epoch 0 (the server continues after its HelloVerifyRequests). */
  constructor (firstSeq = 0) {
    this.#write = [{ seq: firstSeq, keys: undefined }]
    this.#read = { epoch: 0, keys: undefined, window: new ReplayWindow() }
  }

  get readEpoch (): number { return this.#read.epoch }
  get writeEpoch (): number { return this.#write.length - 1 }

  /** The keys of epoch 1, taken into use by activateRead (peer's ChangeCipherSpec) and activateWrite (ours). */
  setPending (read: TrafficKeys, write: TrafficKeys): void {
    this.#pending = { read: { ...read }, write: { ...write } }
  }

  activateRead (): boolean {
    if (this.#pending === undefined || this.#read.epoch !== 0) return false
    this.#read = { epoch: 1, keys: this.#pending.read, window: new ReplayWindow() }
    return true
  }

  activateWrite (): boolean {
    if (this.#pending === undefined || this.#write.length !== 1) return false
    this.#write.push({ seq: 0, keys: this.#pending.write })
    return true
  }

  /** A whole record of `type` in `epoch` (default: the current write epoch), sealed when the epoch has keys. */
  seal (type: number, payload: Buffer, epoch = this.writeEpoch): Buffer {
    const state = this.#write[epoch]
    if (state === undefined) throw new Error(`dtls: no write state for epoch ${epoch}`)
    // RFC 6347 §4.1: a sequence number is never reused; a connection this old is closed by its owner.
    if (state.seq > MAX_SEQUENCE) throw new Error('dtls: sequence numbers exhausted')
    const header = { type, version: DTLS_1_2, epoch, seq: state.seq++ }
    const fragment = state.keys === undefined ? payload : sealFragment(state.keys, header, payload)
    return encodeRecord({ ...header, fragment })
  }

  /** Checks epoch, replay and authentication, then marks the sequence number as seen. */
  open (record: DtlsRecord): Opened {
    const read = this.#read
    if (record.epoch !== read.epoch) return { ok: false, reason: record.epoch === read.epoch - 1 ? 'stale.epoch' : 'unknown.epoch' }
    if (!read.window.accepts(record.seq)) return { ok: false, reason: 'replay' }
    let plaintext = record.fragment
    if (read.keys !== undefined) {
      const opened = openFragment(read.keys, record, record.fragment)
      if (opened === undefined) return { ok: false, reason: 'bad.auth' }
      plaintext = opened
    }
    read.window.mark(record.seq)
    return { ok: true, plaintext }
  }

  /** Marks a sequence number of epoch 0 read elsewhere (the ClientHello the stateless cookie check accepted). */
  markRead (seq: number): void {
    if (this.#read.epoch === 0) this.#read.window.mark(seq)
  }

  /** Zeroes every key; nothing can be sealed or opened with keys afterwards. */
  wipe (): void {
    for (const k of [this.#read.keys, this.#pending?.read, this.#pending?.write, ...this.#write.map((w) => w.keys)]) {
      k?.key.fill(0)
      k?.salt.fill(0)
    }
  }

  toString (): string { return `RecordLayer(read epoch ${this.readEpoch}, write epoch ${this.writeEpoch})` }
}
