// Device certificates (docs/security.md#device-certificates): what a TLS listener learned of the certificate a device
// presented, and the rules that name certificates. The TLS layer (ingest/tls/) fills a PresentedCertificate at the
// handshake; the devices service decides which system, if any, it logs in (core/services/certificates/).

/**
 * A client certificate as a TLS listener received it. The handshake has already proven that the device holds its
 * private key (TLS CertificateVerify); `verified` says whether its chain also led to one of the CAs the listener
 * trusts (TLS_CLIENT_CA_FILE and the companies' registered CAs).
 */
export interface PresentedCertificate {
  /** SHA-256 of the certificate's DER, lowercase hexadecimal without separators (the form the API uses). */
  fingerprint: string
  /** Whether the chain was verified to a trusted CA, within its validity dates. */
  verified: boolean
  /** Why it was not verified, in OpenSSL's words (`CERT_HAS_EXPIRED`, `UNABLE_TO_GET_ISSUER_CERT_LOCALLY`...). */
  error?: string
  /** Fingerprints (same form) of the certificates above it in its verified chain, its issuer first, the root last. */
  issuers: string[]
  /** Its subject's common name, when it has one. */
  commonName?: string
  /** Its subject alternative names' values (DNS names, URIs, e-mail addresses, IP addresses), without their kind. */
  altNames: string[]
  /** Its validity, in ms since the epoch. */
  notBefore: number
  notAfter: number
}

const HEX_64 = /^[0-9a-f]{64}$/

/**
 * A fingerprint as the API and the store keep it: lowercase hexadecimal without separators. Accepts the forms tools
 * print (`AB:CD:...` from openssl, uppercase); undefined when it is not a SHA-256 fingerprint.
 */
export function normaliseFingerprint (raw: string): string | undefined {
  const hex = raw.replace(/:/g, '').toLowerCase()
  return HEX_64.test(hex) ? hex : undefined
}
