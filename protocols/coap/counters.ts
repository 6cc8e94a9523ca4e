// What an endpoint counts: traffic, and what it refused and why (README §Refusals).

export interface CoapCounters {
  received: number
  sent: number
  /** Datagrams that did not decode, or broke a §4 rule (an ACK carrying a request, a RST with content…). */
  malformed: number
  /** CON/NON seen again within EXCHANGE_LIFETIME (§4.5); a CON's cached answer was sent again. */
  duplicates: number
  retransmissions: number
  /** Our CONs never acknowledged after MAX_RETRANSMIT. */
  timeouts: number
  resetsReceived: number
  /** Responses and ACK/RST matching nothing of ours. */
  unmatched: number
  /** Notifications older than the newest seen (RFC 7641 §3.4). */
  staleNotifications: number
  sendErrors: number
  /** A handler or callback that threw; the endpoint answered 5.00 or went on. */
  callbackErrors: number
  /** Exceptions caught at receive(): always 0 unless there is a bug. */
  internalErrors: number
  /** Refused messages and operations, by reason. */
  refused: Record<string, number>
}

export function createCounters (): CoapCounters {
  return {
    received: 0,
    sent: 0,
    malformed: 0,
    duplicates: 0,
    retransmissions: 0,
    timeouts: 0,
    resetsReceived: 0,
    unmatched: 0,
    staleNotifications: 0,
    sendErrors: 0,
    callbackErrors: 0,
    internalErrors: 0,
    refused: {}
  }
}

export function countRefusal (c: CoapCounters, reason: string): void {
  c.refused[reason] = (c.refused[reason] ?? 0) + 1
}
