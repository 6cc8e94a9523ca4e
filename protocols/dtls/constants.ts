// The wire numbers of DTLS 1.2 with PSK and AES-128-CCM-8 (RFC 6347, RFC 5246, RFC 4279, RFC 6655, RFC 7627), and
// the bounds this folder holds every peer to. Pure: nothing of ours is imported here.

/** Record content types (RFC 5246 §6.2.1). */
export const ContentType = {
  changeCipherSpec: 20,
  alert: 21,
  handshake: 22,
  applicationData: 23
} as const

/** Handshake message types (RFC 5246 §7.4, RFC 6347 §4.3.2 for hello_verify_request). */
export const HandshakeType = {
  helloRequest: 0,
  clientHello: 1,
  serverHello: 2,
  helloVerifyRequest: 3,
  serverKeyExchange: 12,
  serverHelloDone: 14,
  clientKeyExchange: 16,
  finished: 20
} as const

/** DTLS versions are the ones' complement of the TLS ones: a smaller number is a newer version (RFC 6347 §4.1). */
export const DTLS_1_2 = 0xfefd
export const DTLS_1_0 = 0xfeff

/** TLS_PSK_WITH_AES_128_CCM_8 (RFC 6655 §3): the one suite spoken here, as RFC 7925 §4.2 profiles it. */
export const PSK_AES_128_CCM_8 = 0xc0a8
/** TLS_EMPTY_RENEGOTIATION_INFO_SCSV (RFC 5746 §3.3). */
export const EMPTY_RENEGOTIATION_INFO_SCSV = 0x00ff
export const NULL_COMPRESSION = 0

export const ExtensionType = {
  /** RFC 7627 §5.1: empty in both hellos. */
  extendedMasterSecret: 23,
  /** RFC 5746 §3.2: one byte 0 (an empty renegotiated_connection) in an initial handshake. */
  renegotiationInfo: 0xff01
} as const

/** The record header: type(1) version(2) epoch(2) sequence_number(6) length(2) (RFC 6347 §4.1). */
export const RECORD_HEADER_BYTES = 13
/** The handshake header: type(1) length(3) message_seq(2) fragment_offset(3) fragment_length(3) (RFC 6347 §4.2.2). */
export const HANDSHAKE_HEADER_BYTES = 12
/** RFC 5246 §6.2.3: a record's fragment is at most 2^14 + 2048 bytes. */
export const MAX_RECORD_FRAGMENT = 16384 + 2048
/** The largest application data a record carries (RFC 5246 §6.2.1). */
export const MAX_PLAINTEXT = 16384
/** A datagram holds at most this many records; the rest is dropped (a bound on work per datagram). */
export const MAX_RECORDS_PER_DATAGRAM = 32
/** The largest handshake message accepted; PSK handshakes need a few hundred bytes (a ClientHello is the largest). */
export const MAX_HANDSHAKE_MESSAGE = 8192
/** Handshake bytes held for reassembly per connection, all messages together. */
export const MAX_REASSEMBLY_BYTES = 16384
/** How far past the next expected message_seq a fragment is kept for later (RFC 6347 §4.2.2 lets us drop it). */
export const MAX_MESSAGES_AHEAD = 4
/** RFC 6347 §4.1: sequence numbers are 48 bits; a connection never wraps one (§4.1: it would renegotiate or close). */
export const MAX_SEQUENCE = 2 ** 48 - 1
/** RFC 4279 §5.3: identities up to 128 bytes must be supported; more is refused. */
export const MAX_PSK_IDENTITY = 128
/** RFC 4279 §5.3: PSKs up to 64 bytes must be supported. */
export const MAX_PSK = 64
/** RFC 6347 §4.2.1: a cookie is at most 255 bytes in DTLS 1.2. */
export const MAX_COOKIE = 255
/** RFC 5246 §7.4.9: verify_data is 12 bytes for every suite of TLS 1.2 without its own length. */
export const VERIFY_DATA_BYTES = 12
/** AES-128-CCM-8 (RFC 6655 §3): 8-byte explicit nonce before the ciphertext and an 8-byte tag after it. */
export const EXPLICIT_NONCE_BYTES = 8
export const CCM_TAG_BYTES = 8
