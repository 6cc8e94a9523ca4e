// Why one of our requests or observations failed: a stable code, as the service's errors are (house style §2.1).

export type CoapErrorCode =
  /** No ACK after MAX_RETRANSMIT, or no response before the request's timeout. */
  | 'coap.timeout'
  /** The peer answered our CON with a RST (§4.2): it does not know the exchange. */
  | 'coap.reset'
  /** maxPendingPerPeer requests already run or wait for this peer. */
  | 'coap.peer.busy'
  /** maxObservationsPerPeer observations already held at this peer. */
  | 'coap.observe.limit'
  /** A Block2 body over maxBodySize, or a Block1 transfer the peer refused with 4.13 at the smallest size. */
  | 'coap.block.too.large'
  /** A Block2 transfer whose blocks do not follow (gap, bad size, wrong NUM). */
  | 'coap.block.incomplete'
  /** The representation changed during a Block2 transfer (ETag differs, RFC 7959 §2.4). */
  | 'coap.block.etag.changed'
  /** forgetPeer() was called for this peer (its DTLS session ended…). */
  | 'coap.peer.gone'
  | 'coap.closed'

export class CoapError extends Error {
  readonly code: CoapErrorCode

  constructor (code: CoapErrorCode, message: string = code) {
    super(message)
    this.name = 'CoapError'
    this.code = code
  }
}
