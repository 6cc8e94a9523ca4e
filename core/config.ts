// The only module that reads the environment (shared/style.md §2.3): parsed once at start,
// validated, frozen and passed down. A bad value stops the start with a message naming the variable.
import { isIP } from 'node:net'
import { hostname } from 'node:os'
import { DEFAULT_PASSWORD_HASH_COST } from './security/secrets.js'

export interface Config {
  HTTP_PORT: number
  HTTP_HOST: string
  DATA_DIR: string
  DATABASE_URL: string | undefined
  REDIS_URL: string | undefined
  LOG_LEVEL: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
  /** JSON lines (for machines, the default) or pretty (coloured, one readable line per event, for people). */
  LOG_FORMAT: 'json' | 'pretty'
  /** Sign-in throttling: failed tries on one account (or API client) from one address before the first wait. */
  LOGIN_THROTTLE_FAILURES: number
  /**
   * Sign-in throttling: failed tries on one account (or API client) from all addresses together before the first
   * wait; much higher than LOGIN_THROTTLE_FAILURES, so that guesses from elsewhere do not keep the owner out.
   */
  LOGIN_THROTTLE_ACCOUNT_FAILURES: number
  /** Sign-in throttling: failed tries from one client address before the first wait (many users may share one). */
  LOGIN_THROTTLE_ADDRESS_FAILURES: number
  /** Sign-in throttling: the first wait (ms); each further failure doubles it, up to 15 minutes. */
  LOGIN_THROTTLE_BASE_MS: number
  /**
   * scrypt cost of the password and client secret hashes (log2 N; conventions.md §Authentication): 15 by default,
   * about 50 ms a check. Each hash records its cost, so a change applies to hashes written after it.
   */
  PASSWORD_HASH_COST: number
  TOKEN_TTL_S: number
  REFRESH_TOKEN_TTL_S: number
  RATE_LIMIT_PER_S: number
  FLEET_COMPANY_NAME: string
  FLEET_ADMIN_EMAIL: string
  FLEET_ADMIN_PASSWORD: string | undefined
  FLEET_CLIENT_ID: string
  FLEET_CLIENT_SECRET: string | undefined
  /**
   * The address users reach the service at (e.g. https://fleet.example.com behind a TLS proxy): the web console's
   * redirect URI is <PUBLIC_URL>/console/. Absent: the address each sign-in request came to (console-client.ts).
   */
  PUBLIC_URL: string | undefined
  /** Embedded MQTT broker port (conventions.md §Devices). */
  MQTT_PORT: number
  /** M3DA TCP port (conventions.md §Devices). */
  M3DA_PORT: number
  /** The server id of M3DA security (protocols.md §2.8.1: KS = MD5(serverId ‖ K)); the agents' default. */
  M3DA_SERVER_ID: string
  /** An MQTT connection (TCP or WebSocket) that has not been sent its CONNACK this long after it opened is closed (ms). */
  MQTT_CONNECT_TIMEOUT_MS: number
  /** An M3DA TCP connection without an authentic envelope this long after it opened is closed (ms). */
  M3DA_LOGIN_TIMEOUT_MS: number
  /**
   * Device connections not logged in yet that one remote address may hold at once, per listener kind (MQTT over TCP
   * and WebSocket together, M3DA over TCP); a connection beyond it is closed at once.
   */
  UNAUTHENTICATED_CONNECTIONS_PER_ADDRESS: number
  /**
   * Addresses or CIDR ranges of the reverse proxies in front of the service (README "Behind a proxy"): only from them
   * is a forwarded client address believed (X-Forwarded-For, PROXY protocol). Empty: none.
   */
  TRUST_PROXY: string[]
  /** MQTT over TCP: every connection starts with a PROXY protocol header (v1 or v2) from a TRUST_PROXY address. */
  MQTT_PROXY_PROTOCOL: boolean
  /** M3DA over TCP: every connection starts with a PROXY protocol header (v1 or v2) from a TRUST_PROXY address. */
  M3DA_PROXY_PROTOCOL: boolean
  /** A connection whose PROXY protocol header is not complete this long after it opened is closed (ms). */
  PROXY_PROTOCOL_TIMEOUT_MS: number
  /** Device logins: wrong passwords for one login from one address before it waits (from all addresses: ten times). */
  DEVICE_LOGIN_THROTTLE_FAILURES: number
  /** Device logins: wrong passwords from one address (any device) before its logins wait. */
  DEVICE_LOGIN_THROTTLE_ADDRESS_FAILURES: number
  /** Device logins: the first wait (ms); each further failure doubles it, up to 15 minutes. */
  DEVICE_LOGIN_THROTTLE_BASE_MS: number
  /** The Sparkplug B host application id: the service's STATE topic is spBv1.0/STATE/<it> (protocols.md §4.1). */
  SPARKPLUG_HOST_ID: string
  /** Expected communication period of a system without heartbeat, for commStatus WARNING/ERROR. */
  COMM_PERIOD_S: number
  /** Aggregations fold the hourly rollups (default); false: they read the raw points only (issue 12, Rollups). */
  DATA_ROLLUPS: boolean
  /** AirLink gateways (MSCI) polled at once by one process (issue 13). */
  MSCI_POLL_CONCURRENCY: number
  /** How long one SNMP or AceManager request to a gateway may take before the poll counts as failed (ms). */
  MSCI_TIMEOUT_MS: number
  /**
   * The networks of the AirLink gateways (addresses or CIDR ranges): when set, a gateway is polled only at an address
   * inside them. Link-local, cloud metadata, unspecified, multicast and broadcast addresses are never polled, and
   * loopback only when a loopback network is listed here itself (ingest/msci/host-guard.ts).
   */
  MSCI_ALLOWED_NETWORKS: string[] | undefined
  /** Bound on concurrently running operation tasks in one process. */
  WORKER_CONCURRENCY: number
  /** SMTP server for operation e-mails; absent: .eml files in DATA_DIR/outbox. */
  SMTP_URL: string | undefined
  SMTP_FROM: string
  /**
   * HTTP SMS gateway of the connection request (conventions.md §Device tasks: the SMS shoulder tap), http or https;
   * credentials in the URL become Basic auth. Absent: tasks wait for the device's next connection.
   */
  SMS_GATEWAY_URL: string | undefined
  /** Secret of the X-Fleet-Signature header of operation callbacks; absent: unsigned. */
  CALLBACK_SECRET: string | undefined
  /** Allow callbacks to loopback, link-local and private addresses (tests, on-premises). */
  CALLBACK_ALLOW_PRIVATE: boolean
  /** Delay before the first retry of a failed callback; each next one doubles it (default 30 s; tests shorten it). */
  CALLBACK_RETRY_BASE_MS: number
  /** Origins allowed to call the API from a browser (CORS): a list, or '*' for any; undefined: no CORS headers. */
  CORS_ORIGINS: string[] | '*' | undefined
  /** When set, GET /metrics needs `Authorization: Bearer <it>`. */
  METRICS_TOKEN: string | undefined
  /** Load shedding (503 + Retry-After): a request read after the event loop went this long (ms) without turning is refused; 0: not checked. */
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: number
  /**
   * Admission of API requests: the most served at once (the adaptive limit grows up to it); the others wait for a
   * place (OVERLOAD_MAX_QUEUE_MS). 0: no admission control.
   */
  OVERLOAD_MAX_IN_FLIGHT: number
  /** Admission: how long (ms) an API request may wait for a place before it is refused; 0: refused at once when full. */
  OVERLOAD_MAX_QUEUE_MS: number
  /** Admission: the service time (ms) the limit of API requests adapts to; 0: the limit stays at OVERLOAD_MAX_IN_FLIGHT. */
  OVERLOAD_TARGET_MS: number
  /** Load shedding: heap in use (MiB) above which requests are refused; 0: not checked. */
  OVERLOAD_MAX_HEAP_MB: number
  /** Retry-After (seconds) of a shed request. */
  OVERLOAD_RETRY_AFTER_S: number
  /**
   * An external MQTT broker (issue 14): `mqtt://user:password@host:port`, the account the service uses there (the
   * same account administers Mosquitto's dynamic security). Absent: the embedded broker. Never logged whole.
   */
  MQTT_URL: string | undefined
  /**
   * With MQTT_URL: keep the devices' logins in Mosquitto's dynamic security (true, the default); false for a broker
   * that asks the HTTP authentication endpoints instead (EMQX, VerneMQ).
   */
  MQTT_DYNSEC: boolean
  /** With dynamic security: how often (s) one process of the cluster runs a full `fleet broker sync`; 0: never. */
  MQTT_DYNSEC_RESYNC_S: number
  /**
   * The name of this process in a cluster (issue 14; default: the host name): an ingest process's MQTT client ids at
   * an external broker derive from it, so that a restarted process resumes its persistent sessions.
   */
  FLEET_NODE_ID: string
  /**
   * What this process does (issue 14, roles): `api` the HTTP API, `ingest` the device transports, `worker` the
   * operations engine and the repeatable jobs. Default: all three (one process).
   */
  FLEET_ROLES: readonly Role[]
  /** The shared secret brokers send to the HTTP authentication endpoints (header X-Fleet-Broker-Secret or ?secret=). */
  BROKER_AUTH_SECRET: string | undefined
  /** Addresses (IPs, or CIDR ranges) allowed to call the HTTP authentication endpoints; undefined: any address. */
  BROKER_AUTH_ALLOW: string[] | undefined
  /** Live stream (issue 15): bytes waiting to be sent to one client above which it is closed as too slow. */
  STREAM_MAX_BUFFER_BYTES: number
  /** Live stream: how often (ms) a stream checks its token and rights again and re-reads its label and criteria. */
  STREAM_RECHECK_MS: number
  /**
   * Device limits (README "Device limits"): messages per second one device may send on one transport; a message over
   * the budget is refused (MQTT 5 PUBACK 0x97, REST 429, M3DA 503) and not stored. 0: no limit.
   */
  DEVICE_RATE_MESSAGES_PER_S: number
  /** Device limits: payload bytes per second one device may send on one transport. 0: no limit. */
  DEVICE_RATE_BYTES_PER_S: number
  /** Device limits: the burst, in seconds of each rate, a device that was quiet may send at once. */
  DEVICE_RATE_BURST_S: number
  /** Device limits: refusals of one device within 10 s after which its connection is closed (MQTT, M3DA); 0: never. */
  DEVICE_RATE_DISCONNECT_AFTER: number
  /** Device limits: messages of one connection waiting for their commit above which its socket is no longer read. */
  DEVICE_PENDING_MESSAGES: number
  /**
   * The ingest buffer's bound: approximate bytes of the device messages waiting for their commit, all devices
   * together; beyond it a message is refused as when the store is unavailable (the device sends it again).
   */
  INGEST_BUFFER_BYTES: number
  /**
   * Raw data points and device messages older than this many days expire, by whole UTC months (the monthly points
   * partitions, core/domain/point-partitions.ts); hourly rollups stay. 0: everything is kept.
   */
  DATA_RETENTION_DAYS: number
}

export class ConfigError extends Error {
  constructor (readonly variable: string, reason: string) {
    super(`invalid configuration: ${variable} ${reason}`)
    this.name = 'ConfigError'
  }
}

type Env = Record<string, string | undefined>

function str (env: Env, name: string, fallback: string): string {
  const v = env[name]
  return v === undefined || v === '' ? fallback : v
}

/** One MQTT topic level: not empty, no `/` and no wildcard (MQTT 3.1.1 §4.7). */
function topicLevel (env: Env, name: string, fallback: string): string {
  const v = str(env, name, fallback)
  if (/[/+#]/.test(v) || v.includes('\u0000')) throw new ConfigError(name, `must be one MQTT topic level (no /, + or #), got "${v}"`)
  return v
}

function optional (env: Env, name: string): string | undefined {
  const v = env[name]
  return v === undefined || v === '' ? undefined : v
}

function int (env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be an integer, got "${raw}"`)
  const n = Number(raw)
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`)
  return n
}

function url (env: Env, name: string, protocols: string[]): string | undefined {
  const raw = optional(env, name)
  if (raw === undefined) return undefined
  let parsed: URL
  try { parsed = new URL(raw) } catch { throw new ConfigError(name, `must be a URL, got "${raw}"`) }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}, got "${parsed.protocol}"`)
  }
  return raw
}

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

function level (env: Env): Config['LOG_LEVEL'] {
  const v = str(env, 'LOG_LEVEL', 'info')
  const found = LEVELS.find((l) => l === v)
  if (found === undefined) throw new ConfigError('LOG_LEVEL', `must be one of ${LEVELS.join(', ')}, got "${v}"`)
  return found
}

function logFormat (env: Env): Config['LOG_FORMAT'] {
  const v = str(env, 'LOG_FORMAT', 'json')
  if (v !== 'json' && v !== 'pretty') throw new ConfigError('LOG_FORMAT', `must be json or pretty, got "${v}"`)
  return v
}

function bool (env: Env, name: string, fallback: boolean): boolean {
  const v = optional(env, name)
  if (v === undefined) return fallback
  if (/^(1|true|yes|on)$/i.test(v)) return true
  if (/^(0|false|no|off)$/i.test(v)) return false
  throw new ConfigError(name, `must be true or false, got "${v}"`)
}

function origins (env: Env): Config['CORS_ORIGINS'] {
  const v = optional(env, 'CORS_ORIGINS')
  if (v === undefined) return undefined
  if (v.trim() === '*') return '*'
  const list = v.split(',').map((o) => o.trim()).filter((o) => o.length > 0)
  for (const o of list) {
    // An origin is scheme://host[:port] and nothing else: a path or a trailing slash never matches a browser's Origin.
    let parsed: URL | undefined
    try { parsed = new URL(o) } catch {}
    if (parsed === undefined || parsed.origin !== o) throw new ConfigError('CORS_ORIGINS', `must be * or comma-separated origins such as https://app.example.com, got "${o}"`)
  }
  return list
}

function email (env: Env, name: string, fallback: string): string {
  const v = str(env, name, fallback)
  if (!/^[^\s@]+@[^\s@]+$/.test(v)) throw new ConfigError(name, `must be an e-mail address, got "${v}"`)
  return v
}

export const ROLES = ['api', 'ingest', 'worker'] as const
export type Role = typeof ROLES[number]

/** A comma-separated subset of ROLES, at least one; absent: all of them. */
function roles (env: Env): readonly Role[] {
  const v = optional(env, 'FLEET_ROLES')
  if (v === undefined) return ROLES
  const parts = v.split(',').map((r) => r.trim().toLowerCase()).filter((r) => r !== '')
  const known = parts.filter((r): r is Role => (ROLES as readonly string[]).includes(r))
  if (known.length === 0 || known.length !== parts.length) throw new ConfigError('FLEET_ROLES', `must be a comma-separated list of ${ROLES.join(', ')}`)
  return ROLES.filter((r) => known.includes(r))
}

/** An MQTT client id part: letters, digits, '.', '_' and '-' (a host name qualifies), 1 to 64 of them. */
function nodeId (env: Env): string {
  const v = optional(env, 'FLEET_NODE_ID')
  if (v === undefined) return hostname().replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 64) || 'fleet'
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(v)) throw new ConfigError('FLEET_NODE_ID', 'must be 1 to 64 letters, digits, ".", "_" or "-"')
  return v
}

// The URL is never echoed in an error: it holds the broker account's password.
function mqttUrl (env: Env): string | undefined {
  const raw = optional(env, 'MQTT_URL')
  if (raw === undefined) return undefined
  let parsed: URL | undefined
  try { parsed = new URL(raw) } catch {}
  if (parsed === undefined || !['mqtt:', 'mqtts:', 'ws:', 'wss:'].includes(parsed.protocol) || parsed.hostname === '') {
    throw new ConfigError('MQTT_URL', 'must be a URL such as mqtt://user:password@host:1883 (mqtt, mqtts, ws or wss)')
  }
  return raw
}

function addressList (env: Env, name: string): string[] | undefined {
  const v = optional(env, name)
  if (v === undefined) return undefined
  const list = v.split(',').map((a) => a.trim()).filter((a) => a.length > 0)
  for (const a of list) {
    const [ip = '', bits, ...rest] = a.split('/')
    const family = isIP(ip)
    const maxBits = family === 6 ? 128 : 32
    if (family === 0 || rest.length > 0 || (bits !== undefined && (!/^\d+$/.test(bits) || Number(bits) > maxBits))) {
      throw new ConfigError(name, `must be comma-separated IP addresses or CIDR ranges such as 10.0.0.0/8, got "${a}"`)
    }
  }
  return list
}

/** Reads and validates the configuration. @throws ConfigError naming the first bad variable. */
export function loadConfig (env: Env): Readonly<Config> {
  return Object.freeze({
    HTTP_PORT: int(env, 'HTTP_PORT', 8080, 0, 65535),
    HTTP_HOST: str(env, 'HTTP_HOST', '0.0.0.0'),
    DATA_DIR: str(env, 'DATA_DIR', './data'),
    DATABASE_URL: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    REDIS_URL: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    LOG_LEVEL: level(env),
    LOG_FORMAT: logFormat(env),
    LOGIN_THROTTLE_FAILURES: int(env, 'LOGIN_THROTTLE_FAILURES', 5, 1, 1_000_000),
    LOGIN_THROTTLE_ACCOUNT_FAILURES: int(env, 'LOGIN_THROTTLE_ACCOUNT_FAILURES', 100, 1, 1_000_000),
    LOGIN_THROTTLE_ADDRESS_FAILURES: int(env, 'LOGIN_THROTTLE_ADDRESS_FAILURES', 20, 1, 1_000_000),
    LOGIN_THROTTLE_BASE_MS: int(env, 'LOGIN_THROTTLE_BASE_MS', 1000, 1, 900_000),
    // Below 2^10 a hash is cheap to guess; above 2^17 it needs more than the 256 MiB verifyPassword allows.
    PASSWORD_HASH_COST: int(env, 'PASSWORD_HASH_COST', DEFAULT_PASSWORD_HASH_COST, 10, 17),
    TOKEN_TTL_S: int(env, 'TOKEN_TTL_S', 3600, 1, 31_536_000),
    REFRESH_TOKEN_TTL_S: int(env, 'REFRESH_TOKEN_TTL_S', 30 * 86_400, 1, 315_360_000),
    RATE_LIMIT_PER_S: int(env, 'RATE_LIMIT_PER_S', 100, 1, 1_000_000_000),
    FLEET_COMPANY_NAME: str(env, 'FLEET_COMPANY_NAME', 'Fleet'),
    FLEET_ADMIN_EMAIL: email(env, 'FLEET_ADMIN_EMAIL', 'admin@fleet.local'),
    FLEET_ADMIN_PASSWORD: optional(env, 'FLEET_ADMIN_PASSWORD'),
    FLEET_CLIENT_ID: str(env, 'FLEET_CLIENT_ID', 'fleet-cli'),
    FLEET_CLIENT_SECRET: optional(env, 'FLEET_CLIENT_SECRET'),
    PUBLIC_URL: url(env, 'PUBLIC_URL', ['http:', 'https:']),
    MQTT_PORT: int(env, 'MQTT_PORT', 1883, 0, 65535),
    M3DA_PORT: int(env, 'M3DA_PORT', 44900, 0, 65535),
    M3DA_SERVER_ID: str(env, 'M3DA_SERVER_ID', 'AIRVANTAGE'),
    MQTT_CONNECT_TIMEOUT_MS: int(env, 'MQTT_CONNECT_TIMEOUT_MS', 10_000, 100, 600_000),
    M3DA_LOGIN_TIMEOUT_MS: int(env, 'M3DA_LOGIN_TIMEOUT_MS', 15_000, 100, 600_000),
    UNAUTHENTICATED_CONNECTIONS_PER_ADDRESS: int(env, 'UNAUTHENTICATED_CONNECTIONS_PER_ADDRESS', 50, 1, 1_000_000),
    TRUST_PROXY: addressList(env, 'TRUST_PROXY') ?? [],
    MQTT_PROXY_PROTOCOL: bool(env, 'MQTT_PROXY_PROTOCOL', false),
    M3DA_PROXY_PROTOCOL: bool(env, 'M3DA_PROXY_PROTOCOL', false),
    PROXY_PROTOCOL_TIMEOUT_MS: int(env, 'PROXY_PROTOCOL_TIMEOUT_MS', 5000, 100, 600_000),
    DEVICE_LOGIN_THROTTLE_FAILURES: int(env, 'DEVICE_LOGIN_THROTTLE_FAILURES', 10, 1, 1_000_000),
    DEVICE_LOGIN_THROTTLE_ADDRESS_FAILURES: int(env, 'DEVICE_LOGIN_THROTTLE_ADDRESS_FAILURES', 50, 1, 1_000_000),
    DEVICE_LOGIN_THROTTLE_BASE_MS: int(env, 'DEVICE_LOGIN_THROTTLE_BASE_MS', 1000, 1, 900_000),
    SPARKPLUG_HOST_ID: topicLevel(env, 'SPARKPLUG_HOST_ID', 'fleet'),
    COMM_PERIOD_S: int(env, 'COMM_PERIOD_S', 3600, 1, 31_536_000),
    DATA_ROLLUPS: bool(env, 'DATA_ROLLUPS', true),
    MSCI_POLL_CONCURRENCY: int(env, 'MSCI_POLL_CONCURRENCY', 64, 1, 10_000),
    MSCI_TIMEOUT_MS: int(env, 'MSCI_TIMEOUT_MS', 5000, 100, 600_000),
    MSCI_ALLOWED_NETWORKS: addressList(env, 'MSCI_ALLOWED_NETWORKS'),
    WORKER_CONCURRENCY: int(env, 'WORKER_CONCURRENCY', 16, 1, 10_000),
    SMTP_URL: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    SMTP_FROM: email(env, 'SMTP_FROM', 'fleet@fleet.local'),
    SMS_GATEWAY_URL: url(env, 'SMS_GATEWAY_URL', ['http:', 'https:']),
    CALLBACK_SECRET: optional(env, 'CALLBACK_SECRET'),
    CALLBACK_ALLOW_PRIVATE: bool(env, 'CALLBACK_ALLOW_PRIVATE', false),
    CALLBACK_RETRY_BASE_MS: int(env, 'CALLBACK_RETRY_BASE_MS', 30_000, 1, 3_600_000),
    CORS_ORIGINS: origins(env),
    METRICS_TOKEN: optional(env, 'METRICS_TOKEN'),
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: int(env, 'OVERLOAD_MAX_EVENT_LOOP_DELAY_MS', 500, 0, 600_000),
    OVERLOAD_MAX_IN_FLIGHT: int(env, 'OVERLOAD_MAX_IN_FLIGHT', 32, 0, 1_000_000),
    OVERLOAD_MAX_QUEUE_MS: int(env, 'OVERLOAD_MAX_QUEUE_MS', 250, 0, 60_000),
    OVERLOAD_TARGET_MS: int(env, 'OVERLOAD_TARGET_MS', 300, 0, 60_000),
    OVERLOAD_MAX_HEAP_MB: int(env, 'OVERLOAD_MAX_HEAP_MB', 0, 0, 1_000_000),
    OVERLOAD_RETRY_AFTER_S: int(env, 'OVERLOAD_RETRY_AFTER_S', 1, 1, 3600),
    MQTT_URL: mqttUrl(env),
    MQTT_DYNSEC: bool(env, 'MQTT_DYNSEC', true),
    MQTT_DYNSEC_RESYNC_S: int(env, 'MQTT_DYNSEC_RESYNC_S', 3600, 0, 604_800),
    FLEET_NODE_ID: nodeId(env),
    FLEET_ROLES: roles(env),
    BROKER_AUTH_SECRET: optional(env, 'BROKER_AUTH_SECRET'),
    BROKER_AUTH_ALLOW: addressList(env, 'BROKER_AUTH_ALLOW'),
    STREAM_MAX_BUFFER_BYTES: int(env, 'STREAM_MAX_BUFFER_BYTES', 1_048_576, 1024, 1_073_741_824),
    STREAM_RECHECK_MS: int(env, 'STREAM_RECHECK_MS', 10_000, 100, 3_600_000),
    DEVICE_RATE_MESSAGES_PER_S: int(env, 'DEVICE_RATE_MESSAGES_PER_S', 100, 0, 1_000_000),
    DEVICE_RATE_BYTES_PER_S: int(env, 'DEVICE_RATE_BYTES_PER_S', 512 * 1024, 0, 1_073_741_824),
    DEVICE_RATE_BURST_S: int(env, 'DEVICE_RATE_BURST_S', 5, 1, 3600),
    DEVICE_RATE_DISCONNECT_AFTER: int(env, 'DEVICE_RATE_DISCONNECT_AFTER', 1000, 0, 1_000_000_000),
    DEVICE_PENDING_MESSAGES: int(env, 'DEVICE_PENDING_MESSAGES', 64, 1, 1_000_000),
    // Below 64 KiB a few ordinary messages would fill it; one message alone is always taken (ingest.service.ts).
    INGEST_BUFFER_BYTES: int(env, 'INGEST_BUFFER_BYTES', 128 * 1024 * 1024, 65_536, 68_719_476_736),
    DATA_RETENTION_DAYS: int(env, 'DATA_RETENTION_DAYS', 0, 0, 36_500)
  })
}
