// Where an incoming datagram goes (RFC 7252 §4): ACK and RST settle our CONs; requests go to the server side,
// responses to our requests or observations; what matches nothing, or breaks a rule, is rejected or dropped.
import { isRequestCode, isReservedCode } from './codes.js'
import { countRefusal, type CoapCounters } from './counters.js'
import { decodeMessage } from './decode.js'
import { emptyMessage, type MessageLayer } from './message-layer.js'
import type { IncomingRequests } from './incoming-requests.js'
import type { Observations } from './observations.js'
import { findBadCriticalOption } from './options.js'
import type { Requester } from './outgoing-requests.js'
import type { ServedObservers } from './served-observers.js'
import { encodeMessage } from './encode.js'
import { MessageType, type CoapMessage } from './types.js'

export interface DispatchParts {
  layer: MessageLayer
  counters: CoapCounters
  requester: Requester
  observations: Observations
  observers: ServedObservers
  incoming: IncomingRequests
}

export function dispatchDatagram (p: DispatchParts, peer: string, datagram: Uint8Array): void {
  const r = decodeMessage(datagram)
  if (!r.ok) {
    p.counters.malformed++
    // §4.2: a CON that cannot be processed is rejected with a RST; anything else malformed is dropped (§4.3).
    if (r.type === MessageType.CON && r.messageId !== undefined) p.layer.sendRaw(peer, encodeMessage(emptyMessage(MessageType.RST, r.messageId)))
    return
  }
  const msg = r.message
  if (msg.type === MessageType.ACK || msg.type === MessageType.RST) onAckOrReset(p, peer, msg)
  else onConOrNon(p, peer, msg)
}

function onAckOrReset (p: DispatchParts, peer: string, msg: CoapMessage): void {
  // §4.2: an ACK is empty or carries a response; a RST is empty (§4.1 already refused bytes after an empty header).
  if (msg.type === MessageType.RST ? msg.code !== 0 : isRequestCode(msg.code) || isReservedCode(msg.code)) {
    p.counters.malformed++
    return
  }
  if (msg.type === MessageType.RST) p.counters.resetsReceived++
  if (p.layer.transmitter.settle(peer, msg)) return
  if (msg.type === MessageType.RST && p.observers.resetByMessageId(peer, msg.messageId)) return
  p.counters.unmatched++
}

function onConOrNon (p: DispatchParts, peer: string, msg: CoapMessage): void {
  if (msg.code === 0) {
    // §4.3: an empty CON is a ping, answered with a RST; an empty NON means nothing.
    if (msg.type === MessageType.CON) p.layer.sendRaw(peer, encodeMessage(emptyMessage(MessageType.RST, msg.messageId)))
    else p.counters.malformed++
    return
  }
  if (isReservedCode(msg.code)) {
    p.counters.malformed++
    if (msg.type === MessageType.CON) p.layer.reset(peer, msg.messageId)
    return
  }
  const seen = p.layer.dedup.check(peer, msg.messageId)
  if (seen !== undefined) {
    p.counters.duplicates++
    // §4.5: the same ACK or RST again; a request still being handled is ACKed now (its response comes separately).
    if (msg.type === MessageType.CON && seen.reply !== undefined) p.layer.sendRaw(peer, seen.reply)
    else if (msg.type === MessageType.CON && isRequestCode(msg.code)) p.incoming.duplicate(peer, msg.messageId)
    return
  }
  if (isRequestCode(msg.code)) return p.incoming.handle(peer, msg)
  onResponse(p, peer, msg)
}

/** A response in a CON or NON: a separate response to our request, or a notification. */
function onResponse (p: DispatchParts, peer: string, msg: CoapMessage): void {
  // §5.4.1: a response with an unrecognized critical option is rejected.
  if (findBadCriticalOption(msg) !== undefined) {
    countRefusal(p.counters, 'coap.bad.option')
    return p.layer.reset(peer, msg.messageId)
  }
  if (p.requester.handleResponse(peer, msg) || p.observations.handleNotification(peer, msg)) {
    if (msg.type === MessageType.CON) p.layer.emptyAck(peer, msg.messageId)
    return
  }
  p.counters.unmatched++
  // §4.3 (and RFC 7641 §3.6): a response we do not expect is rejected; that is how a forgotten observation stops.
  p.layer.reset(peer, msg.messageId)
}
