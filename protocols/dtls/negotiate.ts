// The server's choice from a ClientHello (RFC 5246 §7.4.1.3): DTLS 1.2, TLS_PSK_WITH_AES_128_CCM_8, null compression,
// extended master secret when offered (RFC 7627 §5.2), renegotiation_info when the client signals it (RFC 5746 §3.6).
// Anything else refused with the alert the RFCs name.
import { AlertDescription } from './alert.js'
import { DTLS_1_2, EMPTY_RENEGOTIATION_INFO_SCSV, ExtensionType, NULL_COMPRESSION, PSK_AES_128_CCM_8 } from './constants.js'
import type { ClientHello } from './hello.js'

export type Negotiated =
  | { ok: true, extendedMasterSecret: boolean, extensions: Map<number, Buffer> }
  | { ok: false, alert: number }

export function negotiate (hello: ClientHello): Negotiated {
  // A larger DTLS version number is an older version: a client whose best is DTLS 1.0 cannot talk to us.
  if (hello.version > DTLS_1_2) return { ok: false, alert: AlertDescription.protocolVersion }
  if (!hello.cipherSuites.includes(PSK_AES_128_CCM_8)) return { ok: false, alert: AlertDescription.handshakeFailure }
  // RFC 5246 §7.4.1.2: null compression must be offered; it is the only one spoken here.
  if (!hello.compressions.includes(NULL_COMPRESSION)) return { ok: false, alert: AlertDescription.handshakeFailure }
  const extensions = new Map<number, Buffer>()
  const ems = hello.extensions.get(ExtensionType.extendedMasterSecret)
  if (ems !== undefined) {
    if (ems.length !== 0) return { ok: false, alert: AlertDescription.decodeError }
    extensions.set(ExtensionType.extendedMasterSecret, Buffer.alloc(0))
  }
  const reneg = hello.extensions.get(ExtensionType.renegotiationInfo)
  // RFC 5746 §3.6: in an initial handshake the extension must hold an empty renegotiated_connection.
  if (reneg !== undefined && !(reneg.length === 1 && reneg[0] === 0)) return { ok: false, alert: AlertDescription.handshakeFailure }
  if (reneg !== undefined || hello.cipherSuites.includes(EMPTY_RENEGOTIATION_INFO_SCSV)) {
    extensions.set(ExtensionType.renegotiationInfo, Buffer.of(0))
  }
  return { ok: true, extendedMasterSecret: ems !== undefined, extensions }
}
