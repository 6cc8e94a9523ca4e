import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../../core/config.js'

function refusal (env: Record<string, string>): ConfigError {
  try { loadConfig(env) } catch (err) {
    expect(err).toBeInstanceOf(ConfigError)
    return err as ConfigError
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`)
}

const pair = { TLS_CERT_FILE: '/etc/fleet/server.pem', TLS_KEY_FILE: '/etc/fleet/server-key.pem' }

describe('TLS configuration', () => {
  it('has no TLS listener by default, MQTTS on 8883 and HTTPS on 8443 once the pair is set', () => {
    expect(loadConfig({})).toMatchObject({ TLS_CERT_FILE: undefined, TLS_KEY_FILE: undefined, MQTTS_PORT: 8883, HTTPS_PORT: 8443 })
    expect(loadConfig({ ...pair, MQTTS_PORT: '18883', HTTPS_PORT: '0' })).toMatchObject({ ...pair, MQTTS_PORT: 18883, HTTPS_PORT: 0 })
  })

  it('refuses one file of the pair without the other, naming the missing one', () => {
    expect(refusal({ TLS_CERT_FILE: pair.TLS_CERT_FILE })).toMatchObject({ variable: 'TLS_KEY_FILE', message: 'invalid configuration: TLS_KEY_FILE must be set with TLS_CERT_FILE (the private key of its certificate)' })
    expect(refusal({ TLS_KEY_FILE: pair.TLS_KEY_FILE }).variable).toBe('TLS_CERT_FILE')
    expect(refusal({ TLS_CLIENT_CA_FILE: '/etc/fleet/ca.pem' }).variable).toBe('TLS_CLIENT_CA_FILE')
  })

  it('switches the plain listeners off only where the TLS ones take their place', () => {
    expect(loadConfig({ ...pair, HTTP_PORT: 'off', MQTT_PORT: 'OFF' })).toMatchObject({ HTTP_PORT: 'off', MQTT_PORT: 'off' })
    expect(refusal({ HTTP_PORT: 'off' })).toMatchObject({ variable: 'HTTP_PORT', message: 'invalid configuration: HTTP_PORT off needs TLS_CERT_FILE and TLS_KEY_FILE (the HTTPS_PORT listener takes its place)' })
    expect(refusal({ MQTT_PORT: 'off' }).variable).toBe('MQTT_PORT')
  })

  it('refuses ports that are neither a port number nor off', () => {
    expect(refusal({ ...pair, MQTTS_PORT: 'off' }).variable).toBe('MQTTS_PORT')
    expect(refusal({ ...pair, HTTPS_PORT: '65536' }).variable).toBe('HTTPS_PORT')
    expect(refusal({ HTTP_PORT: 'of' }).message).toBe('invalid configuration: HTTP_PORT must be an integer, got "of"')
  })
})
