// The external broker's variables: MQTT_URL carries the service's account, so a bad one is refused
// naming the variable but never echoing the URL; BROKER_AUTH_ALLOW takes addresses and CIDR ranges only.
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../../core/config.js'

function refusal (env: Record<string, string>): ConfigError {
  try { loadConfig(env) } catch (err) { if (err instanceof ConfigError) return err; throw err }
  throw new Error('accepted')
}

describe('broker configuration', () => {
  it('takes mqtt, mqtts, ws and wss URLs with the account in them', () => {
    for (const url of ['mqtt://fleet:pw@broker:1883', 'mqtts://fleet:pw@broker', 'ws://broker/mqtt', 'wss://fleet:p%40ss@broker:443/mqtt']) {
      expect(loadConfig({ MQTT_URL: url }).MQTT_URL).toBe(url)
    }
  })

  it('refuses another URL naming MQTT_URL, without its password', () => {
    for (const url of ['http://fleet:hunter2@broker', 'fleet:hunter2@broker', 'mqtt://fleet:hunter2@', 'redis://fleet:hunter2@x']) {
      const err = refusal({ MQTT_URL: url })
      expect(err.variable).toBe('MQTT_URL')
      expect(err.message).not.toContain('hunter2')
    }
  })

  it('reads BROKER_AUTH_ALLOW as IPs and CIDR ranges', () => {
    expect(loadConfig({ BROKER_AUTH_ALLOW: ' 10.0.0.0/8, 192.168.1.7 ,fd00::/8' }).BROKER_AUTH_ALLOW).toEqual(['10.0.0.0/8', '192.168.1.7', 'fd00::/8'])
    for (const bad of ['broker.local', '10.0.0.0/33', 'fd00::/129', '10.0.0.1/8/1', '10.0.0.0/x']) expect(refusal({ BROKER_AUTH_ALLOW: bad }).variable).toBe('BROKER_AUTH_ALLOW')
  })

  it('MQTT_DYNSEC is a boolean, MQTT_DYNSEC_RESYNC_S seconds up to a week (0: off)', () => {
    expect(loadConfig({ MQTT_DYNSEC: 'false', MQTT_DYNSEC_RESYNC_S: '0' })).toMatchObject({ MQTT_DYNSEC: false, MQTT_DYNSEC_RESYNC_S: 0 })
    expect(refusal({ MQTT_DYNSEC: 'maybe' }).variable).toBe('MQTT_DYNSEC')
    expect(refusal({ MQTT_DYNSEC_RESYNC_S: '604801' }).variable).toBe('MQTT_DYNSEC_RESYNC_S')
  })

  it('BROKER_CA_FILE needs MQTT_URL, BROKER_COMPANY_CAS needs BROKER_CA_FILE, and the operator\'s CAs need no listener of the service then', () => {
    const url = 'mqtt://fleet:pw@broker:1883'
    expect(loadConfig({ MQTT_URL: url, BROKER_CA_FILE: '/trust/cas.pem', BROKER_COMPANY_CAS: 'true', TLS_CLIENT_CA_FILE: '/certs/ca.pem' }))
      .toMatchObject({ BROKER_CA_FILE: '/trust/cas.pem', BROKER_COMPANY_CAS: true, TLS_CLIENT_CA_FILE: '/certs/ca.pem', TLS_CERT_FILE: undefined })
    expect(refusal({ BROKER_CA_FILE: '/trust/cas.pem' }).variable).toBe('BROKER_CA_FILE')
    expect(refusal({ MQTT_URL: url, BROKER_COMPANY_CAS: 'true' }).variable).toBe('BROKER_COMPANY_CAS')
    expect(refusal({ MQTT_URL: url, BROKER_CA_FILE: '/trust/cas.pem', BROKER_COMPANY_CAS: 'yes please' }).variable).toBe('BROKER_COMPANY_CAS')
    expect(refusal({ MQTT_URL: url, TLS_CLIENT_CA_FILE: '/certs/ca.pem' }).variable).toBe('TLS_CLIENT_CA_FILE')
  })
})
