import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError } from '../../../core/config.js'
import { readTlsFiles } from '../../../ingest/tls/tls-files.js'
import { makeCa, makeServerCert, pemDir, type Issued, type PemDir } from '../../helpers/pki.js'

let dir: PemDir
let ca: Issued
let server: Issued
let other: Issued

beforeAll(async () => {
  dir = pemDir()
  ca = await makeCa()
  server = await makeServerCert(ca)
  other = await makeServerCert(ca, { key: 'RSA-2048' })
})
afterAll(() => { dir.remove() })

async function refusal (files: { cert: string, key: string, ca?: string }): Promise<ConfigError> {
  const err = await readTlsFiles({ TLS_CERT_FILE: files.cert, TLS_KEY_FILE: files.key, TLS_CLIENT_CA_FILE: files.ca }).then(() => undefined, (e: unknown) => e)
  expect(err).toBeInstanceOf(ConfigError)
  return err as ConfigError
}

describe('the TLS files', () => {
  it('reads a certificate with its chain, its key and the client CAs', async () => {
    const material = await readTlsFiles({
      TLS_CERT_FILE: dir.write('chain.pem', server.cert + ca.cert),
      TLS_KEY_FILE: dir.write('key.pem', server.key),
      TLS_CLIENT_CA_FILE: dir.write('cas.pem', ca.cert + other.cert)
    })
    expect(material).toMatchObject({ fingerprint: server.fingerprint, key: server.key })
    expect(material.clientCAs).toHaveLength(2)
  })

  it('names TLS_KEY_FILE when the key belongs to another certificate, and shows nothing of the key', async () => {
    const err = await refusal({ cert: dir.write('a.pem', server.cert), key: dir.write('b.pem', other.key) })
    expect(err.message).toBe('invalid configuration: TLS_KEY_FILE does not match the certificate of TLS_CERT_FILE (its first PEM block)')
    // The key of an RSA certificate given as the certificate's own file: the first block decides.
    expect((await refusal({ cert: dir.write('c.pem', other.cert + server.cert), key: dir.write('d.pem', server.key) })).variable).toBe('TLS_KEY_FILE')
  })

  it('names the variable of a file that cannot be read or holds no PEM of its kind', async () => {
    const key = dir.write('key2.pem', server.key)
    const cert = dir.write('cert2.pem', server.cert)
    expect((await refusal({ cert: dir.path('missing.pem'), key })).message).toMatch(/^invalid configuration: TLS_CERT_FILE cannot be read: ENOENT \(.*missing\.pem\)$/)
    expect((await refusal({ cert: key, key })).message).toBe('invalid configuration: TLS_CERT_FILE holds no PEM certificate (-----BEGIN CERTIFICATE-----)')
    const broken = server.cert.replace(/^(-----BEGIN CERTIFICATE-----\n)(.{20})/, '$1AAAAAAAAAAAAAAAAAAAA')
    expect((await refusal({ cert: dir.write('broken.pem', broken), key })).variable).toBe('TLS_CERT_FILE')
    const keyErr = await refusal({ cert, key: cert })
    expect(keyErr.message).toBe('invalid configuration: TLS_KEY_FILE holds no unencrypted PEM private key')
    expect((await refusal({ cert, key, ca: key })).variable).toBe('TLS_CLIENT_CA_FILE')
  })
})
