// The anti-replay window of RFC 6347 §4.1.2.6: 64 sequence numbers below the highest one authenticated. A number
// is checked before the record is authenticated and marked only after, so a forged record never moves the window.

const WINDOW = 64n

export class ReplayWindow {
  /** The highest sequence number marked, -1 before the first. */
  #top = -1
  /** Bit i set: top - i was marked. */
  #bits = 0n

  /** Whether a record with this sequence number is new: above the top, or inside the window and not yet marked. */
  accepts (seq: number): boolean {
    if (seq > this.#top) return true
    const behind = BigInt(this.#top - seq)
    if (behind >= WINDOW) return false
    return (this.#bits & (1n << behind)) === 0n
  }

  /** Records an authenticated sequence number. */
  mark (seq: number): void {
    if (seq > this.#top) {
      const shift = BigInt(seq - this.#top)
      this.#bits = shift >= WINDOW ? 1n : BigInt.asUintN(64, (this.#bits << shift) | 1n)
      this.#top = seq
      return
    }
    const behind = BigInt(this.#top - seq)
    if (behind < WINDOW) this.#bits |= 1n << behind
  }
}
