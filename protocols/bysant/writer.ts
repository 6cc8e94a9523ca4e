// A growable big-endian byte sink for the encoder (docs/protocols/m3da.md: big-endian everywhere).

export class Writer {
  private buf: Buffer
  private len = 0

  constructor (size = 128) { this.buf = Buffer.allocUnsafe(size) }

  private room (n: number): void {
    if (this.len + n <= this.buf.length) return
    let size = this.buf.length * 2
    while (size < this.len + n) size *= 2
    const next = Buffer.allocUnsafe(size)
    this.buf.copy(next, 0, 0, this.len)
    this.buf = next
  }

  /** Starts over; the working buffer is kept, shrunk back when a large value grew it. */
  reset (): void {
    this.len = 0
    if (this.buf.length > 1 << 20) this.buf = Buffer.allocUnsafe(1024)
  }

  byte (b: number): void {
    this.room(1)
    this.buf[this.len++] = b
  }

  /** `count` bytes of the unsigned big-endian integer n (count ≤ 4). */
  uint (n: number, count: number): void {
    this.room(count)
    for (let i = count - 1; i >= 0; i--) this.buf[this.len++] = Math.floor(n / 256 ** i) % 256
  }

  int32 (n: number): void { this.room(4); this.len = this.buf.writeInt32BE(n, this.len) }
  int64 (n: bigint): void { this.room(8); this.len = this.buf.writeBigInt64BE(n, this.len) }
  float32 (n: number): void { this.room(4); this.len = this.buf.writeFloatBE(n, this.len) }
  float64 (n: number): void { this.room(8); this.len = this.buf.writeDoubleBE(n, this.len) }

  bytes (b: Uint8Array): void {
    this.room(b.length)
    this.buf.set(b, this.len)
    this.len += b.length
  }

  utf8 (s: string, byteLength: number): void {
    this.room(byteLength)
    this.len += this.buf.write(s, this.len, 'utf8')
  }

  /** The bytes written, in a buffer of their own (the working buffer is usually larger). */
  done (): Buffer { return Buffer.from(this.buf.subarray(0, this.len)) }
}
