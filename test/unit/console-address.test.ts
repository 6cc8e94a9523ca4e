// The console's address from a request (core/domain/console-client.ts) and the CSPs built from request text
// (api/page-headers.ts, api/console/index-page.ts): a Host header is believed only when it names the listener, and no
// byte of a request reaches a CSP outside a parsed origin.
import fc from 'fast-check'
import { hostname } from 'node:os'
import { describe, expect, it } from 'vitest'
import { consoleBase, consoleRedirectUri, type Listener } from '../../core/domain/console-client.js'
import { signInCsp } from '../../api/page-headers.js'
import { consoleCsp } from '../../api/console/index-page.js'

const loopback: Omit<Listener, 'host'> = { localAddress: '127.0.0.1', localPort: 8080, httpHost: '0.0.0.0' }
const at = (host: string | undefined, l: Omit<Listener, 'host'> = loopback): string | undefined => consoleBase(undefined, { ...l, host })

describe('consoleBase', () => {
  it('believes a Host naming the listener: its address, localhost on loopback, the machine, HTTP_HOST; with its port', () => {
    expect(at('127.0.0.1:8080')).toBe('http://127.0.0.1:8080')
    expect(at('LOCALHOST:8080')).toBe('http://LOCALHOST:8080')
    expect(at(`${hostname()}:8080`)).toBe(`http://${hostname()}:8080`)
    expect(at('fleet.lan:8080', { ...loopback, httpHost: 'fleet.lan' })).toBe('http://fleet.lan:8080')
    expect(at('[::1]:8080', { ...loopback, localAddress: '::1' })).toBe('http://[::1]:8080')
    expect(at('192.0.2.10:8080', { ...loopback, localAddress: '::ffff:192.0.2.10' })).toBe('http://192.0.2.10:8080')
    expect(at('192.0.2.10', { ...loopback, localAddress: '192.0.2.10', localPort: 80 })).toBe('http://192.0.2.10')
  })

  it('refuses any other Host: another name or port, localhost off loopback, userinfo, paths, an inject without socket', () => {
    for (const host of [undefined, '', 'evil.test', 'evil.test:8080', '127.0.0.1', '127.0.0.1:80', '127.0.0.1:8081', 'a@127.0.0.1:8080', '127.0.0.1:8080/x', '127.0.0.1:8080 ']) {
      expect(at(host), String(host)).toBeUndefined()
    }
    expect(at('localhost:8080', { ...loopback, localAddress: '192.0.2.10' })).toBeUndefined()
    expect(consoleBase(undefined, { host: '127.0.0.1:8080', localAddress: undefined, localPort: undefined, httpHost: '0.0.0.0' })).toBeUndefined()
  })

  it('answers https on a TLS connection (the HTTPS port), its default port 443; http on a plain one', () => {
    const tls = { ...loopback, localPort: 8443, secure: true }
    expect(at('127.0.0.1:8443', tls)).toBe('https://127.0.0.1:8443')
    expect(at('localhost:8443', tls)).toBe('https://localhost:8443')
    expect(at('192.0.2.10', { ...tls, localAddress: '192.0.2.10', localPort: 443 })).toBe('https://192.0.2.10')
    expect(at('192.0.2.10', { ...tls, localAddress: '192.0.2.10', localPort: 80 })).toBeUndefined()
    expect(at('127.0.0.1:8443', { ...tls, secure: false })).toBe('http://127.0.0.1:8443')
    expect(consoleRedirectUri(at('127.0.0.1:8443', tls) ?? '')).toBe('https://127.0.0.1:8443/console/')
  })

  it('takes PUBLIC_URL whatever the Host, keeping its path', () => {
    expect(consoleBase('https://fleet.example.com/ops', { ...loopback, host: 'evil.test' })).toBe('https://fleet.example.com/ops')
    expect(consoleRedirectUri('https://fleet.example.com/ops')).toBe('https://fleet.example.com/ops/console/')
  })

  it('answers, for any Host header, nothing or http://<that Host> naming the listener (fuzz)', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.domain(), fc.webAuthority({ withPort: true })), (host) => {
      const base = at(host)
      if (base === undefined) return
      expect(base).toBe(`http://${host}`)
      const u = new URL(base)
      expect(u.port === '' ? 80 : Number(u.port)).toBe(8080)
      expect(['127.0.0.1', 'localhost', hostname().toLowerCase()]).toContain(u.hostname)
    }), { numRuns: 2000 })
  })
})

describe('CSPs from request text (fuzz)', () => {
  // A CSP directive ends at ';' and a source at a space or a quote: what came from a request must hold neither.
  const directives = ["default-src 'none'", 'style-src', "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'"]

  it('the sign-in page\'s: any redirect_uri adds at most one http(s) origin to form-action', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.webUrl({ withQueryParameters: true, withFragments: true })), (uri) => {
      const csp = signInCsp(uri)
      const parts = csp.split('; ')
      expect(parts.map((p) => p.split(' ').slice(0, p.startsWith('style-src') ? 1 : 2).join(' '))).toEqual(directives)
      const extra = (parts[2] ?? '').split(' ').slice(2)
      expect(extra.length).toBeLessThanOrEqual(1)
      for (const origin of extra) expect(origin).toBe(new URL(origin).origin)
    }), { numRuns: 2000 })
  })

  it('the console\'s: a Host that reaches it is one parsed host in connect-src', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.webAuthority({ withPort: true })), (host) => {
      const csp = consoleCsp(at(host))
      expect(csp.split('; ')).toHaveLength(10)
      const connect = csp.split('; ').find((d) => d.startsWith('connect-src')) ?? ''
      expect(connect.split(' ').length === 2 || connect.split(' ').length === 4).toBe(true)
    }), { numRuns: 2000 })
  })
})
