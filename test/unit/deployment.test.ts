// docker-compose.yml as a user runs it (README, "Store"): the service has a health check on GET /health, the MQTT
// port on the host is configurable, and Redis keeps BullMQ's jobs (append-only file, noeviction). Docker is not
// needed: the file is read, and the health check command runs against real HTTP servers.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { parse } from 'yaml'
import { describe, expect, it, onTestFinished } from 'vitest'
import { ROOT, freePort } from '../helpers/child.js'

interface Compose { services: Record<string, { ports?: string[], command?: string[], volumes?: string[], healthcheck?: { test: string[] }, depends_on?: unknown }>, volumes: Record<string, unknown> }

const compose = async (): Promise<Compose> => parse(await readFile(join(ROOT, 'docker-compose.yml'), 'utf8')) as Compose

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
  it('checks the service on GET /health: healthy on 200, unhealthy on an error answer or a closed port', async () => {
    const test = (await compose()).services.fleet?.healthcheck?.test ?? []
    expect(test.join(' ')).toContain('/health')
    expect(await runHealthcheck(test, await server((url) => url === '/health' ? 200 : 404))).toBe(0)
    expect(await runHealthcheck(test, await server(() => 503))).toBe(1)
    expect(await runHealthcheck(test, await freePort())).toBe(1)
  }, 30_000)

  it('publishes MQTT on MQTT_HOST_PORT (default 1883)', async () => {
    // eslint-disable-next-line no-template-curly-in-string -- compose's own ${VAR:-default} substitution, not a JS template
    expect((await compose()).services.fleet?.ports).toContain('${MQTT_HOST_PORT:-1883}:1883')
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
