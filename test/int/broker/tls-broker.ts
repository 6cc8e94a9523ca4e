// What the tests of device certificates at the external broker share: a Mosquitto of the test's own with the device
// TLS listener (test/helpers/mosquitto.ts `tls`, run by deploy/mosquitto/start.sh) and a service on it whose workers
// write the trust bundle (BROKER_CA_FILE); devices connecting by certificate alone.
import { readFileSync } from 'node:fs'
import mqtt, { type MqttClient } from 'mqtt'
import { onTestFinished } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { eventually } from '../../helpers/eventually.js'
import { startMosquitto, type Mosquitto } from '../../helpers/mosquitto.js'
import { makeCa, makeServerCert, pemDir, type Issued, type PemDir } from '../../helpers/pki.js'

export interface TlsBroker {
  dir: PemDir
  bundleFile: string
  /** The CA of the broker's server certificate, which devices verify the broker with. */
  brokerCa: Issued
  broker: Mosquitto
  stack: Stack
  close (): Promise<void>
}

/** `operatorCa`: TLS_CLIENT_CA_FILE; `crl`: the listener's crlfile (dir.path('crl.pem')), written now. */
export async function startTlsBroker (opts: { env?: Record<string, string>, operatorCa?: Issued, crl?: string } = {}): Promise<TlsBroker> {
  const dir = pemDir()
  const bundleFile = dir.path('device-cas.pem')
  const brokerCa = await makeCa('Broker CA')
  const server = await makeServerCert(brokerCa)
  const crlFile = opts.crl === undefined ? undefined : dir.write('crl.pem', opts.crl)
  const broker = await startMosquitto({ tls: { certFile: dir.write('server.pem', server.cert), keyFile: dir.write('server-key.pem', server.key), bundleFile, ...crlFile === undefined ? {} : { crlFile } } })
  const operator: Record<string, string> = opts.operatorCa === undefined ? {} : { TLS_CLIENT_CA_FILE: dir.write('operator-cas.pem', opts.operatorCa.cert) }
  const stack = await startStack({ env: { MQTT_URL: broker.adminUrl, BROKER_CA_FILE: bundleFile, WORKER_CONCURRENCY: '2', ...operator, ...opts.env } })
  return {
    dir,
    bundleFile,
    brokerCa,
    broker,
    stack,
    async close () {
      await stack.close()
      await broker.stop()
      dir.remove()
    }
  }
}

/** The bundle holds this certificate and the broker was restarted for it. */
export async function brokerTrusts (t: TlsBroker, pem: string, restartsBefore: number): Promise<void> {
  await eventually(() => readFileSync(t.bundleFile, 'utf8').includes(pem.trim()) && t.broker.restarts() > restartsBefore,
    { timeoutMs: 15_000, retryErrors: true, what: 'the bundle written and the broker restarted' })
}

/**
 * The QoS the broker grants c for topic; throws if c is or goes disconnected first. A restart of the broker for a new
 * bundle may close c between its login and its subscription: mqtt.js then keeps the SUBSCRIBE for a reconnection
 * that never comes (reconnectPeriod 0), and its promise never settles.
 */
export async function grantedQos (c: MqttClient, topic: string): Promise<number | undefined> {
  if (!c.connected) throw new Error('disconnected before subscribing')
  let onClose!: () => void
  const closed = new Promise<never>((_resolve, reject) => { onClose = () => { reject(new Error('disconnected while subscribing')) }; c.once('close', onClose) })
  try {
    return (await Promise.race([c.subscribeAsync(topic, { qos: 1 }), closed]))[0]?.qos
  } finally {
    c.off('close', onClose)
  }
}

/** A device's connection to the TLS listener with its certificate and no username: the client, or why it failed. */
export async function certConnect (t: TlsBroker, device: Issued): Promise<MqttClient | string> {
  try {
    const c = await mqtt.connectAsync(`mqtts://127.0.0.1:${t.broker.tlsPort ?? 0}`, { ca: t.brokerCa.cert, cert: device.cert, key: device.key, reconnectPeriod: 0, connectTimeout: 5000, protocolVersion: 4 })
    onTestFinished(async () => { await c.endAsync(true) })
    return c
  } catch (err) {
    return (err as Error).message
  }
}
