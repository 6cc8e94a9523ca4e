// Every port of a start is tried before the store is opened: migrating an embedded store takes tens of seconds on a
// first start, and a busy port found only after that (Mosquitto on 1883, a second service, another LwM2M server on
// 5683) kept a user waiting for a one-line answer.
import { createSocket } from 'node:dgram'
import { createServer } from 'node:net'
import { tlsEnabled, type Config, type PortOrOff } from '../core/config.js'
import { portFailure } from './start-failure.js'

type PortConfig = Pick<Config, 'HTTP_HOST' | 'HTTP_PORT' | 'FLEET_ROLES' | 'MQTT_URL' | 'MQTT_PORT' | 'M3DA_PORT'> &
  Partial<Pick<Config, 'HTTPS_PORT' | 'MQTTS_PORT' | 'TLS_CERT_FILE' | 'TLS_KEY_FILE' | 'LWM2M_PORT' | 'LWM2MS_PORT'>>

/** A port of a variable, and whether it is bound for TCP or UDP (the two never clash: 5683 may be both). */
interface Wanted { variable: string, port: PortOrOff | undefined, udp: boolean }

/** The ports this process will bind (a port switched off, or of a listener it will not have, is not). */
function wantedPorts (config: Readonly<PortConfig>): Wanted[] {
  const tls = tlsEnabled({ TLS_CERT_FILE: config.TLS_CERT_FILE, TLS_KEY_FILE: config.TLS_KEY_FILE })
  const tcp = (variable: string, port: PortOrOff | undefined): Wanted => ({ variable, port, udp: false })
  const wanted = [tcp('HTTP_PORT', config.HTTP_PORT), tcp('HTTPS_PORT', tls ? config.HTTPS_PORT : undefined)]
  if (!config.FLEET_ROLES.includes('ingest')) return wanted
  // With MQTT_URL the devices connect to that broker and the service binds no MQTT port
  // (docs/cluster.md#external-mqtt-broker-ingest): a busy MQTT_PORT, often that very broker on 1883, is none of its
  // business.
  const embedded = config.MQTT_URL === undefined
  wanted.push(tcp('MQTT_PORT', embedded ? config.MQTT_PORT : undefined), tcp('MQTTS_PORT', embedded && tls ? config.MQTTS_PORT : undefined), tcp('M3DA_PORT', config.M3DA_PORT))
  // LwM2M listens on UDP whatever the broker (docs/protocols/lwm2m.md).
  wanted.push({ variable: 'LWM2M_PORT', port: config.LWM2M_PORT, udp: true }, { variable: 'LWM2MS_PORT', port: config.LWM2MS_PORT, udp: true })
  return wanted
}

type Release = () => Promise<void>

async function holdTcp (port: number, host: string): Promise<Release> {
  const server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen({ port, host, exclusive: true }, () => { server.off('error', reject); resolve() })
  })
  return async () => { await new Promise((resolve) => { server.close(resolve) }) }
}

/** udp4, as the LwM2M listeners bind (protocols/coap/udp.ts, protocols/dtls/server.ts), so both fail alike. */
async function holdUdp (port: number, host: string): Promise<Release> {
  const socket = createSocket({ type: 'udp4' })
  await new Promise<void>((resolve, reject) => {
    const failed = (err: Error): void => { socket.close(); reject(err) }
    socket.once('error', failed)
    socket.bind({ port, address: host, exclusive: true }, () => { socket.off('error', failed); resolve() })
  })
  return async () => { await new Promise<void>((resolve) => { socket.close(() => { resolve() }) }) }
}

/**
 * Binds each configured port of this process's roles at once, then frees them all; throws the StartFailure of the
 * first that cannot be bound. All are held together, so that two variables given the same port are found too.
 * Port 0 (any free port) is not tried.
 */
export async function checkPorts (config: Readonly<PortConfig>): Promise<void> {
  const held: Release[] = []
  try {
    for (const { variable, port, udp } of wantedPorts(config)) {
      if (port === 0 || port === 'off' || port === undefined) continue
      const hold = udp ? holdUdp : holdTcp
      held.push(await hold(port, config.HTTP_HOST).catch((err: unknown) => { throw portFailure(variable, port, config.HTTP_HOST, err) }))
    }
  } finally {
    await Promise.all(held.map(async (release) => { await release() }))
  }
}
