// The DTLS handshake header (RFC 6347 §4.2.2): each message carries message_seq, and may be cut into fragments
// (fragment_offset, fragment_length), several per record. Parsing never throws and bounds every length.
import { asBuffer, Reader, u16, u24, u8 } from './bytes.js'
import { HANDSHAKE_HEADER_BYTES, MAX_HANDSHAKE_MESSAGE } from './constants.js'

export interface HandshakeFragment {
  msgType: number
  /** The whole message's length. */
  length: number
  messageSeq: number
  fragmentOffset: number
  body: Buffer
}

export type FragmentsResult = { ok: true, fragments: HandshakeFragment[] } | { ok: false, reason: string }

/** The fragments of one handshake record, in order. A record holding anything else is refused whole. */
export function parseHandshakeFragments (data: Uint8Array): FragmentsResult {
  const r = new Reader(asBuffer(data))
  const fragments: HandshakeFragment[] = []
  if (r.remaining === 0) return { ok: false, reason: 'dtls.handshake.empty' }
  while (r.remaining > 0) {
    if (r.remaining < HANDSHAKE_HEADER_BYTES) return { ok: false, reason: 'dtls.handshake.truncated' }
    const msgType = r.u8()
    const length = r.u24()
    const messageSeq = r.u16()
    const fragmentOffset = r.u24()
    const fragmentLength = r.u24()
    if (length > MAX_HANDSHAKE_MESSAGE) return { ok: false, reason: 'dtls.handshake.too.large' }
    if (fragmentOffset + fragmentLength > length) return { ok: false, reason: 'dtls.handshake.fragment.outside' }
    // An empty fragment of a non-empty message adds nothing and is refused (only ServerHelloDone is empty).
    if (fragmentLength === 0 && length > 0) return { ok: false, reason: 'dtls.handshake.fragment.empty' }
    if (fragmentLength > r.remaining) return { ok: false, reason: 'dtls.handshake.truncated' }
    fragments.push({ msgType, length, messageSeq, fragmentOffset, body: r.bytes(fragmentLength) })
  }
  return { ok: true, fragments }
}

function header (msgType: number, length: number, messageSeq: number, offset: number, fragmentLength: number): Buffer {
  return Buffer.concat([u8(msgType), u24(length), u16(messageSeq), u24(offset), u24(fragmentLength)])
}

/** A whole message as one fragment: what is sent unfragmented, and what the handshake hash covers (§4.2.6). */
export function encodeHandshake (msgType: number, messageSeq: number, body: Buffer): Buffer {
  return Buffer.concat([header(msgType, body.length, messageSeq, 0, body.length), body])
}

/** A message cut into fragments of at most `maxFragment` body bytes each (one fragment when it fits). */
export function fragmentHandshake (msgType: number, messageSeq: number, body: Buffer, maxFragment: number): Buffer[] {
  if (body.length <= maxFragment) return [encodeHandshake(msgType, messageSeq, body)]
  const out: Buffer[] = []
  for (let at = 0; at < body.length; at += maxFragment) {
    const piece = body.subarray(at, Math.min(body.length, at + maxFragment))
    out.push(Buffer.concat([header(msgType, body.length, messageSeq, at, piece.length), piece]))
  }
  return out
}
