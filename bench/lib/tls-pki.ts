// Certificates for `npm run bench -- tls`, issued by the same code as `fleet certs dev` (bin/pki.ts): a CA and a
// server certificate for localhost of one key kind, device certificates named by their serial numbers (under a CA
// or self-signed, to be pinned), the server's files in a temporary folder, and their registration through the API
// (docs/api.md "Device certificates and company CAs").
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { issue, type Issued, type KeyKind } from '../../bin/pki.js'

export type { Issued, KeyKind }

/** A CA and the service's certificate it issued (localhost, 127.0.0.1), both of one key kind. */
export interface ServerPki { kind: KeyKind, ca: Issued, server: Issued }

export async function serverPki (kind: KeyKind): Promise<ServerPki> {
  const ca = await issue({ commonName: `Bench ${kind} CA`, usage: 'ca', days: 30, key: kind })
  const server = await issue({ commonName: 'localhost', usage: 'server', issuer: ca, dns: ['localhost'], ip: ['127.0.0.1'], key: kind })
  return { kind, ca, server }
}

/** A device certificate per serial number (its CN): signed by `ca`, or self-signed without one (pinned). */
export async function deviceCerts (ca: Issued | undefined, serials: readonly string[], kind: KeyKind): Promise<Issued[]> {
  const out: Issued[] = []
  for (const cn of serials) out.push(await issue({ commonName: cn, usage: 'client', key: kind, ...(ca === undefined ? {} : { issuer: ca }) }))
  return out
}

/** A temporary folder for the service's TLS_CERT_FILE and TLS_KEY_FILE. */
export interface ServerFiles {
  env: { TLS_CERT_FILE: string, TLS_KEY_FILE: string }
  /** Writes a certificate and its key, each renamed over the one before (as certificate tools do). */
  write (pki: ServerPki): Promise<void>
  remove (): Promise<void>
}

export async function serverFiles (): Promise<ServerFiles> {
  const dir = await mkdtemp(join(tmpdir(), 'fleet-bench-tls-'))
  const env = { TLS_CERT_FILE: join(dir, 'server.pem'), TLS_KEY_FILE: join(dir, 'server-key.pem') }
  const put = async (path: string, text: string): Promise<void> => {
    await writeFile(`${path}.tmp`, text, { mode: 0o600 })
    await rename(`${path}.tmp`, path)
  }
  return {
    env,
    async write (pki) {
      await put(env.TLS_KEY_FILE, pki.server.key)
      await put(env.TLS_CERT_FILE, pki.server.cert)
    },
    async remove () { await rm(dir, { recursive: true, force: true }) }
  }
}

async function post (url: string, token: string, body: unknown): Promise<void> {
  const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  if (res.status !== 200) throw new Error(`POST ${new URL(url).pathname}: ${res.status} ${await res.text()}`)
  await res.arrayBuffer()
}

/** Registers `ca` as a CA of the company: the certificates it signed then log in the systems their CN names. */
export async function registerCa (origin: string, token: string, companyUid: string, ca: Issued): Promise<void> {
  await post(`${origin}/api/v1/companies/${companyUid}/cas`, token, { certificate: ca.cert })
}

/** Pins each certificate on its system (`systemUids[i]` for `certs[i]`). */
export async function pinCertificates (origin: string, token: string, systemUids: readonly string[], certs: readonly Issued[]): Promise<void> {
  for (const [i, cert] of certs.entries()) await post(`${origin}/api/v1/systems/${systemUids[i] ?? ''}/certificates`, token, { certificate: cert.cert })
}
