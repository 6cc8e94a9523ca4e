// A flight as datagrams (RFC 6347 §4.2.4): each handshake message cut to fit the MTU (§4.2.3), each record sealed
// anew in its own epoch with a new sequence number (retransmissions included), records packed into as few
// datagrams as fit the MTU, in order.
import { ContentType } from './constants.js'
import { fragmentHandshake } from './handshake.js'
import type { RecordLayer } from './record-layer.js'

export type FlightItem =
  | { kind: 'handshake', epoch: number, msgType: number, messageSeq: number, body: Buffer }
  | { kind: 'ccs', epoch: number }

/** Record header, handshake header, and CCM-8's explicit nonce and tag: what a fragment's body leaves of the MTU. */
const OVERHEAD = 13 + 12 + 8 + 8

export function encodeFlight (records: RecordLayer, flight: FlightItem[], mtu: number): Buffer[] {
  const out: Buffer[] = []
  for (const item of flight) {
    if (item.kind === 'ccs') {
      out.push(records.seal(ContentType.changeCipherSpec, Buffer.of(1), item.epoch))
      continue
    }
    for (const f of fragmentHandshake(item.msgType, item.messageSeq, item.body, mtu - OVERHEAD)) {
      out.push(records.seal(ContentType.handshake, f, item.epoch))
    }
  }
  return packDatagrams(out, mtu)
}

function packDatagrams (records: Buffer[], mtu: number): Buffer[] {
  const out: Buffer[] = []
  let current: Buffer[] = []
  let size = 0
  for (const r of records) {
    if (size > 0 && size + r.length > mtu) {
      out.push(Buffer.concat(current))
      current = []
      size = 0
    }
    current.push(r)
    size += r.length
  }
  if (current.length > 0) out.push(Buffer.concat(current))
  return out
}
