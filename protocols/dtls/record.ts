// The DTLS record codec (RFC 6347 §4.1): several records per datagram, each with an explicit epoch and 48-bit
// sequence number. Parsing never throws; what cannot be a record ends the datagram (§4.1.2.7: invalid records are
// silently discarded, and a broken length leaves nothing after it to trust).
import { asBuffer, Reader, u16, u48, u8 } from './bytes.js'
import { MAX_RECORD_FRAGMENT, MAX_RECORDS_PER_DATAGRAM, RECORD_HEADER_BYTES } from './constants.js'

export interface DtlsRecord {
  type: number
  version: number
  epoch: number
  seq: number
  fragment: Buffer
}

export interface ParsedRecords {
  records: DtlsRecord[]
  /** Bytes were left that are not a record (short header, length past the end, not a DTLS version, too many). */
  malformed: boolean
}

/** Every record of a datagram, in order; `malformed` when some bytes were not a record. */
export function parseRecords (datagram: Uint8Array): ParsedRecords {
  const buf = asBuffer(datagram)
  const records: DtlsRecord[] = []
  const r = new Reader(buf)
  while (r.remaining > 0) {
    if (records.length === MAX_RECORDS_PER_DATAGRAM || r.remaining < RECORD_HEADER_BYTES) return { records, malformed: true }
    const type = r.u8()
    const version = r.u16()
    const epoch = r.u16()
    const seq = r.u48()
    const length = r.u16()
    // RFC 6347 §4.1: DTLS versions all have the major byte 0xfe; anything else is not DTLS.
    if (version >> 8 !== 0xfe || length > MAX_RECORD_FRAGMENT || length > r.remaining) return { records, malformed: true }
    records.push({ type, version, epoch, seq, fragment: r.bytes(length) })
  }
  return { records, malformed: false }
}

/** One record's bytes: the header then the fragment as given (already protected for epochs above 0). */
export function encodeRecord (record: DtlsRecord): Buffer {
  return Buffer.concat([
    u8(record.type), u16(record.version), u16(record.epoch), u48(record.seq), u16(record.fragment.length), record.fragment
  ])
}
