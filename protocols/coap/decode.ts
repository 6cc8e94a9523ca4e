// decodeMessage (RFC 7252 §3): total, never throws, whatever the bytes.
import { coapMessage, type CoapOption, type DecodeRefusal, type DecodeResult, type MessageType } from './types.js'

const PAYLOAD_MARKER = 0xff

type Head = { messageId: number, type: MessageType }
type Failed = { ok: false, reason: DecodeRefusal, messageId?: number, type?: MessageType }

const fail = (reason: DecodeRefusal, head?: Head): Failed =>
  head === undefined ? { ok: false, reason } : { ok: false, reason, messageId: head.messageId, type: head.type }

/**
 * One datagram → one message. The token, option values and payload are views on `buf` (no copy).
 * Refusals: see DecodeRefusal; each after the header carries the message id and type.
 */
export function decodeMessage (input: Uint8Array): DecodeResult {
  const buf = Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength)
  if (buf.length < 4) return fail('coap.too.short')
  const b0 = buf[0] as number
  // §3: "Messages with unknown version numbers MUST be silently ignored": no id, so no RST.
  if (b0 >> 6 !== 1) return fail('coap.bad.version')
  const head: Head = { type: ((b0 >> 4) & 3) as MessageType, messageId: buf.readUInt16BE(2) }
  const tkl = b0 & 0x0f
  const code = buf[1] as number
  // §3: token lengths 9–15 are reserved and "MUST be processed as a message format error".
  if (tkl > 8) return fail('coap.bad.token.length', head)
  if (4 + tkl > buf.length) return fail('coap.truncated', head)
  // §4.1: an Empty message is the 4-byte header alone.
  if (code === 0 && buf.length > 4) return fail('coap.empty.not.empty', head)
  const body = readOptions(buf, 4 + tkl)
  if ('reason' in body) return fail(body.reason, head)
  return { ok: true, message: coapMessage(head.type, code, head.messageId, buf.subarray(4, 4 + tkl), body.options, body.payload) }
}

interface Body { options: CoapOption[], payload: Buffer }

function readOptions (buf: Buffer, start: number): Body | { reason: DecodeRefusal } {
  const options: CoapOption[] = []
  let pos = start
  let number = 0
  while (pos < buf.length) {
    const byte = buf[pos++] as number
    if (byte === PAYLOAD_MARKER) {
      // §3: a marker followed by a zero-length payload is a format error.
      if (pos === buf.length) return { reason: 'coap.payload.marker.empty' }
      return { options, payload: buf.subarray(pos) }
    }
    const delta = readExtended(buf, pos, byte >> 4)
    if (typeof delta === 'string') return { reason: delta }
    pos += delta.used
    const length = readExtended(buf, pos, byte & 0x0f)
    if (typeof length === 'string') return { reason: length }
    pos += length.used
    number += delta.value
    if (number > 0xffff) return { reason: 'coap.option.number.too.large' }
    if (pos + length.value > buf.length) return { reason: 'coap.truncated' }
    options.push({ number, value: buf.subarray(pos, pos + length.value) })
    pos += length.value
  }
  return { options, payload: buf.subarray(buf.length) }
}

/** §3.1: nibble 13 → one more byte + 13, 14 → two more bytes + 269, 15 → reserved (the marker is the whole byte). */
function readExtended (buf: Buffer, pos: number, nibble: number): { value: number, used: number } | DecodeRefusal {
  if (nibble < 13) return { value: nibble, used: 0 }
  if (nibble === 15) return 'coap.option.reserved'
  const used = nibble === 13 ? 1 : 2
  if (pos + used > buf.length) return 'coap.truncated'
  return nibble === 13 ? { value: (buf[pos] as number) + 13, used } : { value: buf.readUInt16BE(pos) + 269, used }
}
