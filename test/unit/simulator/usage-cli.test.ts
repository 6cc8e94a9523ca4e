// `fleet simulate --usage-feed` (simulator/README.md "Usage feed"): the flags, the progress line and the summary.
import { describe, expect, it } from 'vitest'
import { parseSimulateArgs, progressLine, usageSummary, UsageError, type SimulateDefaults } from '../../../simulator/cli.js'
import type { FleetStats } from '../../../simulator/fleet.js'
import type { UsagePlayStats } from '../../../simulator/usage/player.js'

const defaults: SimulateDefaults = { url: 'http://localhost:8080', mqttUrl: 'mqtt://localhost:1883', clientId: 'fleet-cli', clientSecret: 's', email: 'a@b.c', password: 'p' }
const parse = (...flags: string[]): ReturnType<typeof parseSimulateArgs> => parseSimulateArgs(['--devices', '3', '--protocol', 'mqtt', ...flags], defaults)

describe('fleet simulate --usage-feed', () => {
  it('reads the period, the history and the seed, with their defaults; no feed without the flag', () => {
    expect(parse().usage).toBeUndefined()
    expect(parse('--usage-feed', '--usage-period', '30', '--usage-days', '7', '--usage-seed', '42').usage).toEqual({ periodMs: 30_000, historyMs: 7 * 86_400_000, seed: 42 })
    const d = parse('--usage-feed').usage
    expect(d).toMatchObject({ periodMs: 60_000, historyMs: 86_400_000 })
    expect(Number.isInteger(d?.seed)).toBe(true)
    expect(parse('--usage-feed', '--usage-days', '0', '--usage-period', '0.5').usage).toMatchObject({ periodMs: 500, historyMs: 0 })
  })

  it.each([
    [['--usage-period', '30'], /--usage-period needs --usage-feed/],
    [['--usage-seed', '1'], /--usage-seed needs --usage-feed/],
    [['--usage-feed', '--usage-period', '0'], /--usage-period must be more than 0/],
    [['--usage-feed', '--usage-days', '-1'], /--usage-days/],
    [['--usage-feed', '--usage-days', 'week'], /--usage-days/],
    [['--usage-feed', '--usage-seed', '1.5'], /--usage-seed/],
    [['--usage-feed', '--usage-seed', String(2 ** 32)], /--usage-seed must be below/]
  ])('refuses %j', (flags, message) => {
    expect(() => parse(...flags)).toThrow(UsageError)
    expect(() => parse(...flags)).toThrow(message)
  })

  it('shows what the feed imported in the progress line and the summary', () => {
    const usage: UsagePlayStats = { seed: 7, plays: 3, files: 4, records: 1234, failed: 0, held: 0, errors: 0, lastError: undefined }
    const s: FleetStats = { phase: 'running', devices: 2, registered: 2, connected: 2, messages: 10, points: 90, tasksAnswered: 0, tasksFailed: 0, wakes: 0, errors: 0, lastError: undefined, usage }
    expect(progressLine(s, 2, 5)).toBe('[   5s] 2/2 connected | 2 msg/s | 10 acked | 0 tasks answered | usage 1234 records | 0 errors')
    expect(progressLine({ ...s, usage: { ...usage, failed: 3 } }, 2, 5)).toContain('| usage 1234 records (3 failed) |')
    expect(progressLine({ ...s, usage: undefined }, 2, 5)).not.toContain('usage')
    expect(usageSummary(usage)).toBe('usage feed (seed 7): 1234 records imported in 4 files, 0 rows failed')
    expect(usageSummary({ ...usage, failed: 2, held: 50, lastError: 'usage import refused (503)' }))
      .toBe('usage feed (seed 7): 1234 records imported in 4 files, 2 rows failed (see GET /api/v1/operations/{uid}/file of the imports), 50 not sent (last error: usage import refused (503))')
  })
})
