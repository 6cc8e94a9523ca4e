// What the LwM2M data layer produces and takes (README.md). Pure: this folder imports nothing of ours outside it.

/** The data types of OMA-TS-LightweightM2M-Core 1.1 Appendix C; 'none' for an executable resource. */
export type ResourceType =
  | 'String' | 'Integer' | 'Unsigned Integer' | 'Float' | 'Boolean' | 'Opaque' | 'Time' | 'Objlnk' | 'Corelnk' | 'none'

/** The type of a value that travels: every resource type but the executables'. */
export type ValueType = Exclude<ResourceType, 'none'>

/** An Objlnk value: a reference to an object instance (`3:0`; 65535:65535 is the null link). */
export interface ObjectLink { objectId: number, instanceId: number }

/**
 * A resource value by type: String and Corelnk a string; Integer and Unsigned Integer a number while it is a safe
 * integer, a bigint beyond; Float a number; Boolean a boolean; Opaque bytes (a Buffer when decoded); Time a Date
 * (whole seconds on the wire for TLV, text and CBOR); Objlnk an ObjectLink.
 */
export type LwM2mValue = string | number | bigint | boolean | Uint8Array | Date | ObjectLink

/** `/3`, `/3/0`, `/3/0/1` or `/3/0/1/2` (LwM2M 1.1 resource instance); every id 0–65535. */
export interface LwM2mPath {
  objectId: number
  instanceId?: number
  resourceId?: number
  resourceInstanceId?: number
}

/** One value read from a payload: a resource (or resource instance) path, its value and its type. */
export interface LwM2mEntry {
  path: LwM2mPath
  value: LwM2mValue
  type: ValueType
  /** ms since epoch, when the payload carried a time for this value (SenML `bt`/`t`, LwM2M JSON `bt`/`t`). */
  timestamp?: number
}

/** One value to write; without a type, the object model's, else one guessed from the JavaScript value. */
export interface WriteValue {
  path: LwM2mPath
  value: LwM2mValue
  type?: ValueType
  timestamp?: number
}

/** A decoder's answer instead of throwing: a dotted reason for logs and metrics. */
export type Decoded<T> = ({ ok: true } & T) | { ok: false, reason: string }

/** Payloads bigger than this are refused undecoded (a CoAP block-wise transfer reassembled, at most). */
export const MAX_PAYLOAD_BYTES = 1024 * 1024
/** Values (TLV resources and resource instances, SenML records) per payload. */
export const MAX_ENTRIES = 10_000
/** Links per link-format payload. */
export const MAX_LINKS = 10_000
/** Attributes per link. */
export const MAX_LINK_ATTRIBUTES = 64
/** The largest id of an object, instance, resource or resource instance (16 bits, §6.1 of the Core TS). */
export const MAX_ID = 65535
