// Every port of a start is tried before the store is opened: migrating an embedded store takes tens of seconds on a
// first start, and a busy port found only after that (Mosquitto on 1883, a second service) kept a user waiting for
// a one-line answer.
import { createServer, type Server } from 'node:net'
import { tlsEnabled, type Config, type PortOrOff } from '../core/config.js'
import { portFailure } from './start-failure.js'

type PortConfig = Pick<Config, 'HTTP_HOST' | 'HTTP_PORT' | 'FLEET_ROLES' | 'MQTT_URL' | 'MQTT_PORT' | 'M3DA_PORT'> &
  Partial<Pick<Config, 'HTTPS_PORT' | 'MQTTS_PORT' | 'TLS_CERT_FILE' | 'TLS_KEY_FILE'>>

/** The ports this process will bind, by variable (a port switched off, or of a listener it will not have, is not). */
function wantedPorts (config: Readonly<PortConfig>): Array<[string, PortOrOff | undefined]> {
  const tls = tlsEnabled({ TLS_CERT_FILE: config.TLS_CERT_FILE, TLS_KEY_FILE: config.TLS_KEY_FILE })
  const wanted: Array<[string, PortOrOff | undefined]> = [['HTTP_PORT', config.HTTP_PORT], ['HTTPS_PORT', tls ? config.HTTPS_PORT : undefined]]
  if (!config.FLEET_ROLES.includes('ingest')) return wanted
  // With MQTT_URL the devices connect to that broker and the service binds no MQTT port
  // (docs/cluster.md#external-mqtt-broker-ingest): a busy MQTT_PORT, often that very broker on 1883, is none of its
  // business.
  const embedded = config.MQTT_URL === undefined
  wanted.push(['MQTT_PORT', embedded ? config.MQTT_PORT : undefined], ['MQTTS_PORT', embedded && tls ? config.MQTTS_PORT : undefined], ['M3DA_PORT', config.M3DA_PORT])
  return wanted
}

async function hold (port: number, host: string): Promise<Server> {
  const server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen({ port, host, exclusive: true }, () => { server.off('error', reject); resolve() })
  })
  return server
}

/**
 * Binds each configured port of this process's roles at once, then frees them all; throws the StartFailure of the
 * first that cannot be bound. All are held together, so that two variables given the same port are found too.
 * Port 0 (any free port) is not tried.
 */
export async function checkPorts (config: Readonly<PortConfig>): Promise<void> {
  const held: Server[] = []
  try {
    for (const [variable, port] of wantedPorts(config)) {
      if (port === 0 || port === 'off' || port === undefined) continue
      held.push(await hold(port, config.HTTP_HOST).catch((err: unknown) => { throw portFailure(variable, port, config.HTTP_HOST, err) }))
    }
  } finally {
    await Promise.all(held.map(async (s) => { await new Promise((resolve) => { s.close(resolve) }) }))
  }
}
