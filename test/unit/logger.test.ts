// The service's logger (bin/context.ts createLogger): LOG_FORMAT json (default) or pretty, and secrets masked in
// every line whatever the format (core/security/log-redaction.ts; docs/configuration.md).
import { Writable } from 'node:stream'
import { describe, expect, it, vi } from 'vitest'
import { ConfigError, loadConfig } from '../../core/config.js'
import { createLogger } from '../../bin/logger.js'
import { REDACTED, redactLine, redactUrl } from '../../core/security/log-redaction.js'

function captured (format: 'json' | 'pretty') {
  const lines: string[] = []
  // A real stream: pino-pretty pipes into it.
  const out = new Writable({ write (chunk: Buffer | string, _enc, done) { lines.push(String(chunk)); done() } })
  const log = createLogger({ LOG_LEVEL: 'info', LOG_FORMAT: format }, out)
  return { log, lines }
}

describe('LOG_FORMAT', () => {
  it('is json by default, pretty on request, and anything else is refused naming the variable', () => {
    expect(loadConfig({}).LOG_FORMAT).toBe('json')
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).LOG_FORMAT).toBe('pretty')
    expect(() => loadConfig({ LOG_FORMAT: 'fancy' })).toThrow(ConfigError)
    expect(() => loadConfig({ LOG_FORMAT: 'fancy' })).toThrow('invalid configuration: LOG_FORMAT must be json or pretty, got "fancy"')
  })

  it('json writes one JSON object per line', () => {
    const { log, lines } = captured('json')
    log.info({ system: 'abc' }, 'hello')
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ level: 30, msg: 'hello', system: 'abc' })
  })

  it('pretty writes a line for people: level name, message, fields', async () => {
    const { log, lines } = captured('pretty')
    log.info({ system: 'abc' }, 'hello')
    await vi.waitFor(() => { expect(lines.join('')).toContain('hello') })
    const out = lines.join('')
    expect(() => JSON.parse(out)).toThrow()
    expect(out).toMatch(/INFO/)
    expect(out).toContain('system: "abc"')
  })
})

describe('redaction', () => {
  it('masks the secret query parameters of a URL and keeps the rest in order', () => {
    expect(redactUrl('/api/oauth/token?grant_type=password&username=a%40b.c&password=s3cret&client_id=x&client_secret=y'))
      .toBe(`/api/oauth/token?grant_type=password&username=a%40b.c&password=${REDACTED}&client_id=x&client_secret=${REDACTED}`)
    expect(redactUrl('/api/v1/systems?access_token=t1&fields=uid')).toBe(`/api/v1/systems?access_token=${REDACTED}&fields=uid`)
    expect(redactUrl('/x?Refresh_Token=r&code=c&state=s')).toBe(`/x?Refresh_Token=${REDACTED}&code=${REDACTED}&state=s`)
    // The token endpoint takes GET with every parameter in the query, the PKCE verifier of the code grant too.
    expect(redactUrl('/api/oauth/token?grant_type=authorization_code&code_verifier=v1')).toBe(`/api/oauth/token?grant_type=authorization_code&code_verifier=${REDACTED}`)
    expect(redactUrl('/x?%70assword=p')).toBe(`/x?%70assword=${REDACTED}`) // an encoded name is still the name
    expect(redactUrl('/api/v1/systems')).toBe('/api/v1/systems')
  })

  it('masks secrets left in any text of a line, and a JSON line stays JSON', () => {
    const line = JSON.stringify({
      msg: 'failed GET /api/oauth/token?grant_type=password&password=p1&client_secret=c1',
      err: 'body {"refresh_token":"r1","x":1} rejected; form code=k1&state=s; Authorization: Basic dXNlcjpwdzE=; bearer t1.t2'
    })
    const out = redactLine(line)
    for (const secret of ['p1', 'c1', 'r1', 'k1', 'dXNlcjpwdzE=', 't1.t2']) expect(out).not.toContain(secret)
    expect(JSON.parse(out).msg).toBe(`failed GET /api/oauth/token?grant_type=password&password=${REDACTED}&client_secret=${REDACTED}`)
    expect(out).toContain('state=s')
  })

  it('masks secret fields and headers wherever a log call puts them, in both formats', async () => {
    for (const format of ['json', 'pretty'] as const) {
      const { log, lines } = captured(format)
      log.info({ body: { password: 'p2', username: 'u' }, req: { headers: { authorization: 'Basic YWJjOmRlZg==' } }, client_secret: 'c2' }, 'x')
      log.warn({ note: 'GET /device/tasks?access_token=a2' }, 'y')
      await vi.waitFor(() => { expect(lines.join('')).toContain('y') })
      const out = lines.join('')
      for (const secret of ['p2', 'c2', 'YWJjOmRlZg==', 'a2']) expect(out).not.toContain(secret)
      expect(out).toContain(REDACTED)
    }
  })
})
