// encodeMessage (RFC 7252 §3). Our own messages only: a message that cannot be written is a bug, so RangeError.
import type { CoapMessage, CoapOption } from './types.js'

/** The largest option value length, and delta, §3.1 can express: 65535 + 269. */
export const MAX_OPTION_EXTENDED = 0xffff + 269

/**
 * Writes one message. Options are written in number order (a stable sort, so repeated options keep their order);
 * the payload marker is written only when there is a payload (§3).
 * @throws RangeError on a token over 8 bytes, a field out of range, or an option value over 65,804 bytes.
 */
export function encodeMessage (msg: CoapMessage): Buffer {
  check(msg)
  const options = [...msg.options].sort((a, b) => a.number - b.number)
  const size = 4 + msg.token.length + optionsSize(options) + (msg.payload.length > 0 ? 1 + msg.payload.length : 0)
  const out = Buffer.allocUnsafe(size)
  out[0] = 0x40 | (msg.type << 4) | msg.token.length
  out[1] = msg.code
  out.writeUInt16BE(msg.messageId, 2)
  let pos = 4 + msg.token.copy(out, 4)
  let previous = 0
  for (const o of options) {
    pos = writeOptionHeader(out, pos, o.number - previous, o.value.length)
    pos += o.value.copy(out, pos)
    previous = o.number
  }
  if (msg.payload.length > 0) {
    out[pos++] = 0xff
    msg.payload.copy(out, pos)
  }
  return out
}

function check (msg: CoapMessage): void {
  if (!Number.isInteger(msg.type) || msg.type < 0 || msg.type > 3) throw new RangeError(`bad CoAP type ${msg.type}`)
  if (!Number.isInteger(msg.code) || msg.code < 0 || msg.code > 255) throw new RangeError(`bad CoAP code ${msg.code}`)
  if (!Number.isInteger(msg.messageId) || msg.messageId < 0 || msg.messageId > 0xffff) throw new RangeError(`bad message id ${msg.messageId}`)
  if (msg.token.length > 8) throw new RangeError(`token of ${msg.token.length} bytes (at most 8)`)
  for (const o of msg.options) {
    if (!Number.isInteger(o.number) || o.number < 0 || o.number > 0xffff) throw new RangeError(`bad option number ${o.number}`)
    if (o.value.length > MAX_OPTION_EXTENDED) throw new RangeError(`option ${o.number} value of ${o.value.length} bytes`)
  }
}

const extendedBytes = (v: number): number => (v < 13 ? 0 : v < 269 ? 1 : 2)

function optionsSize (options: readonly CoapOption[]): number {
  let size = 0
  let previous = 0
  for (const o of options) {
    size += 1 + extendedBytes(o.number - previous) + extendedBytes(o.value.length) + o.value.length
    previous = o.number
  }
  return size
}

const nibble = (v: number): number => (v < 13 ? v : v < 269 ? 13 : 14)

function writeExtended (out: Buffer, pos: number, v: number): number {
  if (v < 13) return pos
  if (v < 269) {
    out[pos] = v - 13
    return pos + 1
  }
  out.writeUInt16BE(v - 269, pos)
  return pos + 2
}

function writeOptionHeader (out: Buffer, pos: number, delta: number, length: number): number {
  out[pos] = (nibble(delta) << 4) | nibble(length)
  return writeExtended(out, writeExtended(out, pos + 1, delta), length)
}
