// `npx fleet broker sync` as a user runs it: a child process against a Mosquitto of the test's own and a
// store on disk (PGlite) or a fresh PostgreSQL database; `fleet seed` with MQTT_URL set gives the broker the logins
// of the systems it creates, the same way the API does.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runFleet } from '../helpers/child.js'
import { quiet, storeKinds, type Store } from '../helpers/cli-stores.js'
import { startMosquitto, tryConnect, type Mosquitto } from '../helpers/mosquitto.js'

let dir: string

beforeAll(async () => { dir = await mkdtemp(join(tmpdir(), 'fleet-broker-cli-')) })
afterAll(async () => { await rm(dir, { recursive: true, force: true }) })

async function canConnect (broker: Mosquitto, username: string, password: string): Promise<boolean> {
  const c = await tryConnect(broker.url, username, password)
  if (typeof c === 'string') return false
  await c.endAsync(true)
  return true
}

it('says how to use it, that it needs MQTT_URL, and why it failed without the broker\'s password', async () => {
  const env = { ...quiet, DATA_DIR: dir, LOG_LEVEL: 'warn' }
  const usage = await runFleet(['broker', 'resync'], env)
  expect({ code: usage.code, stderr: usage.stderr.trim() }).toEqual({ code: 1, stderr: 'fleet: usage: fleet broker sync' })
  const noUrl = await runFleet(['broker', 'sync'], env)
  expect(noUrl.code).toBe(1)
  expect(noUrl.stderr).toMatch(/needs MQTT_URL/)
  const away = await runFleet(['broker', 'sync'], { ...env, MQTT_URL: 'mqtt://fleet:secret-pw@127.0.0.1:1' })
  expect(away.code).toBe(1)
  expect(away.stderr).toMatch(/^fleet: broker sync failed: MQTT broker: connect ECONNREFUSED/)
  expect(away.stderr).not.toContain('secret-pw')
}, 240_000)

describe.each(storeKinds())('on %s', (_kind, makeStore) => {
  // A broker per store: a full sync makes the broker hold one store's systems, and deletes the others' logins.
  let store: Store
  let broker: Mosquitto
  beforeAll(async () => { store = await makeStore(); broker = await startMosquitto() }, 30_000)
  afterAll(async () => { await broker?.stop(); await store?.drop() })

  it('seeded systems can connect; after the broker lost them, broker sync puts them back and prints the counts', async () => {
    const tag = Math.random().toString(36).slice(2, 8).toUpperCase()
    const env = { ...quiet, ...store.env, MQTT_URL: broker.adminUrl, LOG_LEVEL: 'warn', FLEET_ADMIN_PASSWORD: 'admin-pw', FLEET_CLIENT_SECRET: 'client-secret' }
    const file = join(dir, `seed-${tag}.json`)
    await writeFile(file, JSON.stringify({
      companies: [{ name: 'Fleet' }],
      systems: [1, 2].map((n) => ({ company: 'Fleet', name: `cli-${tag}-${n}`, gateway: { serialNumber: `CLI-${tag}-${n}` }, communication: { mqtt: { password: `device-pw-${n}` } } }))
    }))
    const seeded = await runFleet(['seed', file], env)
    expect(seeded.code, seeded.stderr).toBe(0)
    expect(await canConnect(broker, `CLI-${tag}-1`, 'device-pw-1')).toBe(true)

    const ours = ((await broker.dynsec([{ command: 'listClients', verbose: true }]))[0]?.data.clients as Array<{ username: string, textname?: string }>)
      .filter((c) => c.username.startsWith(`CLI-${tag}-`))
    expect(ours.map((c) => c.username).sort()).toEqual([`CLI-${tag}-1`, `CLI-${tag}-2`])
    await broker.dynsec(ours.map((c) => ({ command: 'deleteClient', username: c.username })))
    expect(await canConnect(broker, `CLI-${tag}-2`, 'device-pw-2')).toBe(false)

    const sync = await runFleet(['broker', 'sync'], env)
    expect(sync.code, sync.stderr).toBe(0)
    expect(sync.stdout).toMatch(/^broker sync: clients 2 created, 0 updated, 0 deleted, 0 unchanged, 0 skipped; roles 0 created, 0 updated, 0 deleted, 2 unchanged$/m)
    expect(await canConnect(broker, `CLI-${tag}-1`, 'device-pw-1')).toBe(true)
    expect(await canConnect(broker, `CLI-${tag}-2`, 'device-pw-2')).toBe(true)
    expect(sync.stdout + sync.stderr).not.toContain(new URL(broker.adminUrl).password)
  }, 240_000)
})
