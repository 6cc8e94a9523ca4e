// The SenML record (RFC 8428 §4) as the LwM2M data layer uses it, whatever its representation: JSON (§5), CBOR
// (§6) or the LwM2M 1.0 JSON of §7.4.4 of the 1.0 TS. LwM2M 1.1 (§7.4.4/§7.4.5 of the Core TS) adds `vlo`, an object
// link as text. Units, sums and update times are not LwM2M's and are not kept.
export interface SenmlRecord {
  bn?: string
  /** Base time, seconds. */
  bt?: number
  /** Base value (§4.5.4): added to `v`. */
  bv?: number
  n?: string
  /** Time, seconds (§4.5.3: below 2^28 relative to now, or to `bt`). */
  t?: number
  v?: number | bigint
  vs?: string
  vb?: boolean
  vd?: Uint8Array
  vlo?: string
}

/** The value fields: a record carries exactly one of them (§4.2, with LwM2M's `vlo`). */
export const VALUE_FIELDS = ['v', 'vs', 'vb', 'vd', 'vlo'] as const

/** §4.5.3: times below 2^28 are relative to the time of reception. */
export const RELATIVE_TIME_LIMIT = 2 ** 28

/** A record's field names end with `_` when the receiver must understand them (§4.4); we understand none. */
export const isMustUnderstand = (key: string): boolean => key.endsWith('_')

/** §4.4: a pack whose base version is above the one we read (10, RFC 8428's) must not be used. */
export const SENML_VERSION = 10
