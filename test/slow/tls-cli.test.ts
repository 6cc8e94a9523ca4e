// The TLS side of the real command line (docs/cli.md#fleet-certs-dev, docs/security.md#tls): `fleet certs dev` writes a
// development CA, a server certificate and a device certificate, overwriting nothing; `fleet serve` on those files
// answers over TLS, reads them again on SIGHUP, and refuses to start, in one line, with a key of another certificate.
import { X509Certificate, createPrivateKey } from 'node:crypto'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runFleet, spawnFleet } from '../helpers/child.js'
import { quiet, storeKinds, type Store } from '../helpers/cli-stores.js'
import { eventually } from '../helpers/eventually.js'
import { makeServerCert } from '../helpers/pki.js'
import { run, serverFingerprint } from '../helpers/tls-clients.js'
import { loadIssued } from '../../bin/pki.js'
import { certsCommand } from '../../bin/certs.js'

const FILES = ['ca.pem', 'ca-key.pem', 'server.pem', 'server-key.pem', 'device.pem', 'device-key.pem']
const YEAR_MS = 365 * 86_400_000

let work: string
beforeAll(async () => { work = await mkdtemp(join(tmpdir(), 'fleet-tls-cli-')) })
afterAll(async () => { await rm(work, { recursive: true, force: true }) })

describe('fleet certs', { timeout: 120_000 }, () => {
  it('answers --help at once, before anything is loaded', async () => {
    const started = Date.now()
    const r = await runFleet(['certs', '--help'], { ...quiet, HTTP_PORT: 'abc' })
    const ms = Date.now() - started
    expect(r).toMatchObject({ code: 0, stderr: '' })
    expect(r.stdout).toMatch(/^usage: fleet certs\n {2}certs dev --serial <sn> \[--out <dir>\]/)
    expect(ms).toBeLessThan(1000)
  })

  it('dev writes a CA, a localhost server certificate and a device certificate, keys 0600, and overwrites none', async () => {
    const out = join(work, 'set')
    const r = await runFleet(['certs', 'dev', '--serial', 'SN-0001', '--out', out], {})
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    for (const f of FILES) expect(statSync(join(out, f)).mode & 0o777).toBe(f.endsWith('-key.pem') ? 0o600 : 0o644)
    const cert = (f: string): X509Certificate => new X509Certificate(readFileSync(join(out, f)))
    const [ca, server, device] = [cert('ca.pem'), cert('server.pem'), cert('device.pem')]
    expect(ca.ca).toBe(true)
    expect(Date.parse(ca.validTo) - Date.parse(ca.validFrom)).toBeGreaterThan(9.9 * YEAR_MS)
    expect(server.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1')
    expect(device.subject).toBe('CN=SN-0001')
    for (const [c, key] of [[server, 'server-key.pem'], [device, 'device-key.pem']] as const) {
      expect(c.verify(ca.publicKey)).toBe(true)
      expect(c.checkPrivateKey(createPrivateKey(readFileSync(join(out, key))))).toBe(true)
      expect(c.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1')
      expect(Date.parse(c.validTo) - Date.parse(c.validFrom)).toBeLessThan(1.01 * YEAR_MS)
    }
    expect(r.stdout).toContain(`SHA-256 fingerprint ${device.fingerprint256.replace(/:/g, '').toLowerCase()}`)
    // A second run, or one where only one of the files exists, changes nothing.
    const before = FILES.map((f) => readFileSync(join(out, f), 'utf8'))
    const again = await runFleet(['certs', 'dev', '--serial', 'SN-0002', '--out', out], {})
    expect(again).toMatchObject({ code: 1, stdout: '', stderr: `fleet: ${join(out, 'ca.pem')} exists already: fleet certs dev overwrites nothing (remove the files, or give another --out)\n` })
    expect(FILES.map((f) => readFileSync(join(out, f), 'utf8'))).toEqual(before)
    const partial = join(work, 'partial')
    await runFleet(['certs', 'dev', '--serial', 'SN-0003', '--out', partial], {})
    await rm(join(partial, 'ca.pem'))
    expect((await runFleet(['certs', 'dev', '--serial', 'SN-0003', '--out', partial], {})).code).toBe(1)
    expect(existsSync(join(partial, 'ca.pem'))).toBe(false)
  })

  it('dev refuses a missing serial number in one line', async () => {
    const r = await runFleet(['certs', 'dev', '--out', join(work, 'none')], {})
    expect(r).toMatchObject({ code: 1, stdout: '' })
    expect(r.stderr).toMatch(/^fleet: --serial is needed .*\n$/)
    expect(existsSync(join(work, 'none'))).toBe(false)
  })
})

describe.each(storeKinds())('fleet serve over TLS, %s', (_kind, makeStore) => {
  let store: Store
  let dir: string
  beforeAll(async () => {
    store = await makeStore()
    dir = join(work, `serve-${Math.random().toString(36).slice(2)}`)
    // The command's own code, in this process (a child of the CLI can only be started inside a test).
    await certsCommand(['dev', '--serial', 'SN-0100', '--out', dir])
  }, 60_000)
  afterAll(async () => { await store.drop() })

  const tlsFiles = (): Record<string, string> => ({ TLS_CERT_FILE: join(dir, 'server.pem'), TLS_KEY_FILE: join(dir, 'server-key.pem'), TLS_CLIENT_CA_FILE: join(dir, 'ca.pem') })

  it('refuses to start with a key of another certificate, naming TLS_KEY_FILE, before the store is opened', async () => {
    const dataDir = join(work, 'never-created')
    const r = await runFleet(['serve'], { ...quiet, HTTP_PORT: '0', DATA_DIR: dataDir, ...tlsFiles(), TLS_KEY_FILE: join(dir, 'device-key.pem') })
    expect(r).toMatchObject({ code: 1, stdout: '', stderr: 'fleet: invalid configuration: TLS_KEY_FILE does not match the certificate of TLS_CERT_FILE (its first PEM block)\n' })
    expect(existsSync(dataDir)).toBe(false)
  })

  it('answers over TLS, and on SIGHUP reads the files again: the next handshake gets the new certificate', async () => {
    const child = spawnFleet(['serve'], { ...store.env, ...quiet, HTTP_PORT: '0', MQTTS_PORT: '0', HTTPS_PORT: '0', LOG_LEVEL: 'info', PASSWORD_HASH_COST: '10', ...tlsFiles() })
    const started = JSON.parse(await child.waitForLine(/fleet service started/)) as { httpsPort: number, ports: { mqtts: number } }
    const ca = readFileSync(join(dir, 'ca.pem'), 'utf8')
    const health = await run('curl', ['-sS', '--cacert', join(dir, 'ca.pem'), `https://localhost:${started.httpsPort}/health`])
    expect(health.stdout).toBe('{"status":"ok"}')
    const first = await serverFingerprint(started.ports.mqtts, { ca })
    // Nothing changed: a SIGHUP reloads all the same (and does not end the process, as it would without a handler).
    child.signal('SIGHUP')
    await child.waitForLine(/"reason":"SIGHUP".*TLS certificate reloaded|TLS certificate reloaded.*"reason":"SIGHUP"/, 20_000)
    // A new certificate from the same CA in place of the old, then SIGHUP.
    const renewed = await renew(dir)
    child.signal('SIGHUP')
    await eventually(async () => await serverFingerprint(started.ports.mqtts, { ca }) === renewed, 20_000, 'the renewed certificate served')
    expect(renewed).not.toBe(first)
    expect(await serverFingerprint(started.httpsPort, { ca })).toBe(renewed)
    child.signal('SIGTERM')
    expect((await child.exited()).code).toBe(0)
  }, 120_000)
})

/** A server certificate signed by the development CA's key on disk, written over server.pem and server-key.pem. */
async function renew (dir: string): Promise<string> {
  const ca = await loadIssued(readFileSync(join(dir, 'ca.pem'), 'utf8'), readFileSync(join(dir, 'ca-key.pem'), 'utf8'))
  const renewed = await makeServerCert(ca)
  await writeFile(join(dir, 'server-key.pem'), renewed.key)
  await writeFile(join(dir, 'server.pem'), renewed.cert)
  return renewed.fingerprint
}
