// `npx fleet simulate --usage-feed` as a user runs it (simulator/README.md "Usage feed"): a child process against a
// listening stack registers the devices and plays their SIMs' usage feed through the usage import; what it
// reports is then counted through the API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runFleet } from '../helpers/child.js'
import { ADMIN_EMAIL, ADMIN_PASSWORD, CLIENT_ID, CLIENT_SECRET, startStack, type Stack } from '../helpers/stack.js'

let stack: Stack
beforeAll(async () => { stack = await startStack({ listen: true }) })
afterAll(async () => { await stack?.close() })

const get = async (url: string): Promise<any> => {
  const res = await stack.call(stack.adminToken, { method: 'GET', url })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

/** The fleet simulate run: its output, and the usage records stored for its systems. */
async function simulate (flags: string[]): Promise<{ stdout: string, code: number | null, run: string, stored: number, systems: number }> {
  const r = await runFleet(['simulate', '--devices', '2', '--protocol', 'rest', '--url', stack.httpUrl, '--client-id', CLIENT_ID, '--client-secret', CLIENT_SECRET, ...flags], {
    FLEET_ADMIN_EMAIL: ADMIN_EMAIL, FLEET_ADMIN_PASSWORD: ADMIN_PASSWORD, HTTP_HOST: '127.0.0.1'
  }, 180_000)
  expect(r.stderr).toBe('')
  const run = /done \(run (\w+),/.exec(r.stdout)?.[1] ?? ''
  const found = await get(`/api/v1/systems?labels=sim-${run}&fields=uid`)
  let stored = 0
  for (const s of found.items) stored += (await get(`/api/v1/systems/${s.uid as string}/usages/records?size=500`)).length
  return { stdout: r.stdout, code: r.code, run, stored, systems: found.count }
}

describe('fleet simulate --usage-feed', { timeout: 240_000 }, () => {
  it('imports the SIMs\' last days of usage at once with --duration 0, and says what it imported', async () => {
    const r = await simulate(['--duration', '0', '--usage-feed', '--usage-days', '2', '--usage-seed', '42'])
    expect(r.code, r.stdout).toBe(0)
    expect(r.systems).toBe(2)
    const line = /usage feed \(seed 42\): (\d+) records imported in (\d+) files?, 0 rows failed\n/.exec(r.stdout)
    expect(line, r.stdout).not.toBeNull()
    // 2 events per SIM and hour over 2 days: about 190 records.
    expect(Number(line?.[1])).toBeGreaterThan(100)
    expect(r.stored).toBe(Number(line?.[1]))
  })

  it('plays the feed every period while the fleet publishes, with the usage in the progress line', async () => {
    const r = await simulate(['--rate', '2', '--duration', '3', '--usage-feed', '--usage-days', '0.5', '--usage-period', '1'])
    expect(r.code, r.stdout).toBe(0)
    expect(r.stdout).toMatch(/\| usage \d+ records \|/)
    const line = /usage feed \(seed \d+\): (\d+) records imported in (\d+) files?, 0 rows failed\n/.exec(r.stdout)
    expect(line, r.stdout).not.toBeNull()
    expect(r.stored).toBe(Number(line?.[1]))
    expect(r.stdout).toMatch(/verified: (\d+) of \1 acknowledged messages stored/)
  })

  it('refuses a usage flag without --usage-feed', async () => {
    const r = await runFleet(['simulate', '--devices', '1', '--protocol', 'rest', '--usage-period', '5', '--client-secret', 's'], {}, 60_000)
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('fleet simulate: --usage-period needs --usage-feed')
  })
})
