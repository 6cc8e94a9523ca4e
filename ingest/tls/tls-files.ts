// The files of the TLS listeners (docs/security.md#tls), read and checked as a whole before any listener uses them:
// at start, where a bad file stops the service with one line naming its variable, and at each reload, where it keeps
// the previous certificate. The private key never appears in an error or a log line, only its variable and path.
import { readFile } from 'node:fs/promises'
import { createPrivateKey, X509Certificate } from 'node:crypto'
import { ConfigError, type Config } from '../../core/config.js'

/** The PEM texts the listeners are given: the certificate (its chain after it), its key, the client CAs of the file. */
export interface TlsMaterial {
  cert: string
  key: string
  /** TLS_CLIENT_CA_FILE's certificates, one PEM each (empty without the file). */
  clientCAs: string[]
  /** SHA-256 fingerprint of the server certificate (lowercase hex), for the logs of a start or reload. */
  fingerprint: string
}

export type TlsFiles = Pick<Config, 'TLS_CERT_FILE' | 'TLS_KEY_FILE' | 'TLS_CLIENT_CA_FILE'>

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g

/** Each certificate of a PEM text, parsed; throws naming the variable when there is none or one is not readable. */
export function pemCertificates (text: string, variable: string): Array<{ pem: string, cert: X509Certificate }> {
  const blocks = text.match(PEM_CERTIFICATE) ?? []
  if (blocks.length === 0) throw new ConfigError(variable, 'holds no PEM certificate (-----BEGIN CERTIFICATE-----)')
  return blocks.map((pem, i) => {
    try {
      return { pem, cert: new X509Certificate(pem) }
    } catch {
      throw new ConfigError(variable, `holds a certificate that cannot be read (the ${ordinal(i + 1)} PEM block)`)
    }
  })
}

const ordinal = (n: number): string => n === 1 ? '1st' : n === 2 ? '2nd' : n === 3 ? '3rd' : `${n}th`

async function readText (variable: string, path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8')
  } catch (err) {
    const code = (err as { code?: string }).code ?? 'error'
    throw new ConfigError(variable, `cannot be read: ${code} (${path})`)
  }
}

/**
 * Reads TLS_CERT_FILE, TLS_KEY_FILE and TLS_CLIENT_CA_FILE and checks them: PEM certificates, an unencrypted PEM key
 * that belongs to the first certificate. @throws ConfigError naming the variable of the first bad file.
 */
export async function readTlsFiles (files: TlsFiles): Promise<TlsMaterial> {
  if (files.TLS_CERT_FILE === undefined || files.TLS_KEY_FILE === undefined) throw new Error('readTlsFiles needs TLS_CERT_FILE and TLS_KEY_FILE')
  const certText = await readText('TLS_CERT_FILE', files.TLS_CERT_FILE)
  const keyText = await readText('TLS_KEY_FILE', files.TLS_KEY_FILE)
  const caText = files.TLS_CLIENT_CA_FILE === undefined ? undefined : await readText('TLS_CLIENT_CA_FILE', files.TLS_CLIENT_CA_FILE)
  const [leaf] = pemCertificates(certText, 'TLS_CERT_FILE')
  if (leaf === undefined) throw new ConfigError('TLS_CERT_FILE', 'holds no PEM certificate')
  let key
  try {
    key = createPrivateKey(keyText)
  } catch {
    // The reason OpenSSL gives is not repeated: nothing of a key file goes into a message.
    throw new ConfigError('TLS_KEY_FILE', 'holds no unencrypted PEM private key')
  }
  if (!leaf.cert.checkPrivateKey(key)) throw new ConfigError('TLS_KEY_FILE', 'does not match the certificate of TLS_CERT_FILE (its first PEM block)')
  const clientCAs = caText === undefined ? [] : pemCertificates(caText, 'TLS_CLIENT_CA_FILE').map((c) => c.pem)
  return { cert: certText, key: keyText, clientCAs, fingerprint: leaf.cert.fingerprint256.replace(/:/g, '').toLowerCase() }
}
