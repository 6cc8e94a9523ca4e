// The content formats of LwM2M (OMA-TS-LightweightM2M-Core 1.1 §7.3 and §7.4, CoAP Content-Format numbers of the
// IANA registry) and the choice of one for a Write.
import type { Lwm2mVersion } from './registration-query.js'

export const ContentFormat = {
  TEXT: 0,
  LINK: 40,
  OPAQUE: 42,
  CBOR: 60,
  SENML_JSON: 110,
  SENML_CBOR: 112,
  TLV: 11542,
  JSON: 11543,
  /** The numbers LwM2M 1.0 clients used before IANA assigned 11542 and 11543. */
  TLV_LEGACY: 1542,
  JSON_LEGACY: 1543
} as const
export type ContentFormatNumber = typeof ContentFormat[keyof typeof ContentFormat]

export const MEDIA_TYPES: Readonly<Record<ContentFormatNumber, string>> = {
  0: 'text/plain;charset=utf-8',
  40: 'application/link-format',
  42: 'application/octet-stream',
  60: 'application/cbor',
  110: 'application/senml+json',
  112: 'application/senml+cbor',
  11542: 'application/vnd.oma.lwm2m+tlv',
  11543: 'application/vnd.oma.lwm2m+json',
  1542: 'application/vnd.oma.lwm2m+tlv',
  1543: 'application/vnd.oma.lwm2m+json'
}

export const isContentFormat = (n: number): n is ContentFormatNumber => Object.prototype.hasOwnProperty.call(MEDIA_TYPES, n)

export interface WriteFormatInput {
  /** The `lwm2m` of the registration. */
  version: Lwm2mVersion
  /** The `ct` the client advertised on its root link (RegistrationLinks.contentFormats); empty or absent: none. */
  contentFormats?: readonly number[]
}

/**
 * The format to Write with. LwM2M 1.0 makes TLV mandatory for clients (§6.4 of the 1.0 TS), so 1.0 gets TLV (1542
 * if that is the only TLV number the client advertised). LwM2M 1.1 makes none of TLV, SenML JSON and SenML CBOR
 * mandatory: SenML CBOR when advertised, else TLV when advertised, else SenML JSON when advertised, else TLV, which
 * 1.1 clients keep for 1.0 servers.
 */
export function pickWriteFormat ({ version, contentFormats = [] }: WriteFormatInput): ContentFormatNumber {
  const has = (n: number): boolean => contentFormats.includes(n)
  const tlv = has(ContentFormat.TLV_LEGACY) && !has(ContentFormat.TLV) ? ContentFormat.TLV_LEGACY : ContentFormat.TLV
  if (version === '1.0') return tlv
  if (has(ContentFormat.SENML_CBOR)) return ContentFormat.SENML_CBOR
  if (has(ContentFormat.TLV) || has(ContentFormat.TLV_LEGACY)) return tlv
  if (has(ContentFormat.SENML_JSON)) return ContentFormat.SENML_JSON
  return ContentFormat.TLV
}
