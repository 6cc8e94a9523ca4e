// One conversation with a gateway over its access path (SNMP or AceManager, docs/protocols/msci.md): read MSCI ids,
// write MSCI ids. Errors say what happened without the credentials or the answer's content (never logged).

/** A value as the gateway gave it: a number, or text. */
export type RawValue = number | string

/**
 * unreachable: no answer in time, or no connection (the poll failed); garbage: an answer that is not the protocol
 * (counted, the poll failed); denied: the gateway refused the credentials (the poll failed); refused: the gateway
 * answered and refused a write (the task fails with its reason, the poll itself succeeded).
 */
export type MsciErrorKind = 'unreachable' | 'garbage' | 'denied' | 'refused'

export class MsciError extends Error {
  constructor (readonly kind: MsciErrorKind, message: string) {
    super(message)
    this.name = 'MsciError'
  }
}

export interface GatewayAccess {
  /** The values of these ids the gateway has (an id it does not know is absent). @throws MsciError */
  read (ids: readonly number[]): Promise<Map<number, RawValue>>
  /** Writes the values; resolves once the gateway accepted them all. @throws MsciError ('refused': it answered no) */
  write (values: ReadonlyArray<readonly [number, RawValue]>): Promise<void>
  close (): void
}
