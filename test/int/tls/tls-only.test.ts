// HTTP_PORT=off and MQTT_PORT=off (docs/security.md#tls): only the TLS listeners are bound, HTTPS serves the API and
// the download links name it; a start whose key does not match its certificate fails, naming TLS_KEY_FILE.
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../../core/config.js'
import { createTlsListeners } from '../../../ingest/tls/tls-listeners.js'
import type { PackageDownloadsRepository } from '../../../core/ports/package-downloads.js'
import { startStack, type Stack } from '../../helpers/stack.js'
import { connectDevice, createDevice, endAll, messagesOf, publish } from '../../helpers/devices.js'
import { makeCa, makeServerCert, pemDir, tlsEnv, type Issued, type PemDir } from '../../helpers/pki.js'
import { run } from '../../helpers/tls-clients.js'

let dir: PemDir
let ca: Issued
let stack: Stack

beforeAll(async () => {
  dir = pemDir()
  ca = await makeCa()
  stack = await startStack({ listen: true, env: { ...tlsEnv(dir, await makeServerCert(ca)), HTTP_PORT: 'off', MQTT_PORT: 'off' } })
})
afterAll(async () => {
  await stack.close()
  dir.remove()
})

describe('the plain listeners switched off', () => {
  it('bind only HTTPS and MQTTS (M3DA and LwM2M keep their ports), and serve the API and MQTT over them', async () => {
    expect(stack.api.server.listening).toBe(false)
    expect(Object.keys(stack.ports).sort()).toEqual(['lwm2m', 'lwm2ms', 'm3da', 'mqtts'])
    expect(stack.service.transports.flatMap((t) => t.listeners ?? []).map((l) => l.variable)).not.toContain('MQTT_PORT')
    const caFile = dir.write('ca.pem', ca.cert)
    const users = await run('curl', ['-sS', '--cacert', caFile, '-H', `authorization: Bearer ${stack.adminToken}`, `${stack.httpsUrl.replace('127.0.0.1', 'localhost')}/api/v1/users/current`])
    expect(JSON.parse(users.stdout)).toMatchObject({ uid: stack.adminUid })
    const ready = await run('curl', ['-sS', '--cacert', caFile, '-w', ' %{http_code}', `${stack.httpsUrl.replace('127.0.0.1', 'localhost')}/ready`])
    expect(ready.stdout).toMatch(/ 200$/)
    const device = await createDevice(stack)
    const client = await connectDevice(`mqtts://localhost:${stack.ports.mqtts ?? 0}`, device.serial, device.mqttPassword ?? '', { ca: ca.cert })
    expect(await publish(client, `${device.serial}/messages/json`, '{"tls.only": 1}')).toBe(0)
    await endAll(client)
    expect(await messagesOf(stack, device.uid)).toHaveLength(1)
  })

  it('gives install tasks download links to the HTTPS port', async () => {
    const nowhere = { insert: async () => {} } as unknown as PackageDownloadsRepository
    const link = await stack.ctx.services.downloads.link({ systemUid: 's', taskUid: 't', artifact: 'a', file: 'f.bin', size: 1, expiresAt: Date.now() + 60_000 }, nowhere)
    expect(link.startsWith(`${stack.httpsUrl}/device/packages/`)).toBe(true)
  })
})

describe('a start with TLS files that do not fit', () => {
  it('fails naming TLS_KEY_FILE when the key is another certificate\'s', async () => {
    const other = await makeServerCert(ca)
    const config = loadConfig({ TLS_CERT_FILE: dir.write('cert.pem', (await makeServerCert(ca)).cert), TLS_KEY_FILE: dir.write('other-key.pem', other.key) })
    const err = await createTlsListeners(config, pino({ level: 'silent' })).then(() => undefined, (e: unknown) => e)
    expect(err).toBeInstanceOf(ConfigError)
    expect((err as ConfigError).message).toBe('invalid configuration: TLS_KEY_FILE does not match the certificate of TLS_CERT_FILE (its first PEM block)')
  })
})
