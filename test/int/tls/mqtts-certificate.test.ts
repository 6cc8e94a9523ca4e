// The client certificate a device presents on MQTTS_PORT travels with its connection into the MQTT session (and the
// registry's view of it), as the TLS handshake found it: verified against TLS_CLIENT_CA_FILE and the CAs given by
// setClientCAs (the companies' registered CAs), or not, with OpenSSL's reason. The MQTT endpoint and the MQTTS
// listener are wired here as mqtt.transport.ts wires them, over the devices service of a real store whose certificate
// login logs the device in by its password whatever it presented: which certificate logs in which system is the
// certificates service's business (test/int/certificates), what reaches the session is this file's.
import type { MqttClient } from 'mqtt'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../../core/config.js'
import { createMqttEndpoint, type MqttEndpoint } from '../../../ingest/mqtt/endpoint.js'
import { createMqttsListener, type MqttsListener } from '../../../ingest/mqtt/mqtts-listener.js'
import { createConnectionRegistry, type ConnectionRegistry } from '../../../ingest/mqtt/registry.js'
import { mqttPublishHandler } from '../../../ingest/mqtt/publish.js'
import { createPipeline } from '../../../ingest/pipeline.js'
import { createLoginGate } from '../../../ingest/login-gate.js'
import { createDeviceLimits } from '../../../ingest/device-limits.js'
import { createTlsListeners, type TlsListeners } from '../../../ingest/tls/tls-listeners.js'
import { createPromRegistry } from '../../../metrics/prom-registry.js'
import { startStack, type Stack } from '../../helpers/stack.js'
import { connectDevice, createDevice, endAll, type Device } from '../../helpers/devices.js'
import { expiredDates, makeCa, makeDeviceCert, makeServerCert, pemDir, tlsEnv, type Issued, type PemDir } from '../../helpers/pki.js'

let stack: Stack
let dir: PemDir
let ca: Issued
let companyCa: Issued
let tls: TlsListeners
let registry: ConnectionRegistry
let endpoint: MqttEndpoint
let listener: MqttsListener
let port: number
let device: Device

beforeAll(async () => {
  stack = await startStack()
  device = await createDevice(stack)
  dir = pemDir()
  ca = await makeCa('Operator CA')
  companyCa = await makeCa('Company CA', { key: 'RSA-2048' })
  const log = pino({ level: 'silent' })
  const metrics = createPromRegistry()
  tls = await createTlsListeners(loadConfig(tlsEnv(dir, await makeServerCert(ca), ca)), log)
  registry = createConnectionRegistry()
  const loginGate = createLoginGate({ transport: 'mqtt', perAddress: 10, timeoutMs: 10_000, metrics })
  const devices = stack.ctx.services.devices
  const byPassword = async (): ReturnType<typeof devices.authenticate> => await devices.authenticate(device.serial, device.mqttPassword ?? '', 'mqtt', '127.0.0.1')
  endpoint = await createMqttEndpoint({
    devices: { ...devices, authenticateCertificate: byPassword },
    log,
    publish: mqttPublishHandler(createPipeline({ ingest: stack.ctx.services.ingest, now: Date.now, protocol: 'MQTT' })),
    registry,
    onTasksSubscribed: () => {},
    onTasksReceived: () => {},
    loginGate,
    limits: createDeviceLimits({ config: stack.config, metrics, now: Date.now, protocol: 'MQTT' })
  })
  listener = createMqttsListener({ tls, loginGate, connectTimeoutMs: 10_000, serve: endpoint.handle })
  port = await listener.listen(0, '127.0.0.1')
})
afterAll(async () => {
  await listener.close()
  await endpoint.close()
  tls.close()
  await stack.close()
  dir.remove()
})

/** Connects with the device's password and this client certificate; answers the session's certificate as registered. */
async function presented (cert: Issued | undefined): Promise<unknown> {
  const client: MqttClient = await connectDevice(`mqtts://localhost:${port}`, device.serial, device.mqttPassword ?? '',
    { ca: ca.cert, ...(cert === undefined ? {} : { cert: cert.cert, key: cert.key }) })
  try {
    const [c] = registry.all().filter((x) => x.session.systemUid === device.uid)
    return c?.certificate
  } finally {
    await endAll(client)
  }
}

describe('the certificate of an MQTTS connection', () => {
  it('is verified under TLS_CLIENT_CA_FILE: fingerprint, CN, SANs and its CA', async () => {
    const cert = await makeDeviceCert(ca, device.serial, { uri: [`urn:imei:${device.imei}`] })
    expect(await presented(cert)).toEqual({
      fingerprint: cert.fingerprint,
      verified: true,
      issuers: [ca.fingerprint],
      commonName: device.serial,
      altNames: [`urn:imei:${device.imei}`],
      notBefore: cert.x509.notBefore.getTime(),
      notAfter: cert.x509.notAfter.getTime()
    })
  })

  it('is not verified, with OpenSSL\'s reason, when self-signed, expired or under a CA not trusted yet', async () => {
    expect(await presented(await makeDeviceCert(undefined, device.serial))).toMatchObject({ verified: false, error: 'DEPTH_ZERO_SELF_SIGNED_CERT', issuers: [] })
    expect(await presented(await makeDeviceCert(ca, device.serial, expiredDates()))).toMatchObject({ verified: false, error: 'CERT_HAS_EXPIRED', issuers: [] })
    expect(await presented(await makeDeviceCert(companyCa, device.serial))).toMatchObject({ verified: false, error: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', issuers: [] })
  })

  it('is verified under a CA given by setClientCAs from the next handshake on, and no longer once it is taken away', async () => {
    const cert = await makeDeviceCert(companyCa, device.serial)
    tls.setClientCAs([companyCa.cert, 'not a certificate'])
    expect(await presented(cert)).toMatchObject({ fingerprint: cert.fingerprint, verified: true, issuers: [companyCa.fingerprint] })
    // The file's CA is still trusted beside it.
    expect(await presented(await makeDeviceCert(ca, device.serial))).toMatchObject({ verified: true, issuers: [ca.fingerprint] })
    tls.setClientCAs([])
    expect(await presented(await makeDeviceCert(companyCa, device.serial))).toMatchObject({ verified: false })
  })

  it('is absent when the device presents none (one-way TLS)', async () => {
    expect(await presented(undefined)).toBeUndefined()
  })
})
