// Reload of the TLS files (docs/security.md#tls): a certificate renewed on disk (written beside and renamed over, as
// certificate tools do) is taken by the next handshake while open connections go on; a bad new file keeps the old one
// and logs one line naming its variable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../../bin/logger.js'
import { startStack, type Stack } from '../../helpers/stack.js'
import { connectDevice, createDevice, endAll, eventually, messagesOf, publish, type Device } from '../../helpers/devices.js'
import { makeCa, makeServerCert, pemDir, tlsEnv, type Issued, type PemDir } from '../../helpers/pki.js'
import { serverFingerprint } from '../../helpers/tls-clients.js'

const lines: string[] = []
const capture = { write (line: string): void { lines.push(line) } }
const logged = (re: RegExp): Array<Record<string, unknown>> => lines.filter((l) => re.test(l)).map((l) => JSON.parse(l) as Record<string, unknown>)

let dir: PemDir
let ca: Issued
let first: Issued
let stack: Stack
let device: Device

beforeAll(async () => {
  dir = pemDir()
  ca = await makeCa()
  first = await makeServerCert(ca)
  stack = await startStack({ listen: true, env: tlsEnv(dir, first), log: createLogger({ LOG_LEVEL: 'info', LOG_FORMAT: 'json' }, capture) })
  device = await createDevice(stack)
})
afterAll(async () => {
  await stack.close()
  dir.remove()
})

const mqtts = (): number => stack.ports.mqtts ?? 0
const https = (): number => Number(new URL(stack.httpsUrl).port)

describe('TLS reload', () => {
  it('takes a certificate renamed over the old one at the next handshake; an open MQTTS connection goes on', async () => {
    expect(await serverFingerprint(mqtts(), { ca: ca.cert })).toBe(first.fingerprint)
    const client = await connectDevice(`mqtts://localhost:${mqtts()}`, device.serial, device.mqttPassword ?? '', { ca: ca.cert })
    const renewed = await makeServerCert(ca, { key: 'RSA-2048' })
    // The key first, then the certificate: between the two renames the pair does not match, which must not stick.
    dir.replace('server-key.pem', renewed.key)
    dir.replace('server.pem', renewed.cert)
    await eventually(() => logged(/TLS certificate reloaded/).some((l) => l.fingerprint === renewed.fingerprint), 10_000, 'the reload logged')
    expect(await serverFingerprint(mqtts(), { ca: ca.cert })).toBe(renewed.fingerprint)
    expect(await serverFingerprint(https(), { ca: ca.cert })).toBe(renewed.fingerprint)
    const before = (await messagesOf(stack, device.uid)).length
    expect(await publish(client, `${device.serial}/messages/json`, '{"after.reload": 1}')).toBe(0)
    expect((await messagesOf(stack, device.uid)).length).toBe(before + 1)
    await endAll(client)
  })

  it('keeps the certificate in use when the new key does not match, logging one line that names TLS_KEY_FILE', async () => {
    const inUse = await serverFingerprint(mqtts(), { ca: ca.cert })
    const errorsBefore = logged(/TLS files not reloaded/).length
    const stranger = await makeServerCert(ca)
    dir.replace('server-key.pem', stranger.key)
    const [error] = await eventually(() => {
      const found = logged(/TLS files not reloaded/).slice(errorsBefore)
      return found.length > 0 ? found : undefined
    }, 10_000, 'the refused reload logged')
    expect(error).toMatchObject({ level: 50, variable: 'TLS_KEY_FILE', msg: 'TLS files not reloaded: TLS_KEY_FILE does not match the certificate of TLS_CERT_FILE (its first PEM block); the listeners keep the previous certificate' })
    expect(lines.join('\n')).not.toContain(stranger.key.split('\n')[1])
    expect(await serverFingerprint(mqtts(), { ca: ca.cert })).toBe(inUse)
    // A reload asked for explicitly (SIGHUP in `fleet serve`) refuses it the same way.
    expect(await stack.service.tls?.reload('SIGHUP')).toBe(false)
    expect(await serverFingerprint(https(), { ca: ca.cert })).toBe(inUse)
  })
})
