import { hostname } from 'node:os'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../core/config.js'

/** The ConfigError loadConfig throws for env, or fails the test when none is thrown. */
function configError (env: Record<string, string>): ConfigError {
  try {
    loadConfig(env)
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError)
    return err as ConfigError
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`)
}

describe('loadConfig', () => {
  it('answers the documented defaults on an empty environment', () => {
    expect(loadConfig({})).toEqual({
      HTTP_PORT: 8080,
      HTTP_HOST: '0.0.0.0',
      DATA_DIR: './data',
      DATABASE_URL: undefined,
      ARTIFACT_STORE: 'files',
      PUBLIC_URL: undefined,
      APPLICATION_RELEASE_MAX_BYTES: 512 * 1024 * 1024,
      REDIS_URL: undefined,
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      TOKEN_TTL_S: 3600,
      REFRESH_TOKEN_TTL_S: 2_592_000,
      RATE_LIMIT_PER_S: 100,
      ALERT_RULES_PER_COMPANY: 1000,
      ALERT_CHECK_S: 60,
      FLEET_COMPANY_NAME: 'Fleet',
      FLEET_ADMIN_EMAIL: 'admin@fleet.local',
      FLEET_ADMIN_PASSWORD: undefined,
      FLEET_CLIENT_ID: 'fleet-cli',
      FLEET_CLIENT_SECRET: undefined,
      MQTT_PORT: 1883,
      M3DA_PORT: 44900,
      LWM2M_PORT: 5683,
      LWM2MS_PORT: 5684,
      LWM2MS_HANDSHAKES_PER_S: 10,
      LWM2MS_HANDSHAKE_BURST: 50,
      M3DA_SERVER_ID: 'AIRVANTAGE',
      SPARKPLUG_HOST_ID: 'fleet',
      COMM_PERIOD_S: 3600,
      MSCI_POLL_CONCURRENCY: 64,
      MSCI_TIMEOUT_MS: 5000,
      MSCI_ALLOWED_NETWORKS: undefined,
      DATA_ROLLUPS: true,
      WORKER_CONCURRENCY: 16,
      SMTP_URL: undefined,
      SMTP_FROM: 'fleet@fleet.local',
      CALLBACK_SECRET: undefined,
      CALLBACK_ALLOW_PRIVATE: false,
      CALLBACK_RETRY_BASE_MS: 30_000,
      CORS_ORIGINS: undefined,
      METRICS_TOKEN: undefined,
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: 500,
      OVERLOAD_MAX_IN_FLIGHT: 32,
      OVERLOAD_MAX_QUEUE_MS: 250,
      OVERLOAD_TARGET_MS: 300,
      OVERLOAD_MAX_HEAP_MB: 0,
      OVERLOAD_RETRY_AFTER_S: 1,
      STREAM_MAX_BUFFER_BYTES: 1_048_576,
      STREAM_RECHECK_MS: 10_000,
      DEVICE_RATE_MESSAGES_PER_S: 100,
      DEVICE_RATE_BYTES_PER_S: 524_288,
      DEVICE_RATE_BURST_S: 5,
      DEVICE_RATE_DISCONNECT_AFTER: 1000,
      DEVICE_PENDING_MESSAGES: 64,
      INGEST_BUFFER_BYTES: 134_217_728,
      LOGIN_THROTTLE_FAILURES: 5,
      LOGIN_THROTTLE_ACCOUNT_FAILURES: 100,
      LOGIN_THROTTLE_ADDRESS_FAILURES: 20,
      LOGIN_THROTTLE_BASE_MS: 1000,
      TRUST_PROXY: [],
      MQTT_PROXY_PROTOCOL: false,
      M3DA_PROXY_PROTOCOL: false,
      PROXY_PROTOCOL_TIMEOUT_MS: 5000,
      MQTT_CONNECT_TIMEOUT_MS: 10_000,
      M3DA_LOGIN_TIMEOUT_MS: 15_000,
      UNAUTHENTICATED_CONNECTIONS_PER_ADDRESS: 50,
      DEVICE_LOGIN_THROTTLE_FAILURES: 10,
      DEVICE_LOGIN_THROTTLE_ADDRESS_FAILURES: 50,
      DEVICE_LOGIN_THROTTLE_BASE_MS: 1000,
      PASSWORD_HASH_COST: 15,
      DATA_RETENTION_DAYS: 0,
      TLS_CERT_FILE: undefined,
      TLS_KEY_FILE: undefined,
      TLS_CLIENT_CA_FILE: undefined,
      MQTTS_PORT: 8883,
      HTTPS_PORT: 8443,
      // The host name, as an MQTT client id part.
      FLEET_NODE_ID: hostname().replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 64) || 'fleet',
      FLEET_ROLES: ['api', 'ingest', 'worker'],
      SMS_GATEWAY_URL: undefined,
      MQTT_URL: undefined,
      MQTT_DYNSEC: true,
      MQTT_DYNSEC_RESYNC_S: 3600,
      BROKER_AUTH_SECRET: undefined,
      BROKER_AUTH_ALLOW: undefined,
      BROKER_CA_FILE: undefined,
      BROKER_COMPANY_CAS: false
    })
  })

  it('reads FLEET_ROLES as a subset of api, ingest, worker in that order, and refuses anything else naming the variable', () => {
    expect(loadConfig({ FLEET_ROLES: 'worker, API' }).FLEET_ROLES).toEqual(['api', 'worker'])
    for (const bad of [',', 'api,broker', 'all']) expect(configError({ FLEET_ROLES: bad }).variable).toBe('FLEET_ROLES')
  })

  it('keeps artifacts in files on the embedded store and in the database with DATABASE_URL, unless ARTIFACT_STORE says', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://db/fleet' }).ARTIFACT_STORE).toBe('database')
    expect(loadConfig({ DATABASE_URL: 'postgres://db/fleet', ARTIFACT_STORE: 'files' }).ARTIFACT_STORE).toBe('files')
    expect(loadConfig({ ARTIFACT_STORE: 'database' }).ARTIFACT_STORE).toBe('database')
    for (const bad of ['s3', 'File']) expect(configError({ ARTIFACT_STORE: bad }).variable).toBe('ARTIFACT_STORE')
  })

  it('reads FLEET_NODE_ID as a client id part, and refuses anything else naming the variable', () => {
    expect(loadConfig({ FLEET_NODE_ID: 'ingest-1.eu_west' }).FLEET_NODE_ID).toBe('ingest-1.eu_west')
    for (const bad of ['a b', 'node/1', 'x'.repeat(65), 'é']) expect(configError({ FLEET_NODE_ID: bad }).variable).toBe('FLEET_NODE_ID')
  })

  it('reads SPARKPLUG_HOST_ID as one MQTT topic level, and refuses anything else naming the variable', () => {
    expect(loadConfig({ SPARKPLUG_HOST_ID: 'scada-1' }).SPARKPLUG_HOST_ID).toBe('scada-1')
    for (const bad of ['a/b', '+', '#', 'x#']) expect(configError({ SPARKPLUG_HOST_ID: bad }).variable).toBe('SPARKPLUG_HOST_ID')
  })

  it('reads CORS_ORIGINS as * or a list of origins, and refuses anything else naming the variable', () => {
    expect(loadConfig({ CORS_ORIGINS: '*' }).CORS_ORIGINS).toBe('*')
    expect(loadConfig({ CORS_ORIGINS: 'https://a.example.com, http://localhost:3000' }).CORS_ORIGINS).toEqual(['https://a.example.com', 'http://localhost:3000'])
    for (const bad of ['https://a.example.com/', 'https://a.example.com/app', 'a.example.com', 'https://a.example.com,*']) {
      expect(configError({ CORS_ORIGINS: bad }).variable).toBe('CORS_ORIGINS')
    }
  })

  it('treats an empty value as unset', () => {
    const c = loadConfig({ HTTP_PORT: '', DATABASE_URL: '', LOG_LEVEL: '', FLEET_ADMIN_PASSWORD: '' })
    expect(c).toMatchObject({ HTTP_PORT: 8080, DATABASE_URL: undefined, LOG_LEVEL: 'info', FLEET_ADMIN_PASSWORD: undefined })
  })

  it('reads given values', () => {
    const c = loadConfig({
      HTTP_PORT: '0',
      DATABASE_URL: 'postgres://u@db:5432/fleet',
      REDIS_URL: 'rediss://cache:6380',
      SMTP_URL: 'smtp://mail:25',
      LOG_LEVEL: 'silent',
      FLEET_ADMIN_EMAIL: 'root@example.com',
      CALLBACK_ALLOW_PRIVATE: 'yes',
      WORKER_CONCURRENCY: '4',
      DATA_RETENTION_DAYS: '400'
    })
    expect(c).toMatchObject({
      HTTP_PORT: 0,
      DATABASE_URL: 'postgres://u@db:5432/fleet',
      REDIS_URL: 'rediss://cache:6380',
      SMTP_URL: 'smtp://mail:25',
      LOG_LEVEL: 'silent',
      FLEET_ADMIN_EMAIL: 'root@example.com',
      CALLBACK_ALLOW_PRIVATE: true,
      WORKER_CONCURRENCY: 4,
      DATA_RETENTION_DAYS: 400
    })
    expect(loadConfig({ CALLBACK_ALLOW_PRIVATE: 'off' }).CALLBACK_ALLOW_PRIVATE).toBe(false)
  })

  it('answers a frozen object', () => {
    expect(Object.isFrozen(loadConfig({}))).toBe(true)
  })

  it.each([
    ['HTTP_PORT', 'abc'],
    ['HTTP_PORT', '80.5'],
    ['HTTP_PORT', '-1'],
    ['MQTT_PORT', '1e3'],
    ['TOKEN_TTL_S', 'one hour'],
    ['DATA_RETENTION_DAYS', '-30'],
    ['DATA_RETENTION_DAYS', '30d'],
    ['OVERLOAD_MAX_QUEUE_MS', '0.5s']
  ])('refuses a non-integer %s=%s, naming the variable', (name, value) => {
    const err = configError({ [name]: value })
    expect(err.variable).toBe(name)
    expect(err.message).toContain(name)
    expect(err.message).toMatch(/integer/)
  })

  it.each([
    ['HTTP_PORT', '65536'],
    ['M3DA_PORT', '100000'],
    ['LWM2M_PORT', '65536'],
    ['LWM2MS_PORT', '70000'],
    ['TOKEN_TTL_S', '0'],
    ['WORKER_CONCURRENCY', '0'],
    ['RATE_LIMIT_PER_S', '0'],
    ['ALERT_RULES_PER_COMPANY', '0'],
    ['ALERT_CHECK_S', '0'],
    ['ALERT_CHECK_S', '86401'],
    ['DATA_RETENTION_DAYS', '36501'],
    ['PASSWORD_HASH_COST', '9'],
    ['PASSWORD_HASH_COST', '18'],
    ['OVERLOAD_MAX_QUEUE_MS', '60001'],
    ['OVERLOAD_TARGET_MS', '60001']
  ])('refuses an out-of-range %s=%s, naming the variable', (name, value) => {
    const err = configError({ [name]: value })
    expect(err.variable).toBe(name)
    expect(err.message).toContain(name)
    expect(err.message).toMatch(/between/)
  })

  it.each([
    ['DATABASE_URL', 'mysql://db/fleet'],
    ['DATABASE_URL', 'not a url'],
    ['REDIS_URL', 'http://cache:6379'],
    ['SMTP_URL', 'imap://mail']
  ])('refuses %s=%s (wrong scheme or not a URL), naming the variable', (name, value) => {
    const err = configError({ [name]: value })
    expect(err.variable).toBe(name)
    expect(err.message).toContain(name)
  })

  it('refuses an unknown LOG_LEVEL and lists the accepted ones', () => {
    const err = configError({ LOG_LEVEL: 'verbose' })
    expect(err.variable).toBe('LOG_LEVEL')
    expect(err.message).toMatch(/LOG_LEVEL.*info/)
  })

  it.each([
    ['FLEET_ADMIN_EMAIL', 'admin'],
    ['FLEET_ADMIN_EMAIL', 'a b@c'],
    ['SMTP_FROM', 'fleet.local']
  ])('refuses %s=%s, not an e-mail address', (name, value) => {
    const err = configError({ [name]: value })
    expect(err.variable).toBe(name)
    expect(err.message).toMatch(/e-mail/)
  })

  it('refuses a CALLBACK_ALLOW_PRIVATE that is not a boolean', () => {
    const err = configError({ CALLBACK_ALLOW_PRIVATE: 'maybe' })
    expect(err.variable).toBe('CALLBACK_ALLOW_PRIVATE')
    expect(err.message).toMatch(/CALLBACK_ALLOW_PRIVATE.*true or false/)
  })

  it('reads TRUST_PROXY as IPs and CIDR ranges and the PROXY protocol switches as booleans, naming a bad one', () => {
    const c = loadConfig({ TRUST_PROXY: ' 10.0.0.5, fd00::/8', MQTT_PROXY_PROTOCOL: 'true', M3DA_PROXY_PROTOCOL: 'yes' })
    expect([c.TRUST_PROXY, c.MQTT_PROXY_PROTOCOL, c.M3DA_PROXY_PROTOCOL]).toEqual([['10.0.0.5', 'fd00::/8'], true, true])
    for (const bad of ['proxy.local', '10.0.0.0/33']) expect(configError({ TRUST_PROXY: bad }).variable).toBe('TRUST_PROXY')
    expect(configError({ MQTT_PROXY_PROTOCOL: 'v2' }).variable).toBe('MQTT_PROXY_PROTOCOL')
    expect(configError({ LOGIN_THROTTLE_ACCOUNT_FAILURES: '0' }).variable).toBe('LOGIN_THROTTLE_ACCOUNT_FAILURES')
    expect(configError({ DEVICE_LOGIN_THROTTLE_FAILURES: '0' }).variable).toBe('DEVICE_LOGIN_THROTTLE_FAILURES')
  })

  it('reads MSCI_ALLOWED_NETWORKS as IPs and CIDR ranges, naming a bad one', () => {
    expect(loadConfig({ MSCI_ALLOWED_NETWORKS: '10.20.0.0/16, 2001:db8::/32,192.0.2.7' }).MSCI_ALLOWED_NETWORKS).toEqual(['10.20.0.0/16', '2001:db8::/32', '192.0.2.7'])
    for (const bad of ['gateways.local', '10.0.0.0/33', '10.0.0.0/8/1']) expect(configError({ MSCI_ALLOWED_NETWORKS: bad }).variable).toBe('MSCI_ALLOWED_NETWORKS')
  })

  it('reads the device limits, 0 turning a rate off, and refuses a bad one naming the variable', () => {
    expect(loadConfig({ DEVICE_RATE_MESSAGES_PER_S: '0', DEVICE_RATE_BYTES_PER_S: '0' })).toMatchObject({ DEVICE_RATE_MESSAGES_PER_S: 0, DEVICE_RATE_BYTES_PER_S: 0 })
    for (const [variable, value] of [['DEVICE_RATE_MESSAGES_PER_S', '-1'], ['DEVICE_RATE_BYTES_PER_S', '1.5'], ['DEVICE_RATE_BURST_S', '0'],
      ['DEVICE_RATE_DISCONNECT_AFTER', 'many'], ['DEVICE_PENDING_MESSAGES', '0'], ['INGEST_BUFFER_BYTES', '1024']] as const) {
      expect(configError({ [variable]: value }).variable).toBe(variable)
    }
  })

  it('has every variable in the configuration table of docs/configuration.md', () => {
    const readme = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8')
    const documented = [...readme.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1])
    expect(documented.sort()).toEqual(Object.keys(loadConfig({})).sort())
  })
})
