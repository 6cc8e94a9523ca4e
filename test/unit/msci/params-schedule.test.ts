// How a gateway is reached (docs/protocols/msci.md: communication.msci and the MSCI application's parameters)
// and when it is polled next (ingest/msci/poller.ts: a steady period from when the poll was due, the first one spread
// over a period, failures backing off).
import { describe, expect, it } from 'vitest'
import { accessParams } from '../../../ingest/msci/params.js'
import { splitHost } from '../../../core/domain/msci-host.js'
import { nextPollAt } from '../../../ingest/msci/poller.js'

describe('access parameters', () => {
  const msci = { host: '10.0.0.7', user: 'fleet', password: 'pw' }

  it('defaults: SNMP v2c on 161 every 300 s; AceManager on 9191; host:port wins', () => {
    expect(accessParams(msci, {})).toEqual({ ok: true, params: { access: 'snmp', host: '10.0.0.7', port: 161, snmpVersion: '2c', snmpSecurity: 'authNoPriv', user: 'fleet', password: 'pw', periodMs: 300_000 } })
    expect(accessParams(msci, { access: 'acemanager' })).toMatchObject({ ok: true, params: { port: 9191 } })
    expect(accessParams({ ...msci, host: 'gw.example:10161' }, { port: 161, snmpVersion: '3', pollPeriodS: 1 })).toMatchObject({ ok: true, params: { host: 'gw.example', port: 10161, snmpVersion: '3', periodMs: 1000 } })
    expect(splitHost('[fd00::7]:9191')).toEqual({ host: 'fd00::7', port: 9191 })
  })

  it('refuses what cannot be polled, with a reason (a failed poll of its own)', () => {
    const cases: Array<[Parameters<typeof accessParams>[0], Record<string, unknown>, string]> = [
      [{ ...msci, host: '' }, {}, 'msci.bad.host'],
      [{ ...msci, host: 'a b' }, {}, 'msci.bad.host'],
      [{ ...msci, host: 'gw:70000' }, {}, 'msci.bad.host'],
      [msci, { access: 'telnet-at' }, 'msci.bad.access'],
      [msci, { port: 0 }, 'msci.bad.port'],
      [msci, { port: '161' }, 'msci.bad.port'],
      [msci, { snmpVersion: '1' }, 'msci.bad.snmpVersion'],
      [msci, { snmpSecurity: 'noAuth' }, 'msci.bad.snmpSecurity'],
      [msci, { pollPeriodS: 0 }, 'msci.bad.pollPeriodS'],
      [msci, { pollPeriodS: 1.5 }, 'msci.bad.pollPeriodS']
    ]
    for (const [m, p, reason] of cases) expect(accessParams(m, p)).toEqual({ ok: false, reason })
  })
})

describe('schedule', () => {
  const at = 1_000_000
  const period = 60_000

  it('a sound gateway: period × [0.9, 1.1] from when it was due, never before half a period from now', () => {
    expect(nextPollAt(at - 500, at, true, period, 0, true, () => 0)).toBe(at - 500 + 54_000)
    expect(nextPollAt(at - 500, at, true, period, 0, true, () => 1)).toBe(at - 500 + 66_000)
    // Due long ago (a backlog): half a period after this poll, not at once.
    expect(nextPollAt(at - 10 * period, at, true, period, 0, true, () => 0.5)).toBe(at + 30_000)
    // First poll: anywhere in the first period.
    expect(nextPollAt(at, at, true, period, 0, false, () => 0.25)).toBe(at + 15_000)
  })

  it('failures back off with jitter, at most an hour beyond the period; an unusable configuration waits 5 min', () => {
    expect(nextPollAt(at, at, false, period, 0, true, () => 0.5)).toBe(at + period)
    expect(nextPollAt(at, at, false, period, 3, true, () => 0.5)).toBe(at + 8 * period)
    expect(nextPollAt(at, at, false, period, 50, true, () => 0.5)).toBe(at + period + 3_600_000)
    expect(nextPollAt(at, at, false, period, 3, true, () => 0)).toBe(at + 0.8 * 8 * period)
    expect(nextPollAt(at, at, false, undefined, 0, false, () => 0.5)).toBe(at + 300_000)
  })
})
