// docker-compose.yml as a user runs it (docs/store.md, docs/cluster.md): the service as an api, an ingest and
// a worker role, each with a health check on GET /health; Mosquitto with dynamic security and persistent sessions on
// a configurable host port; Redis keeping BullMQ's jobs (append-only file, noeviction). Docker is not needed: the file
// is read, and the health check command runs against real HTTP servers.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { parse } from 'yaml'
import { describe, expect, it, onTestFinished } from 'vitest'
import { ROOT, freePort } from '../helpers/child.js'

interface Compose { services: Record<string, { ports?: string[], command?: string[], volumes?: string[], healthcheck?: { test: string[] }, depends_on?: unknown, environment?: Record<string, string> }>, volumes: Record<string, unknown> }

const compose = async (): Promise<Compose> => parse(await readFile(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as Compose

/** Runs the health check command (CMD form) with the service's port replaced by port; answers its exit code. */
async function runHealthcheck (test: string[], port: number): Promise<number | null> {
  expect(test[0]).toBe('CMD')
  const [cmd = '', ...args] = test.slice(1).map((a) => a.replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`))
  const child = spawn(cmd === 'node' ? process.execPath : cmd, args, { stdio: 'ignore' })
  const [code] = await once(child, 'exit') as [number | null]
  return code
}

async function server (status: (url: string) => number): Promise<number> {
  const s = createServer((req, res) => { res.statusCode = status(req.url ?? ''); res.end('{}') }).listen(0, '127.0.0.1')
  await once(s, 'listening')
  onTestFinished(async () => { s.close(); await once(s, 'close') })
  const a = s.address()
  return typeof a === 'object' && a !== null ? a.port : 0
}

describe('docker-compose.yml', () => {
  it('runs the service as its three roles, on the external broker, each checked on GET /health', async () => {
    const { services } = await compose()
    for (const role of ['api', 'ingest', 'worker']) {
      expect(services[role]?.command).toEqual(['node', 'bin/fleet.mjs', 'serve', '--roles', role])
      expect(services[role]?.environment?.MQTT_URL).toMatch(/^mqtt:\/\/fleet:.*@mosquitto:1883$/)
      expect(services[role]?.healthcheck?.test.join(' ')).toContain('/health')
    }
  })

  it('keeps the broker\'s sessions and dynamic security on a volume, with room for what an ingest process misses', async () => {
    const { services, volumes } = await compose()
    expect(services.mosquitto?.volumes).toContain('mosquitto-data:/mosquitto/data')
    expect(volumes).toHaveProperty('mosquitto-data')
    const conf = await readFile(join(ROOT, 'deploy/mosquitto/mosquitto.conf'), 'utf8')
    expect(conf).toMatch(/^persistence true$/m)
    expect(conf).toMatch(/^max_queued_messages \d{6,}$/m)
    expect(conf).toMatch(/^plugin_opt_config_file \/mosquitto\/data\/dynamic-security\.json$/m)
  })

  it('checks the service on GET /health: healthy on 200, unhealthy on an error answer or a closed port', async () => {
    const test = (await compose()).services.api?.healthcheck?.test ?? []
    expect(test.join(' ')).toContain('/health')
    expect(await runHealthcheck(test, await server((url) => url === '/health' ? 200 : 404))).toBe(0)
    expect(await runHealthcheck(test, await server(() => 503))).toBe(1)
    expect(await runHealthcheck(test, await freePort())).toBe(1)
  }, 30_000)

  it('publishes MQTT on MQTT_HOST_PORT (default 1883)', async () => {
    // eslint-disable-next-line no-template-curly-in-string -- compose's own ${VAR:-default} substitution, not a JS template
    expect((await compose()).services.mosquitto?.ports).toContain('${MQTT_HOST_PORT:-1883}:1883')
  })

  it('gives the broker a device TLS listener trusting the bundle the workers write on a volume they share', async () => {
    const { services, volumes } = await compose()
    const worker = services.worker
    const bundle = worker?.environment?.BROKER_CA_FILE ?? ''
    const [volume = '', inWorker = ''] = worker?.volumes?.find((v) => bundle.startsWith(v.split(':')[1] ?? '-'))?.split(':') ?? []
    expect(volumes).toHaveProperty(volume)
    const inBroker = services.mosquitto?.volumes?.find((v) => v.startsWith(`${volume}:`))?.split(':')[1] ?? '-'
    expect(services.mosquitto?.environment?.BROKER_CA_FILE).toBe(bundle.replace(inWorker, inBroker))
    // eslint-disable-next-line no-template-curly-in-string -- compose's own ${VAR:-default} substitution, not a JS template
    expect(services.mosquitto?.ports).toContain('${MQTTS_HOST_PORT:-8883}:8883')
    const conf = await readFile(join(ROOT, 'deploy/mosquitto/mosquitto.conf'), 'utf8')
    const listener = conf.slice(conf.indexOf('listener 8883'))
    for (const line of ['require_certificate true', 'use_identity_as_username true', 'tls_version tlsv1.2', 'cafile /mosquitto/data/device-cas.pem']) expect(listener).toContain(`\n${line}\n`)
  })

  it('runs Redis with persistence and noeviction, on a volume, as BullMQ needs', async () => {
    const { services, volumes } = await compose()
    const command = services.redis?.command?.join(' ') ?? ''
    expect(command).toMatch(/--appendonly yes/)
    expect(command).toMatch(/--maxmemory-policy noeviction/)
    expect(command).not.toMatch(/--save ""|--save\s*$/)
    expect(services.redis?.volumes).toContain('redis-data:/data')
    expect(volumes).toHaveProperty('redis-data')
  })
})
