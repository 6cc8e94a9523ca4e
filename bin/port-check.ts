// Every port of a start is tried before the store is opened: migrating an embedded store takes tens of seconds on a
// first start, and a busy port found only after that (Mosquitto on 1883, a second service) kept a user waiting for
// a one-line answer.
import { createServer, type Server } from 'node:net'
import type { Config } from '../core/config.js'
import { portFailure } from './start-failure.js'

/** The variables of the ports the device transports listen on (each transport's `port.variable`). */
export const TRANSPORT_PORTS = ['MQTT_PORT', 'M3DA_PORT'] as const satisfies ReadonlyArray<keyof Config>

type PortConfig = Pick<Config, 'HTTP_HOST' | 'HTTP_PORT' | 'FLEET_ROLES' | 'MQTT_URL' | typeof TRANSPORT_PORTS[number]>

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
  const wanted: Array<[string, number]> = [['HTTP_PORT', config.HTTP_PORT]]
  // With MQTT_URL the devices connect to that broker and the service binds no MQTT port
  // (docs/cluster.md#external-mqtt-broker-ingest): a busy MQTT_PORT, often that very broker on 1883, is none of its
  // business.
  const ports = TRANSPORT_PORTS.filter((v) => !(v === 'MQTT_PORT' && config.MQTT_URL !== undefined))
  if (config.FLEET_ROLES.includes('ingest')) for (const v of ports) wanted.push([v, config[v]])
  const held: Server[] = []
  try {
    for (const [variable, port] of wanted) {
      if (port === 0) continue
      held.push(await hold(port, config.HTTP_HOST).catch((err: unknown) => { throw portFailure(variable, port, config.HTTP_HOST, err) }))
    }
  } finally {
    await Promise.all(held.map(async (s) => { await new Promise((resolve) => { s.close(resolve) }) }))
  }
}
