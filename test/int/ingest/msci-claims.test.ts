// The poll state of AirLink gateways in the store ("one poll per system at a time across every process"):
// two pollers' claims on one store never share a gateway, a claim is held until it is finished or its lease passes,
// a host cleared takes the gateway out, a failed poll counts and marks the system, a success resets the count.
// And what the poller logs at trace level never holds a gateway's credentials.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../../bin/logger.js'
import { createRepositories } from '../../../storage/repositories/index.js'
import { createMsciPolls } from '../../../ingest/msci/msci-polls.js'
import { createMsciPollsRepository } from '../../../ingest/msci/msci-polls.repository.js'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createSystem, putSystem } from '../../helpers/systems.js'
import { uniq } from '../../helpers/factories.js'
import { until } from '../../helpers/operations.js'
import { createAirlinkGateway } from '../../../simulator/airlink/gateway.js'
import { transports } from '../../../bin/transports.js'
import { msciModule } from '../../../ingest/msci/index.js'
import { startAceManager, type SimulatedAceManager } from '../../../simulator/airlink/acemanager-server.js'

const lines: string[] = []
const capture = { write (line: string): void { lines.push(line) } }
const SECRET = 'Msci-Secret-7f3a9c'

let stack: Stack

/** Systems with an MSCI host of a port nothing answers on, whose polls a test drives by hand (period 1 h). */
async function gateways (n: number): Promise<string[]> {
  const uids: string[] = []
  for (let i = 0; i < n; i++) {
    const serial = uniq('CL').toUpperCase()
    const s = await createSystem(stack, { name: serial, gateway: { serialNumber: serial }, communication: { msci: { host: '127.0.0.1:9', user: 'u', password: SECRET } } })
    uids.push(s.uid as string)
  }
  return uids
}

describe('claims', () => {
  // Without the service's own poller, whose claims would race the ones these tests make by hand.
  beforeAll(async () => { stack = await startStack({ transports: transports.filter((t) => t !== msciModule) }) })
  afterAll(async () => { await stack?.close() })

  it('two pollers never claim the same gateway; a claim holds until finished or its lease passes', async () => {
    const clock = { now: () => Date.now() }
    const a = createMsciPolls({ repos: createRepositories(stack.db), store: createMsciPollsRepository(stack.db), clock })
    const b = createMsciPolls({ repos: createRepositories(stack.db), store: createMsciPollsRepository(stack.db), clock })
    const mine = new Set(await gateways(6))
    await a.sync()
    const [fromA, fromB] = await Promise.all([a.claim(100, 60_000, 'token-a'), b.claim(100, 60_000, 'token-b')])
    const ids = [...fromA, ...fromB].map((c) => c.systemUid).filter((u) => mine.has(u))
    expect(new Set(ids).size).toBe(ids.length)
    // Claimed and not finished: nobody else gets them.
    expect((await b.claim(100, 60_000, 'token-c')).map((c) => c.systemUid).filter((u) => ids.includes(u))).toEqual([])
    // Finished by A: due again at nextPollAt, and a finish under another token is ignored.
    const one = fromA.find((c) => mine.has(c.systemUid)) ?? fromB.find((c) => mine.has(c.systemUid))
    if (one === undefined) throw new Error('no claim of ours')
    const token = fromA.includes(one) ? 'token-a' : 'token-b'
    await a.finish({ systemUid: one.systemUid, token: 'not-the-claim', ok: true, at: Date.now(), nextPollAt: 0 })
    expect((await b.claim(100, 60_000, 'token-d')).map((c) => c.systemUid)).not.toContain(one.systemUid)
    await a.finish({ systemUid: one.systemUid, token, ok: true, at: Date.now(), nextPollAt: 0 })
    expect((await b.claim(100, 60_000, 'token-e')).map((c) => c.systemUid)).toContain(one.systemUid)
    // A lease that passed: claimed again (a process died mid-poll).
    const { rows } = await stack.db.query<{ n: number }>('UPDATE msci_polls SET locked_until = 1 WHERE system_uid = ANY($1::text[]) RETURNING 1 AS n', [[...mine]])
    expect(rows.length).toBe(mine.size)
    await stack.db.query('UPDATE msci_polls SET next_poll_at = 0 WHERE system_uid = ANY($1::text[])', [[...mine]])
    const again = (await b.claim(100, 60_000, 'token-f')).map((c) => c.systemUid).filter((u) => mine.has(u))
    expect(again.sort()).toEqual([...mine].sort())
    await b.release(['token-f'])
  })

  it('a failure counts and marks the system (WARNING, ERROR from the third), a success resets; a cleared host leaves', async () => {
    const polls = createMsciPolls({ repos: createRepositories(stack.db), store: createMsciPollsRepository(stack.db), clock: { now: () => Date.now() } })
    const [uid] = await gateways(1)
    if (uid === undefined) throw new Error('no system')
    await polls.sync()
    const state = async (): Promise<{ failures: number, comm: string, failedAt: number | null }> => {
      const { rows } = await stack.db.query<{ failures: number, comm_status: string, f: string | null }>(
        'SELECT p.failures, s.comm_status, s.data ->> \'lastCommFailureDate\' AS f FROM msci_polls p JOIN system_state s ON s.system_uid = p.system_uid WHERE p.system_uid = $1', [uid])
      return { failures: rows[0]?.failures ?? -1, comm: rows[0]?.comm_status ?? '', failedAt: rows[0]?.f == null ? null : Number(rows[0].f) }
    }
    const fail = async (ok: boolean): Promise<void> => {
      await stack.db.query('UPDATE msci_polls SET next_poll_at = 0, locked_until = NULL WHERE system_uid = $1', [uid])
      const claimed = await polls.claim(1000, 60_000, 'token-x')
      expect(claimed.map((c) => c.systemUid)).toContain(uid)
      for (const c of claimed) await polls.finish({ systemUid: c.systemUid, token: 'token-x', ok: c.systemUid === uid ? ok : true, at: 1_000_000, nextPollAt: Date.now() + 3_600_000 })
    }
    await fail(false)
    expect(await state()).toEqual({ failures: 1, comm: 'WARNING', failedAt: 1_000_000 })
    await fail(false)
    await fail(false)
    expect(await state()).toMatchObject({ failures: 3, comm: 'ERROR' })
    // The commStatus sweep does not lower it while the failure is newer than the last communication.
    await stack.db.query('UPDATE system_state SET last_comm_date = 999000 WHERE system_uid = $1', [uid])
    await stack.ctx.services.sweepCommStatus()
    expect((await state()).comm).toBe('ERROR')
    await fail(true)
    expect((await state()).failures).toBe(0)
    const res = await putSystem(stack, uid, { communication: { msci: { host: null } } })
    expect(res.statusCode).toBe(200)
    await polls.sync()
    expect((await stack.db.query('SELECT 1 FROM msci_polls WHERE system_uid = $1', [uid])).rows).toEqual([])
  })
})

describe('credentials in the logs', () => {
  let ace: SimulatedAceManager
  beforeAll(async () => {
    stack = await startStack({ env: { MSCI_TIMEOUT_MS: '300', MSCI_ALLOWED_NETWORKS: '127.0.0.0/8' }, log: createLogger({ LOG_LEVEL: 'trace', LOG_FORMAT: 'json' }, capture) })
    ace = await startAceManager(createAirlinkGateway({ serial: 'CLAIM1' }), { user: 'user', password: 'the-right-one' })
  })
  afterAll(async () => {
    await stack?.close()
    await ace?.close()
  })

  it('a gateway refusing the login, one not answering: their passwords are never logged', async () => {
    const app = await stack.call(stack.adminToken, { method: 'POST', url: '/api/v1/applications', payload: { name: uniq('ALEOS'), revision: '1', type: uniq('aleos') } })
    const appUid = (app.json() as { uid: string }).uid
    await stack.call(stack.adminToken, { method: 'PUT', url: `/api/v1/applications/${appUid}/communication`, payload: [{ type: 'MSCI', commIdType: 'SERIAL', parameters: { access: 'acemanager', pollPeriodS: 1 } }] })
    const denied = uniq('DN').toUpperCase()
    const s = await createSystem(stack, { name: denied, gateway: { serialNumber: denied }, communication: { msci: { host: `127.0.0.1:${ace.port}`, user: 'user', password: SECRET } }, applications: [{ uid: appUid }] })
    const systemUid = s.uid as string
    await until('the refused login counted', async () => {
      const { rows } = await stack.db.query<{ failures: number }>('SELECT failures FROM msci_polls WHERE system_uid = $1', [systemUid])
      return (rows[0]?.failures ?? 0) >= 1
    }, 30_000)
    expect(lines.some((l) => l.includes(systemUid))).toBe(true) // the poll failure was logged (trace level)
    expect(lines.filter((l) => l.includes(SECRET))).toEqual([])
  })
})
