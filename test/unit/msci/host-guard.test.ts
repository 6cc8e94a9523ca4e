// Where an MSCI poll may go (ingest/msci/host-guard.ts): never the service's machine, link or cloud metadata, and
// only MSCI_ALLOWED_NETWORKS when it is set; names are resolved and every address checked.
import type { LookupAddress } from 'node:dns'
import { describe, expect, it } from 'vitest'
import { createHostGuard } from '../../../ingest/msci/host-guard.js'

const NAMES: Record<string, string[]> = {
  'gw.example': ['10.20.0.7'],
  'mixed.example': ['10.20.0.8', '169.254.169.254'],
  'local.example': ['127.0.0.1'],
  'v6.example': ['fd00:ec2::254']
}
const lookup = async (host: string): Promise<LookupAddress[]> => {
  const found = NAMES[host]
  if (found === undefined) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' })
  return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
}
const guard = (allowed?: string[]) => createHostGuard({ allowed, timeoutMs: 1000, lookup })

describe('without MSCI_ALLOWED_NETWORKS', () => {
  it.each(['127.0.0.1', '127.9.9.9', '::1', '169.254.169.254', '169.254.1.1', 'fe80::1', 'fd00:ec2::254', '100.100.100.200',
    '0.0.0.0', '::', '224.0.0.1', 'ff02::1', '255.255.255.255', '::ffff:169.254.169.254', '::ffff:127.0.0.1',
    '64:ff9b::a9fe:a9fe', 'local.example', 'mixed.example', 'v6.example'])('refuses %s', async (host) => {
    expect(await guard().resolve(host)).toEqual({ ok: false, reason: 'msci.host.forbidden' })
  })

  it.each([['10.20.0.7', '10.20.0.7'], ['100.64.3.4', '100.64.3.4'], ['fd00::7', 'fd00::7'], ['203.0.113.9', '203.0.113.9'], ['gw.example', '10.20.0.7']])(
    'polls %s at %s (the checked address itself)', async (host, address) => {
      expect(await guard().resolve(host)).toEqual({ ok: true, address })
    })

  it('a name that does not resolve is unreachable', async () => {
    expect(await guard().resolve('nowhere.example')).toEqual({ ok: false, reason: 'unreachable' })
  })

  it('a resolver that never answers is unreachable after the timeout', async () => {
    const silent = createHostGuard({ allowed: undefined, timeoutMs: 50, lookup: async () => await new Promise<LookupAddress[]>(() => {}) })
    expect(await silent.resolve('slow.example')).toEqual({ ok: false, reason: 'unreachable' })
  })
})

describe('with MSCI_ALLOWED_NETWORKS', () => {
  it('polls only inside the listed networks', async () => {
    const g = guard(['10.20.0.0/16', '2001:db8::/32'])
    expect(await g.resolve('10.20.3.4')).toEqual({ ok: true, address: '10.20.3.4' })
    expect(await g.resolve('gw.example')).toEqual({ ok: true, address: '10.20.0.7' })
    expect(await g.resolve('2001:db8::5')).toEqual({ ok: true, address: '2001:db8::5' })
    expect(await g.resolve('10.21.0.1')).toEqual({ ok: false, reason: 'msci.host.forbidden' })
    expect(await g.resolve('203.0.113.9')).toEqual({ ok: false, reason: 'msci.host.forbidden' })
  })

  it('never admits link-local, metadata, multicast or unspecified addresses, even when listed', async () => {
    const g = guard(['0.0.0.0/0', '::/0', '169.254.0.0/16', '224.0.0.0/4'])
    for (const host of ['169.254.169.254', '169.254.1.1', '224.0.0.1', '0.0.0.0', 'fd00:ec2::254', '127.0.0.1', '::1']) {
      expect(await g.resolve(host)).toEqual({ ok: false, reason: 'msci.host.forbidden' })
    }
    expect(await g.resolve('198.51.100.1')).toEqual({ ok: true, address: '198.51.100.1' })
  })

  it('admits loopback only when a loopback network is listed itself', async () => {
    const g = guard(['127.0.0.0/8'])
    expect(await g.resolve('127.0.0.1')).toEqual({ ok: true, address: '127.0.0.1' })
    expect(await g.resolve('local.example')).toEqual({ ok: true, address: '127.0.0.1' })
    expect(await g.resolve('::1')).toEqual({ ok: false, reason: 'msci.host.forbidden' })
    expect(await g.resolve('10.20.0.7')).toEqual({ ok: false, reason: 'msci.host.forbidden' })
  })
})
