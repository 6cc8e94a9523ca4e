// Handshake reassembly in message_seq order (RFC 6347 §4.2.2, §4.2.3): fragments of the next expected message and
// of a few after it are kept, bounded in bytes; a fragment of an earlier message is a retransmission of the peer's
// previous flight, which the connection answers by retransmitting its own (§4.2.4).
import { MAX_MESSAGES_AHEAD, MAX_REASSEMBLY_BYTES } from './constants.js'
import type { HandshakeFragment } from './handshake.js'

export interface HandshakeMessage {
  msgType: number
  messageSeq: number
  /** The epoch of the records that carried it (all its fragments share one). */
  epoch: number
  body: Buffer
}

/** What a fragment was: kept (or already had), a retransmission, or inconsistent with what is held. */
export type PushResult = 'kept' | 'old' | 'ignored' | 'bad'

interface Partial {
  msgType: number
  epoch: number
  body: Buffer
  /** filled[i] = 1 once byte i arrived; `missing` counts the zeros. */
  filled: Uint8Array
  missing: number
}

export class Reassembler {
  /** The message_seq of the next message handed out. */
  next: number
  #held = new Map<number, Partial>()
  #heldBytes = 0

  constructor (next = 0) {
    this.next = next
  }

  push (f: HandshakeFragment, epoch: number): PushResult {
    if (f.messageSeq < this.next) return 'old'
    if (f.messageSeq >= this.next + MAX_MESSAGES_AHEAD) return 'ignored'
    let p = this.#held.get(f.messageSeq)
    if (p === undefined) {
      if (this.#heldBytes + f.length > MAX_REASSEMBLY_BYTES) return 'ignored'
      p = { msgType: f.msgType, epoch, body: Buffer.alloc(f.length), filled: new Uint8Array(f.length), missing: f.length }
      this.#held.set(f.messageSeq, p)
      this.#heldBytes += f.length
    } else if (p.msgType !== f.msgType || p.body.length !== f.length || p.epoch !== epoch) {
      return 'bad'
    }
    fill(p, f)
    return 'kept'
  }

  /** The next message once all its bytes are in, else undefined. */
  pop (): HandshakeMessage | undefined {
    const p = this.#held.get(this.next)
    if (p === undefined || p.missing > 0) return undefined
    this.#held.delete(this.next)
    this.#heldBytes -= p.body.length
    const message = { msgType: p.msgType, messageSeq: this.next, epoch: p.epoch, body: p.body }
    this.next += 1
    return message
  }

  /** Drops whatever is held (a new flight starts over, e.g. after a HelloVerifyRequest). */
  clear (): void {
    this.#held.clear()
    this.#heldBytes = 0
  }
}

function fill (p: Partial, f: HandshakeFragment): void {
  if (p.missing === 0) return
  f.body.copy(p.body, f.fragmentOffset)
  for (let i = f.fragmentOffset; i < f.fragmentOffset + f.body.length; i++) {
    if (p.filled[i] === 0) {
      p.filled[i] = 1
      p.missing -= 1
    }
  }
}
