// The real command line (`node bin/fleet.mjs serve|migrate|seed`) as a user runs it: child processes, real HTTP,
// a store on disk (PGlite in DATA_DIR) or a fresh PostgreSQL database (DATABASE_URL) when TEST_DATABASE_URL is set.
import { existsSync } from 'node:fs'
import { once } from 'node:events'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { request, type ClientRequest } from 'node:http'
import { connect, createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import type { Db } from '../../core/ports/store.js'
import { migrations } from '../../storage/migrate.js'
import { verifyPassword } from '../../core/security/secrets.js'
import { ROOT, freePort, runFleet, spawnFleet, type Child } from '../helpers/child.js'
import { inspect, quiet, storeKinds, type Store } from '../helpers/cli-stores.js'
import { eventually } from '../helpers/eventually.js'

async function startServe (store: Store): Promise<{ child: Child, port: number }> {
  const port = await freePort()
  const child = spawnFleet(['serve'], { ...store.env, ...quiet, HTTP_PORT: String(port), LOG_LEVEL: 'info' })
  await child.waitForLine(/fleet service started/)
  return { child, port }
}

async function passwordGrant (port: number, username: string, password: string, clientId: string, secret: string): Promise<string> {
  const qs = new URLSearchParams({ grant_type: 'password', username, password, client_id: clientId, client_secret: secret })
  const res = await fetch(`http://127.0.0.1:${port}/api/oauth/token?${qs.toString()}`)
  expect(res.status).toBe(200)
  return ((await res.json()) as { access_token: string }).access_token
}

async function currentUser (port: number, token: string): Promise<{ status: number, body: any }> {
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/users/current`, { headers: { authorization: `Bearer ${token}` } })
  return { status: res.status, body: await res.json() }
}

/** Polls until nothing listens on port any more (the server is closing). */
async function untilRefused (port: number, timeoutMs = 30_000): Promise<void> {
  const refused = async (): Promise<boolean> => await new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1')
    s.once('connect', () => { s.destroy(); resolve(false) })
    s.once('error', () => { resolve(true) })
  })
  await eventually(refused, { timeoutMs, intervalMs: 50, what: `port ${port} to refuse connections` })
}

/** A POST whose body is sent in two parts, so that the request can be held in flight. */
function heldTokenRequest (port: number, form: URLSearchParams): { req: ClientRequest, finish (): void, response: Promise<{ status: number, body: string }> } {
  const body = form.toString()
  const req = request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/api/oauth/token',
    agent: false,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) }
  })
  const response = new Promise<{ status: number, body: string }>((resolve, reject) => {
    req.on('error', reject)
    req.on('response', (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => { text += c })
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, body: text }) })
    })
  })
  req.write(body.slice(0, 5))
  return { req, response, finish: () => { req.end(body.slice(5)) } }
}

const SEED = {
  companies: [
    { name: 'Acme', address: '1 Main Street, Springfield', systemLimit: 50, partners: ['Globex'] },
    { name: 'Globex', systemLimit: null }
  ],
  profiles: [
    { company: 'Acme', name: 'Operators', rights: ['entities.systems.view', 'entities.systems.edit'] },
    { company: 'Globex', name: 'Viewers', rights: ['entities.systems.view'] }
  ],
  users: [
    {
      email: 'ann@acme.test',
      name: 'Ann',
      phoneNumber: '+33123456789',
      password: 'ann-password',
      companies: [{ company: 'Acme', profile: 'Operators', administrator: true }, { company: 'Globex', profile: 'Viewers' }]
    },
    { email: 'bob@globex.test', name: 'Bob', password: 'bob-password', companies: [{ company: 'Globex', profile: 'Viewers' }] }
  ],
  clients: [{ clientId: 'acme-app', clientSecret: 'acme-secret', name: 'Acme app', user: 'ann@acme.test' }]
}

/** Everything a seed document touches, with uids and without the (re-salted) hashes. */
async function snapshot (db: Db): Promise<Record<string, unknown[]>> {
  const q = async (sql: string): Promise<unknown[]> => (await db.query(sql)).rows
  return {
    companies: await q(`SELECT c.uid, c.name, c.address, c.system_limit,
        coalesce((SELECT array_agg(p.name ORDER BY p.name) FROM company_partners cp JOIN companies p ON p.uid = cp.partner_uid
                  WHERE cp.company_uid = c.uid), '{}') AS partners
      FROM companies c ORDER BY c.name`),
    profiles: await q('SELECT p.uid, c.name AS company, p.name, p.rights FROM profiles p JOIN companies c ON c.uid = p.company_uid ORDER BY 2, 3'),
    users: await q('SELECT u.uid, u.email, u.name, u.phone_number, c.name AS company FROM users u JOIN companies c ON c.uid = u.company_uid ORDER BY 2'),
    memberships: await q(`SELECT u.email, c.name AS company, p.name AS profile, m.administrator FROM memberships m
      JOIN users u ON u.uid = m.user_uid JOIN companies c ON c.uid = m.company_uid LEFT JOIN profiles p ON p.uid = m.profile_uid ORDER BY 1, 2`),
    clients: await q('SELECT a.client_id, a.name, u.email FROM api_clients a LEFT JOIN users u ON u.uid = a.user_uid ORDER BY 1')
  }
}

const counts = async (db: Db): Promise<unknown> =>
  (await db.query(`SELECT (SELECT count(*) FROM companies) AS companies, (SELECT count(*) FROM users) AS users,
    (SELECT count(*) FROM profiles) AS profiles, (SELECT count(*) FROM api_clients) AS clients`)).rows[0]

const kinds = storeKinds()

// Each CLI start loads the code through tsx and opens the store: seconds each, more on a busy machine.
describe.each(kinds)('fleet CLI on %s', { timeout: 300_000 }, (_kind, makeStore) => {
  describe('serve', () => {
    let store: Store | undefined
    let token = ''
    let password = ''
    let secret = ''
    beforeAll(async () => { store = await makeStore() })
    afterAll(async () => { await store?.drop() })
    const theStore = (): Store => { if (store === undefined) throw new Error('no store'); return store }

    it('on an empty store prints the generated password and secret, and a token from the password grant reads the administrator', async () => {
      const { child, port } = await startServe(theStore())
      password = /administrator password \(shown once\): (\S+)/.exec(child.stdout())?.[1] ?? ''
      secret = /client secret \(shown once\): +(\S+)/.exec(child.stdout())?.[1] ?? ''
      expect(password).toMatch(/^[\w-]{12,}$/)
      expect(secret).toMatch(/^[\w-]{24,}$/)
      expect(child.stdout()).toContain('Created company "Fleet", administrator admin@fleet.local and API client fleet-cli.')

      token = await passwordGrant(port, 'admin@fleet.local', password, 'fleet-cli', secret)
      const me = await currentUser(port, token)
      expect(me.status).toBe(200)
      expect(me.body).toMatchObject({ email: 'admin@fleet.local', name: 'Administrator', company: { name: 'Fleet' }, profile: { name: 'Administrator' } })

      child.signal('SIGTERM')
      expect(await child.exited()).toEqual({ code: 0, signal: null })
    })

    it('a second start creates nothing, prints no password, keeps the tokens, and SIGTERM lets a request in flight finish', async () => {
      expect(token).not.toBe('')
      const { child, port } = await startServe(theStore())
      expect(child.stdout()).not.toMatch(/password|secret|Created company/)
      const me = await currentUser(port, token) // issued before the restart
      expect(me.status).toBe(200)
      expect(me.body.email).toBe('admin@fleet.local')

      // Hold a token request open (headers and part of the body sent), then ask the service to stop.
      const held = heldTokenRequest(port, new URLSearchParams({ grant_type: 'password', username: 'admin@fleet.local', password, client_id: 'fleet-cli', client_secret: secret }))
      await child.waitForLine(/incoming request.*\/api\/oauth\/token|\/api\/oauth\/token.*incoming request/)
      child.signal('SIGTERM')
      await child.waitForLine(/shutting down/)
      await untilRefused(port) // the server has stopped listening while our request is still open
      held.finish()
      const res = await held.response
      expect(res.status).toBe(200) // answered in full, not cut off nor refused with 503
      expect(JSON.parse(res.body)).toMatchObject({ token_type: 'bearer' })
      expect(await child.exited()).toEqual({ code: 0, signal: null })

      // Two clients: fleet-cli and the web console's public client (fleet-console).
      expect(await inspect(theStore(), counts)).toEqual({ companies: 1, users: 1, profiles: 1, clients: 2 })
    })
  })

  describe('seed', () => {
    let store: Store | undefined
    let dir = ''
    beforeAll(async () => {
      store = await makeStore()
      dir = await mkdtemp(join(tmpdir(), 'fleet-seed-'))
    })
    afterAll(async () => {
      await store?.drop()
      await rm(dir, { recursive: true, force: true })
    })
    const theStore = (): Store => { if (store === undefined) throw new Error('no store'); return store }

    async function seedFile (name: string, content: string): Promise<string> {
      const file = join(dir, name)
      await writeFile(file, content)
      return file
    }

    it('creates companies, profiles, users and clients; a second run changes nothing; a bad file writes nothing', async () => {
      const file = await seedFile('seed.json', JSON.stringify(SEED, null, 2))
      const first = await runFleet(['seed', file], { ...theStore().env, ...quiet })
      expect(first.stderr).toBe('')
      expect(first).toMatchObject({ code: 0 })
      expect(first.stdout).toContain('seeded')

      const { before, hashes } = await inspect(theStore(), async (db) => ({
        before: await snapshot(db),
        hashes: {
          user: (await db.query<{ h: string }>("SELECT password_hash AS h FROM users WHERE email = 'ann@acme.test'")).rows[0]?.h ?? null,
          client: (await db.query<{ h: string }>("SELECT secret_hash AS h FROM api_clients WHERE client_id = 'acme-app'")).rows[0]?.h ?? null
        }
      }))
      expect(before).toMatchObject({
        companies: [
          { name: 'Acme', address: '1 Main Street, Springfield', system_limit: 50, partners: ['Globex'] },
          { name: 'Globex', address: null, system_limit: null, partners: [] }
        ],
        profiles: [
          { company: 'Acme', name: 'Operators', rights: ['entities.systems.view', 'entities.systems.edit'] },
          { company: 'Globex', name: 'Viewers', rights: ['entities.systems.view'] }
        ],
        users: [
          { email: 'ann@acme.test', name: 'Ann', phone_number: '+33123456789', company: 'Acme' },
          { email: 'bob@globex.test', name: 'Bob', phone_number: null, company: 'Globex' }
        ],
        memberships: [
          { email: 'ann@acme.test', company: 'Acme', profile: 'Operators', administrator: true },
          { email: 'ann@acme.test', company: 'Globex', profile: 'Viewers', administrator: false },
          { email: 'bob@globex.test', company: 'Globex', profile: 'Viewers', administrator: false }
        ],
        clients: [{ client_id: 'acme-app', name: 'Acme app', email: 'ann@acme.test' }]
      })
      expect(await verifyPassword('ann-password', hashes.user)).toBe(true)
      expect(await verifyPassword('acme-secret', hashes.client)).toBe(true)

      const second = await runFleet(['seed', file], { ...theStore().env, ...quiet })
      expect(second).toMatchObject({ code: 0 })
      expect(await inspect(theStore(), snapshot)).toEqual(before)

      // Valid shape, but the user names a profile that does not exist: the whole document is rolled back.
      const bad = await seedFile('bad.json', JSON.stringify({
        companies: [{ name: 'Initech' }],
        users: [{ email: 'eve@initech.test', name: 'Eve', companies: [{ company: 'Initech', profile: 'Nope' }] }]
      }))
      const refused = await runFleet(['seed', bad], { ...theStore().env, ...quiet })
      expect(refused.code).not.toBe(0)
      expect(refused.stderr).toContain('unknown profile "Nope" in company "Initech"')
      expect(await inspect(theStore(), snapshot)).toEqual(before)
    })

    it('refuses a file that is not a seed document, naming the problem', async () => {
      const notJson = await seedFile('broken.json', '{ "companies": [ ')
      const r1 = await runFleet(['seed', notJson], { ...theStore().env, ...quiet })
      expect(r1.code).not.toBe(0)
      expect(r1.stderr).toMatch(/^fleet: cannot read .*broken\.json/m)

      const wrongShape = await seedFile('shape.json', JSON.stringify({ companies: [{ name: 'X', colour: 'red' }] }))
      const r2 = await runFleet(['seed', wrongShape], { ...theStore().env, ...quiet })
      expect(r2.code).not.toBe(0)
      expect(r2.stderr).toMatch(/^fleet: invalid seed document at \/companies\/0: unknown field "colour"/m)

      const missing = await runFleet(['seed'], { ...theStore().env, ...quiet })
      expect(missing.code).not.toBe(0)
      expect(missing.stderr).toContain('seed needs a file')
    })
  })

  describe('migrate', () => {
    let store: Store | undefined
    beforeAll(async () => { store = await makeStore() })
    afterAll(async () => { await store?.drop() })

    it('applies the migrations, then answers "up to date"', async () => {
      if (store === undefined) throw new Error('no store')
      const files = (await migrations()).map((m) => m.name)
      const first = await runFleet(['migrate'], { ...store.env, ...quiet })
      expect(first).toMatchObject({ code: 0, stderr: '' })
      expect(first.stdout).toBe(`migrations applied: ${files.join(', ')}\n`)
      const second = await runFleet(['migrate'], { ...store.env, ...quiet })
      expect(second).toMatchObject({ code: 0, stdout: 'migrations: up to date\n' })
    })
  })
})

describe('fleet CLI: configuration, usage, README', { timeout: 120_000 }, () => {
  it('the seed example of the README is the document tested above', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8')
    const example = /## Seed file[\s\S]*?```json\n([\s\S]*?)```/.exec(readme)?.[1]
    expect(JSON.parse(example ?? 'null')).toEqual(SEED)
  })

  it('exits non-zero with a message naming a bad variable', async () => {
    const r = await runFleet(['serve'], { ...quiet, HTTP_PORT: 'abc', DATA_DIR: join(tmpdir(), 'fleet-never-created') })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('invalid configuration: HTTP_PORT must be an integer, got "abc"')
    expect(r.stdout).toBe('')
  })

  it('a busy port is reported before the store is opened or migrated, naming the variable that moves it', async () => {
    const busy = createServer().listen(0, '127.0.0.1')
    await once(busy, 'listening')
    onTestFinished(() => { busy.close() })
    const port = (busy.address() as AddressInfo).port
    const dataDir = join(tmpdir(), `fleet-busy-port-${process.pid}`)
    const r = await runFleet(['serve'], { ...quiet, HTTP_PORT: '0', MQTT_PORT: String(port), DATA_DIR: dataDir })
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(`fleet: MQTT_PORT ${port} is already in use (another service, or this one started twice): set MQTT_PORT to a free port\n`)
    expect(existsSync(dataDir)).toBe(false) // no store was made, so no migration ran before the answer
  })

  it('prints the usage and exits 1 when no command is given, instead of serving', async () => {
    const r = await runFleet([], { ...quiet, DATA_DIR: join(tmpdir(), 'fleet-never-created') })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('usage: fleet <command>')
    expect(r.stdout).toBe('')
  })

  it('prints a command\'s own usage on --help, before reading the configuration or opening the store', async () => {
    const dataDir = join(tmpdir(), 'fleet-never-created')
    for (const command of ['serve', 'migrate', 'seed', 'admin', 'broker']) {
      const r = await runFleet([command, '--help'], { ...quiet, HTTP_PORT: 'abc', DATA_DIR: dataDir })
      expect(r).toMatchObject({ code: 0, stderr: '' })
      expect(r.stdout).toMatch(new RegExp(`^usage: fleet ${command}\n  ${command} `))
    }
    expect(existsSync(dataDir)).toBe(false)
  })

  it('exits with 2 and the usage on an unknown command', async () => {
    const r = await runFleet(['frobnicate'], quiet)
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('unknown command "frobnicate"')
    expect(r.stderr).toContain('usage: fleet <command>')
  })
})
