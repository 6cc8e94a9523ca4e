// `fleet simulate --protocol m3da` (simulator/README.md, "M3DA devices"): the M3DA flags become the fleet's link
// options, with the service's M3DA port as the default address, and a combination that cannot work is refused.
import { describe, expect, it } from 'vitest'
import { parseSimulateArgs, UsageError, type SimulateDefaults } from '../../simulator/cli.js'

const defaults: SimulateDefaults = { url: 'http://localhost:8080', mqttUrl: 'mqtt://localhost:1883', m3daUrl: 'tcp://localhost:44900', clientId: 'fleet-cli', clientSecret: 's', email: 'a@b.c', password: 'p' }
const parse = (...flags: string[]): ReturnType<typeof parseSimulateArgs> => parseSimulateArgs(['--devices', '3', '--protocol', 'm3da', ...flags], defaults)

describe('fleet simulate --protocol m3da', () => {
  it('defaults to TCP on the service\'s M3DA port, signing with hmac-sha1 and no cipher', () => {
    expect(parse()).toMatchObject({ protocol: 'm3da', m3daUrl: 'tcp://localhost:44900', m3daSecurity: { mode: 'password', mac: 'hmac-sha1', cipher: 'none' } })
  })

  it('reads the URL, the MAC, the cipher and auto-registration', () => {
    expect(parse('--m3da-url', 'http://h:1/device/com', '--m3da-security', 'hmac-md5', '--m3da-cipher', 'aes-ctr-256', '--m3da-autoreg'))
      .toMatchObject({ m3daUrl: 'http://h:1/device/com', m3daSecurity: { mode: 'autoreg', mac: 'hmac-md5', cipher: 'aes-ctr-256' } })
    expect(parse('--m3da-security', 'none').m3daSecurity).toEqual({ mode: 'none' })
  })

  it.each([
    [['--m3da-security', 'hmac-sha256']],
    [['--m3da-cipher', 'des']],
    [['--m3da-security', 'none', '--m3da-cipher', 'aes-cbc-128']],
    [['--m3da-security', 'none', '--m3da-autoreg']]
  ])('refuses %j', (flags) => {
    expect(() => parse(...flags)).toThrow(UsageError)
  })
})
