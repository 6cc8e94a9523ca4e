// What every TLS listener of the service is built with (docs/security.md#tls; docs/decisions/0029-tls-listeners.md):
// TLS 1.2 and 1.3 only, and a client certificate asked for but not required, so that one port serves devices with a
// password (one-way TLS) and devices with a certificate (mutual TLS) alike.
import { createSecureContext, type SecureContextOptions, type TlsOptions } from 'node:tls'
import type { TlsMaterial } from './tls-files.js'

/** TLS 1.0 and 1.1 are refused at the handshake. */
export const TLS_MIN_VERSION = 'TLSv1.2'

/**
 * The context of the certificate and key, and the CAs trusted for client certificates: TLS_CLIENT_CA_FILE's and
 * `extraCAs` (the companies' registered CAs). `ca` is always given, empty or not: without it Node would verify client
 * certificates against the public CAs it ships, and any certificate bought from one would read as verified.
 */
export function contextOptions (material: TlsMaterial, extraCAs: readonly string[]): SecureContextOptions {
  return {
    minVersion: TLS_MIN_VERSION,
    cert: material.cert,
    key: material.key,
    ca: [...new Set([...material.clientCAs, ...extraCAs])]
  }
}

/** The options of a new TLS server (tls.Server or https.Server) on that context. */
export function serverOptions (context: SecureContextOptions): TlsOptions {
  // rejectUnauthorized false: a certificate that does not verify (or none) does not end the handshake; the login
  // decides (PresentedCertificate.verified and a password).
  return { ...context, requestCert: true, rejectUnauthorized: false }
}

/** Builds the context once to find what OpenSSL refuses before any server is given it; throws what OpenSSL says. */
export function checkContext (context: SecureContextOptions): void {
  createSecureContext(context)
}
