// Reading and writing the big-endian integers and length-prefixed vectors of RFC 5246 §4. The reader never throws:
// reading past the end answers zeros or an empty buffer and sets `failed`, which the caller checks once at the end
// (one check per message instead of one per field).

export class Reader {
  #buf: Buffer
  #pos: number
  #end: number
  failed = false

  constructor (buf: Buffer, start = 0, end = buf.length) {
    this.#buf = buf
    this.#pos = start
    this.#end = end
  }

  get offset (): number { return this.#pos }
  get remaining (): number { return this.#end - this.#pos }

  #take (n: number): number | undefined {
    if (this.failed || n > this.#end - this.#pos) {
      this.failed = true
      return undefined
    }
    const at = this.#pos
    this.#pos += n
    return at
  }

  u8 (): number {
    const at = this.#take(1)
    return at === undefined ? 0 : this.#buf[at] ?? 0
  }

  u16 (): number {
    const at = this.#take(2)
    return at === undefined ? 0 : this.#buf.readUInt16BE(at)
  }

  u24 (): number {
    const at = this.#take(3)
    return at === undefined ? 0 : this.#buf.readUIntBE(at, 3)
  }

  u48 (): number {
    const at = this.#take(6)
    return at === undefined ? 0 : this.#buf.readUIntBE(at, 6)
  }

  bytes (n: number): Buffer {
    const at = this.#take(n)
    return at === undefined ? Buffer.alloc(0) : this.#buf.subarray(at, at + n)
  }

  vec8 (): Buffer { return this.bytes(this.u8()) }
  vec16 (): Buffer { return this.bytes(this.u16()) }

  /** True when everything was read and nothing failed: the message had exactly the bytes it declared. */
  get done (): boolean { return !this.failed && this.#pos === this.#end }
}

export function u8 (n: number): Buffer { return Buffer.of(n & 0xff) }

export function u16 (n: number): Buffer {
  const b = Buffer.alloc(2)
  b.writeUInt16BE(n)
  return b
}

export function u24 (n: number): Buffer {
  const b = Buffer.alloc(3)
  b.writeUIntBE(n, 0, 3)
  return b
}

export function u48 (n: number): Buffer {
  const b = Buffer.alloc(6)
  b.writeUIntBE(n, 0, 6)
  return b
}

export function vec8 (data: Buffer): Buffer { return Buffer.concat([u8(data.length), data]) }
export function vec16 (data: Buffer): Buffer { return Buffer.concat([u16(data.length), data]) }

/** A view of any byte array as a Buffer, without copying. */
export function asBuffer (bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}
