// The TLV frame of OMA-TS-LightweightM2M-Core 1.1 §7.4.3 (1.0: §6.4.3). Type byte:
//   bits 7-6  identifier type: 00 object instance, 01 resource instance, 10 multiple resource, 11 resource value
//   bit  5    identifier length: 0 = 8 bits, 1 = 16 bits
//   bits 4-3  length type: 00 = length in bits 2-0, 01 = 8-bit, 10 = 16-bit, 11 = 24-bit length field
//   bits 2-0  the length when bits 4-3 are 00
// then the identifier, the length field and the value. Object instances hold resources (values or multiple);
// multiple resources hold resource instances. That nesting is checked here, so a frame tree is at most 3 deep.
import { MAX_ENTRIES, type Decoded } from './types.js'

export const TLV_OBJECT_INSTANCE = 0
export const TLV_RESOURCE_INSTANCE = 1
export const TLV_MULTIPLE_RESOURCE = 2
export const TLV_RESOURCE_VALUE = 3
export type TlvKind = 0 | 1 | 2 | 3

export interface TlvFrame {
  kind: TlvKind
  id: number
  /** The value of a resource value or resource instance; the children's bytes for the two containers. */
  value: Buffer
  /** Object instance: its resources; multiple resource: its resource instances. */
  children?: TlvFrame[]
}

/** What each container may hold (§7.4.3: an object instance never holds resource instances directly). */
const ALLOWED: Record<TlvKind | 'top', readonly TlvKind[]> = {
  top: [0, 1, 2, 3],
  0: [TLV_MULTIPLE_RESOURCE, TLV_RESOURCE_VALUE],
  2: [TLV_RESOURCE_INSTANCE],
  1: [],
  3: []
}

interface Budget { frames: number }

function readHeader (buf: Buffer, at: number): { kind: TlvKind, id: number, start: number, end: number } | undefined {
  const type = buf[at]
  if (type === undefined) return undefined
  const idBytes = (type & 0x20) !== 0 ? 2 : 1
  const lengthBytes = (type >> 3) & 0x03
  let p = at + 1
  if (p + idBytes + lengthBytes > buf.length) return undefined
  const id = idBytes === 2 ? buf.readUInt16BE(p) : buf.readUInt8(p)
  p += idBytes
  const length = lengthBytes === 0 ? type & 0x07 : buf.readUIntBE(p, lengthBytes)
  p += lengthBytes
  if (p + length > buf.length) return undefined
  return { kind: (type >> 6) as TlvKind, id, start: p, end: p + length }
}

function readList (buf: Buffer, parent: TlvKind | 'top', budget: Budget): Decoded<{ frames: TlvFrame[] }> {
  const frames: TlvFrame[] = []
  const seen = new Set<number>()
  let at = 0
  while (at < buf.length) {
    const h = readHeader(buf, at)
    if (h === undefined) return { ok: false, reason: 'lwm2m.tlv.truncated' }
    if (!ALLOWED[parent].includes(h.kind)) return { ok: false, reason: 'lwm2m.tlv.structure' }
    // §7.4.3: ids are unique within their container (two instances 0, two resources 1 are not a payload).
    if (seen.has(h.id)) return { ok: false, reason: 'lwm2m.tlv.duplicate' }
    seen.add(h.id)
    if (++budget.frames > MAX_ENTRIES) return { ok: false, reason: 'lwm2m.tlv.too.many' }
    const frame: TlvFrame = { kind: h.kind, id: h.id, value: buf.subarray(h.start, h.end) }
    if (h.kind === TLV_OBJECT_INSTANCE || h.kind === TLV_MULTIPLE_RESOURCE) {
      const inner = readList(frame.value, h.kind, budget)
      if (!inner.ok) return inner
      frame.children = inner.frames
    }
    frames.push(frame)
    at = h.end
  }
  return { ok: true, frames }
}

/** The frames of a TLV payload, nested; refuses truncation, bad nesting, duplicate ids and too many frames. */
export function readTlv (payload: Uint8Array): Decoded<{ frames: TlvFrame[] }> {
  const buf = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength)
  return readList(buf, 'top', { frames: 0 })
}

/** One frame: the shortest identifier and length fields that hold them (§7.4.3). */
export function writeFrame (kind: TlvKind, id: number, value: Uint8Array): Buffer {
  const wideId = id > 0xff
  const n = value.length
  const lengthBytes = n < 8 ? 0 : n <= 0xff ? 1 : n <= 0xffff ? 2 : 3
  const header = Buffer.alloc(1 + (wideId ? 2 : 1) + lengthBytes)
  header[0] = (kind << 6) | (wideId ? 0x20 : 0) | (lengthBytes << 3) | (lengthBytes === 0 ? n : 0)
  if (wideId) header.writeUInt16BE(id, 1)
  else header.writeUInt8(id, 1)
  if (lengthBytes > 0) header.writeUIntBE(n, header.length - lengthBytes, lengthBytes)
  return Buffer.concat([header, value])
}

/** The largest value a 24-bit length field holds. */
export const MAX_TLV_VALUE = 0xffffff
