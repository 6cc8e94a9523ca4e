// Sending a notification to an observer (RFC 7641 §4.2–§4.5).
import type { CoapCounters } from './counters.js'
import { isSuccessCode } from './codes.js'
import type { Parts } from './exchanges.js'
import type { MessageLayer } from './message-layer.js'
import { nextObserveSeq } from './observe.js'
import { OptionNumber, withOption, withoutOption } from './options.js'
import { blockOfResponse, type ServedBodies } from './response-blocks.js'
import type { ServedObservers } from './served-observers.js'
import { MessageType, coapMessage } from './types.js'

/**
 * sent: a NON went out; acked: a CON was acknowledged; reset / timeout: the observer answered RST, or never ACKed
 * a CON, and is removed (§3.6, §4.5); ended: a non-2.xx notification was sent, which ends the observation (§4.2);
 * unknown: no observer with that peer and token.
 */
export type NotifyOutcome = 'sent' | 'acked' | 'reset' | 'timeout' | 'ended' | 'unknown'

export interface NotifierDeps { layer: MessageLayer, observers: ServedObservers, bodies: ServedBodies, ourSzx: number, counters: CoapCounters }

const noop = (): void => {}

export function sendNotification (d: NotifierDeps, peer: string, token: Buffer, parts: Parts, confirmable: boolean): Promise<NotifyOutcome> {
  const observer = d.observers.get(peer, token)
  if (observer === undefined) return Promise.resolve('unknown')
  const success = isSuccessCode(parts.code)
  const plain = { ...parts, options: withoutOption(parts.options, OptionNumber.Observe) }
  // RFC 7959 §2.6 (Block2 with Observe): the first block is the notification; the client asks for the rest with
  // GETs without Observe, served from the kept body.
  const first = blockOfResponse(plain, undefined, d.ourSzx) ?? plain
  if (first !== plain) d.bodies.put(peer, observer.key, plain)
  let options = first.options
  if (success) {
    observer.seq = nextObserveSeq(observer.seq)
    options = withOption(options, OptionNumber.Observe, observer.seq)
  }
  const messageId = d.layer.nextMessageId(peer)
  const msg = coapMessage(confirmable ? MessageType.CON : MessageType.NON, first.code, messageId, observer.token, options, first.payload)
  d.observers.noteSent(observer, messageId)
  if (!success) {
    d.observers.remove(peer, token, 'ended')
    if (confirmable) d.layer.sendConfirmable(peer, msg, { onAck: noop, onReset: noop, onTimeout: noop })
    else d.layer.send(peer, msg)
    return Promise.resolve('ended')
  }
  if (!confirmable) {
    d.layer.send(peer, msg)
    return Promise.resolve('sent')
  }
  return new Promise((resolve) => {
    d.layer.sendConfirmable(peer, msg, {
      onAck: () => { resolve('acked') },
      onReset: () => { d.observers.remove(peer, token, 'reset'); resolve('reset') },
      onTimeout: () => { d.observers.remove(peer, token, 'timeout'); resolve('timeout') }
    })
  })
}
