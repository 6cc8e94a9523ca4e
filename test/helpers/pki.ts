// Certificates for the TLS tests, issued by the same code as `fleet certs dev` (bin/pki.ts): CAs, server certificates
// for 127.0.0.1 and localhost, device certificates with a chosen CN, SANs, dates and key, as PEM texts or files in a
// temporary folder removed when the test file ends.
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { issue, type IssueOptions, type Issued, type KeyKind } from '../../bin/pki.js'

export type { Issued, KeyKind }

const DAY_MS = 86_400_000

/** A CA (self-signed unless `issuer`: an intermediate). */
export async function makeCa (commonName = 'Test CA', opts: Partial<IssueOptions> = {}): Promise<Issued> {
  return await issue({ commonName, usage: 'ca', days: 3650, ...opts })
}

/** A server certificate for localhost, 127.0.0.1 and ::1. */
export async function makeServerCert (ca: Issued, opts: Partial<IssueOptions> = {}): Promise<Issued> {
  return await issue({ commonName: 'localhost', usage: 'server', issuer: ca, dns: ['localhost'], ip: ['127.0.0.1', '::1'], ...opts })
}

/** A device (TLS client) certificate with CN `commonName`; without `issuer` in opts, signed by `ca`. */
export async function makeDeviceCert (ca: Issued | undefined, commonName: string, opts: Partial<IssueOptions> = {}): Promise<Issued> {
  return await issue({ commonName, usage: 'client', ...(ca === undefined ? {} : { issuer: ca }), ...opts })
}

/** A certificate whose validity ended yesterday (a month long). */
export const expiredDates = (): Pick<IssueOptions, 'notBefore' | 'notAfter'> =>
  ({ notBefore: new Date(Date.now() - 31 * DAY_MS), notAfter: new Date(Date.now() - DAY_MS) })

/** A temporary folder for PEM files; `write` puts a text in it and answers its path, `replace` renames a new one over. */
export interface PemDir {
  dir: string
  write (name: string, text: string): string
  /** Writes the text beside the file and renames it over, as certificate tools do. */
  replace (name: string, text: string): string
  path (name: string): string
  remove (): void
}

export function pemDir (): PemDir {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-pki-'))
  let n = 0
  return {
    dir,
    path: (name) => join(dir, name),
    write (name, text) {
      writeFileSync(join(dir, name), text, { mode: 0o600 })
      return join(dir, name)
    },
    replace (name, text) {
      const tmp = join(dir, `.${name}.${++n}.tmp`)
      writeFileSync(tmp, text, { mode: 0o600 })
      renameSync(tmp, join(dir, name))
      return join(dir, name)
    },
    remove () { rmSync(dir, { recursive: true, force: true }) }
  }
}

/** The TLS variables of a service with this server certificate (and client CAs, when given) written in `dir`. */
export function tlsEnv (dir: PemDir, server: Issued, clientCa?: Issued): Record<string, string> {
  return {
    TLS_CERT_FILE: dir.write('server.pem', server.cert),
    TLS_KEY_FILE: dir.write('server-key.pem', server.key),
    ...(clientCa === undefined ? {} : { TLS_CLIENT_CA_FILE: dir.write('client-ca.pem', clientCa.cert) })
  }
}
