// GET /metrics is open unless METRICS_TOKEN is set: the start says so in a warning (docs/configuration.md).
import { describe, expect, it } from 'vitest'
import { createLogger } from '../../bin/logger.js'
import { startStack } from '../helpers/stack.js'

const WARNING = 'GET /metrics is open to anyone who reaches the HTTP port: set METRICS_TOKEN to require a token'
const WARN = 40

/** The log lines of a start with env. */
async function startLines (env: Record<string, string>): Promise<Array<{ level: number, msg: string }>> {
  const lines: Array<{ level: number, msg: string }> = []
  const stack = await startStack({ env, transports: [], log: createLogger({ LOG_LEVEL: 'info', LOG_FORMAT: 'json' }, { write (line: string) { lines.push(JSON.parse(line)) } }) })
  await stack.close()
  return lines
}

describe('the start', { timeout: 120_000 }, () => {
  it('warns once that /metrics is open without METRICS_TOKEN', async () => {
    expect((await startLines({})).filter((l) => l.msg === WARNING).map((l) => l.level)).toEqual([WARN])
  })

  it('does not with METRICS_TOKEN', async () => {
    const lines = await startLines({ METRICS_TOKEN: 'scrape-token' })
    expect(lines.length).toBeGreaterThan(0) // the start's lines were captured
    expect(lines.filter((l) => l.msg === WARNING)).toEqual([])
  })
})
