// A real service process for the slow tests that kill it (`fleet serve`, the build: child.ts): fixed free ports, so
// that a restart on the same store answers where the devices and the test reconnect, and the environment those tests
// share.
import { restartablePort, spawnFleet, type Child } from './child.js'
import { eventually } from './eventually.js'
import type { Store } from './cli-stores.js'

export interface CliService {
  env: Record<string, string>
  httpPort: number
  mqttPort: number
  /** Starts the service and waits until it has started (a cold PGlite start on busy cores takes tens of seconds). */
  serve (): Promise<Child>
}

async function twoFreePorts (): Promise<[number, number]> {
  for (;;) {
    const a = await restartablePort()
    const b = await restartablePort()
    if (a !== b) return [a, b]
  }
}

/** The service on the store, HTTP and MQTT on loopback ports chosen now, with `extra` variables. */
export async function cliService (store: Pick<Store, 'env'>, extra: Record<string, string> = {}, startTimeoutMs = 90_000): Promise<CliService> {
  const [httpPort, mqttPort] = await twoFreePorts()
  const env = {
    ...store.env,
    HTTP_HOST: '127.0.0.1',
    HTTP_PORT: String(httpPort),
    MQTT_PORT: String(mqttPort),
    M3DA_PORT: '0',
    LWM2M_PORT: '0',
    LWM2MS_PORT: '0',
    LOG_LEVEL: 'info',
    RATE_LIMIT_PER_S: '100000',
    // The test stacks' scrypt cost (stack.ts): sign-ins are not what these tests measure.
    PASSWORD_HASH_COST: '10',
    ...extra
  }
  return {
    env,
    httpPort,
    mqttPort,
    async serve () {
      const child = spawnFleet(['serve'], env)
      await child.waitForLine(/fleet service started/, startTimeoutMs)
      return child
    }
  }
}

/** Polls until ok, failing after timeoutMs with what was awaited (and what was seen): eventually() under its old name. */
export async function until (what: string, ok: () => boolean | Promise<boolean>, timeoutMs: number, seen: () => string = () => ''): Promise<void> {
  await eventually(ok, { timeoutMs, what, seen })
}
