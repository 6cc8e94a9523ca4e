// The hosts an MSCI poll may go to (docs/protocols/msci.md): a company user must not make the service
// send a gateway's stored credentials to the service's own machine or its cloud's metadata. A link-local or metadata
// host is refused when the system is written; a loopback host, by address or by name, is never polled unless
// MSCI_ALLOWED_NETWORKS names loopback (this stack sets nothing).
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createSystem, expectRejected, postSystem, putSystem } from '../../helpers/systems.js'
import { eventually } from '../../helpers/devices.js'
import { uniq } from '../../helpers/factories.js'

let stack: Stack
let server: Server
let port: number
let requests = 0

beforeAll(async () => {
  stack = await startStack({ env: { MSCI_TIMEOUT_MS: '300' } })
  // What an AceManager login would reach: any request here is the leak.
  server = createServer((req, res) => { requests++; res.end('') })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  port = (server.address() as AddressInfo).port
})
afterAll(async () => {
  await stack?.close()
  server?.close()
})

async function aceManagerApplication (): Promise<string> {
  const app = await stack.call(stack.adminToken, { method: 'POST', url: '/api/v1/applications', payload: { name: uniq('ALEOS'), revision: '1', type: uniq('aleos') } })
  const uid = (app.json() as { uid: string }).uid
  await stack.call(stack.adminToken, { method: 'PUT', url: `/api/v1/applications/${uid}/communication`, payload: [{ type: 'MSCI', commIdType: 'SERIAL', parameters: { access: 'acemanager', pollPeriodS: 1 } }] })
  return uid
}

const failures = async (systemUid: string): Promise<number> =>
  (await stack.db.query<{ failures: number }>('SELECT failures FROM msci_polls WHERE system_uid = $1', [systemUid])).rows[0]?.failures ?? 0

const forbiddenPolls = async (): Promise<number> => {
  const text = (await stack.api.inject({ method: 'GET', url: '/metrics' })).body
  return Number(/fleet_msci_polls_total\{outcome="msci\.host\.forbidden"\} (\d+)/.exec(text)?.[1] ?? 0)
}

describe('MSCI hosts', { timeout: 60_000 }, () => {
  it.each(['169.254.169.254', '169.254.169.254:80', '[fd00:ec2::254]:9191', '100.100.100.200', '224.0.0.1:161', '0.0.0.0:9191'])(
    'refuses %s when a system is created or edited, and writes nothing', async (host) => {
      const serial = uniq('MH').toUpperCase()
      const body = await expectRejected(stack, async () => await postSystem(stack, { name: serial, gateway: { serialNumber: serial }, communication: { msci: { host, user: 'u', password: 'p' } } }), 'system.msci.host.forbidden')
      expect(body.errorParameters).toEqual(['communication.msci.host', 'MSCI_ALLOWED_NETWORKS'])
      const s = await createSystem(stack, { name: serial, gateway: { serialNumber: serial } })
      const res = await putSystem(stack, s.uid as string, { communication: { msci: { host, user: 'u', password: 'p' } } })
      expect(res.json().error).toBe('system.msci.host.forbidden')
      const after = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${s.uid as string}` })
      expect(after.json().communication?.msci ?? null).toBeNull()
    })

  it.each(['127.0.0.1', 'localhost'])('never polls a gateway at %s: the poll fails, counted, and nothing reaches the address', async (name) => {
    const app = await aceManagerApplication()
    const serial = uniq('LB').toUpperCase()
    const before = await forbiddenPolls()
    const s = await createSystem(stack, { name: serial, gateway: { serialNumber: serial }, applications: [{ uid: app }], communication: { msci: { host: `${name}:${port}`, user: 'admin', password: 'stored-secret' } } })
    await eventually(async () => await failures(s.uid as string) >= 1, 30_000, 'a failed poll')
    expect(await forbiddenPolls()).toBeGreaterThan(before)
    expect(requests).toBe(0)
  })
})
