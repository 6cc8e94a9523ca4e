// `npx fleet simulate ...`: a simulated fleet against a running service (simulator/README.md). The defaults come
// from the service configuration, so the same environment that runs `fleet serve` drives the simulator.
import type { Config } from '../core/config.js'
import { runSimulateCli, SIMULATE_USAGE, UsageError } from '../simulator/cli.js'

/** The port of SMS_GATEWAY_URL when it names this machine: the simulator's receiver listens there by default. */
export function localSmsGatewayPort (smsGatewayUrl: string | undefined): number | undefined {
  if (smsGatewayUrl === undefined) return undefined
  const u = new URL(smsGatewayUrl)
  if (u.protocol !== 'http:' || !['localhost', '127.0.0.1', '[::1]'].includes(u.hostname)) return undefined
  return u.port === '' ? 80 : Number(u.port)
}

export async function simulate (config: Readonly<Config>, argv: string[]): Promise<number> {
  const host = config.HTTP_HOST === '0.0.0.0' || config.HTTP_HOST === '::' ? 'localhost' : config.HTTP_HOST
  const stop = new AbortController()
  const onSignal = (): void => { stop.abort() }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  try {
    return await runSimulateCli(argv, {
      url: `http://${host}:${config.HTTP_PORT}`,
      mqttUrl: `mqtt://${host}:${config.MQTT_PORT}`,
      m3daUrl: `tcp://${host}:${config.M3DA_PORT}`,
      clientId: config.FLEET_CLIENT_ID,
      clientSecret: config.FLEET_CLIENT_SECRET,
      email: config.FLEET_ADMIN_EMAIL,
      password: config.FLEET_ADMIN_PASSWORD,
      smsGatewayPort: localSmsGatewayPort(config.SMS_GATEWAY_URL)
    }, { out: process.stdout, signal: stop.signal })
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    process.stderr.write(`fleet simulate: ${err.message}\n${SIMULATE_USAGE}\n`)
    return 2
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
}
