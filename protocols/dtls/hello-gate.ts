// The stateless first step of the server (RFC 6347 §4.2.1): a datagram from an address without a session must open
// with a whole ClientHello in epoch 0; without a valid cookie it is answered with a HelloVerifyRequest built from the
// datagram alone, so that a flood from spoofed addresses leaves no state behind. Only a ClientHello that returns the
// cookie issued for its address and parameters goes on to a ServerConnection.
import { ContentType, DTLS_1_0, HandshakeType } from './constants.js'
import type { CookieIssuer, Peer } from './cookie.js'
import { encodeHandshake, parseHandshakeFragments } from './handshake.js'
import { encodeHelloVerifyRequest, parseClientHello } from './hello.js'
import { encodeRecord, parseRecords } from './record.js'
import type { RefusalReason } from './refusals.js'
import type { AcceptedHello } from './server-connection.js'

export type ReadHello = { ok: true, value: AcceptedHello } | { ok: false, reason: RefusalReason }

/** The ClientHello a datagram opens with, whole, in its first record; or why the datagram is not one. */
export function readClientHello (datagram: Uint8Array): ReadHello {
  const { records } = parseRecords(datagram)
  const first = records[0]
  if (first === undefined) return { ok: false, reason: 'bad.record' }
  if (first.type !== ContentType.handshake || first.epoch !== 0) return { ok: false, reason: 'no.session' }
  const parsed = parseHandshakeFragments(first.fragment)
  if (!parsed.ok) return { ok: false, reason: 'bad.handshake' }
  const f = parsed.fragments[0]
  if (f === undefined || f.msgType !== HandshakeType.clientHello) return { ok: false, reason: 'no.session' }
  // A fragmented ClientHello would need state to reassemble before the cookie is checked: refused (RFC 6347 §4.2.1
  // lets the stateless server require the hello whole; every client we know sends it in one record).
  if (f.fragmentOffset !== 0 || f.body.length !== f.length) return { ok: false, reason: 'bad.handshake' }
  const hello = parseClientHello(f.body)
  if (!hello.ok) return { ok: false, reason: 'bad.handshake' }
  return { ok: true, value: { hello: hello.value, body: f.body, messageSeq: f.messageSeq, recordSeq: first.seq } }
}

export type GateResult =
  | { kind: 'verify', reply: Buffer, refused: RefusalReason | undefined }
  | { kind: 'accept' }

/** Whether the hello's cookie is good; if not, the HelloVerifyRequest to send (and `bad.cookie` if one was sent). */
export function checkCookie (cookies: CookieIssuer, peer: Peer, accepted: AcceptedHello): GateResult {
  const { hello } = accepted
  if (hello.cookie.length > 0 && cookies.verify(peer, hello)) return { kind: 'accept' }
  return {
    kind: 'verify',
    reply: helloVerifyRequest(cookies.issue(peer, hello), accepted),
    refused: hello.cookie.length > 0 ? 'bad.cookie' : undefined
  }
}

/**
 * RFC 6347 §4.2.1: the record takes the ClientHello's record sequence number and the message its message_seq, so a
 * stateless server never repeats a sequence number of its own; version DTLS 1.0 in record and body as §4.2.1 advises.
 */
function helloVerifyRequest (cookie: Buffer, accepted: AcceptedHello): Buffer {
  return encodeRecord({
    type: ContentType.handshake,
    version: DTLS_1_0,
    epoch: 0,
    seq: accepted.recordSeq,
    fragment: encodeHandshake(HandshakeType.helloVerifyRequest, accepted.messageSeq, encodeHelloVerifyRequest(cookie))
  })
}
