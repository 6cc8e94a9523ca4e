// The only module that reads the environment (shared/style.md §2.3): parsed once at start,
// validated, frozen and passed down. A bad value stops the start with a message naming the variable.

export interface Config {
  HTTP_PORT: number
  HTTP_HOST: string
  DATA_DIR: string
  DATABASE_URL: string | undefined
  REDIS_URL: string | undefined
  LOG_LEVEL: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
  TOKEN_TTL_S: number
  REFRESH_TOKEN_TTL_S: number
  RATE_LIMIT_PER_S: number
  FLEET_COMPANY_NAME: string
  FLEET_ADMIN_EMAIL: string
  FLEET_ADMIN_PASSWORD: string | undefined
  FLEET_CLIENT_ID: string
  FLEET_CLIENT_SECRET: string | undefined
  /** Embedded MQTT broker port (conventions.md §Devices). */
  MQTT_PORT: number
  /** M3DA TCP port (conventions.md §Devices). */
  M3DA_PORT: number
  /** Expected communication period of a system without heartbeat, for commStatus WARNING/ERROR. */
  COMM_PERIOD_S: number
  /** Bound on concurrently running operation tasks in one process. */
  WORKER_CONCURRENCY: number
  /** SMTP server for operation e-mails; absent: .eml files in DATA_DIR/outbox. */
  SMTP_URL: string | undefined
  SMTP_FROM: string
  /** Secret of the X-Fleet-Signature header of operation callbacks; absent: unsigned. */
  CALLBACK_SECRET: string | undefined
  /** Allow callbacks to loopback, link-local and private addresses (tests, on-premises). */
  CALLBACK_ALLOW_PRIVATE: boolean
  /** Delay before the first retry of a failed callback; each next one doubles it (default 30 s; tests shorten it). */
  CALLBACK_RETRY_BASE_MS: number
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

function bool (env: Env, name: string, fallback: boolean): boolean {
  const v = optional(env, name)
  if (v === undefined) return fallback
  if (/^(1|true|yes|on)$/i.test(v)) return true
  if (/^(0|false|no|off)$/i.test(v)) return false
  throw new ConfigError(name, `must be true or false, got "${v}"`)
}

function email (env: Env, name: string, fallback: string): string {
  const v = str(env, name, fallback)
  if (!/^[^\s@]+@[^\s@]+$/.test(v)) throw new ConfigError(name, `must be an e-mail address, got "${v}"`)
  return v
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
    TOKEN_TTL_S: int(env, 'TOKEN_TTL_S', 3600, 1, 31_536_000),
    REFRESH_TOKEN_TTL_S: int(env, 'REFRESH_TOKEN_TTL_S', 30 * 86_400, 1, 315_360_000),
    RATE_LIMIT_PER_S: int(env, 'RATE_LIMIT_PER_S', 100, 1, 1_000_000_000),
    FLEET_COMPANY_NAME: str(env, 'FLEET_COMPANY_NAME', 'Fleet'),
    FLEET_ADMIN_EMAIL: email(env, 'FLEET_ADMIN_EMAIL', 'admin@fleet.local'),
    FLEET_ADMIN_PASSWORD: optional(env, 'FLEET_ADMIN_PASSWORD'),
    FLEET_CLIENT_ID: str(env, 'FLEET_CLIENT_ID', 'fleet-cli'),
    FLEET_CLIENT_SECRET: optional(env, 'FLEET_CLIENT_SECRET'),
    MQTT_PORT: int(env, 'MQTT_PORT', 1883, 0, 65535),
    M3DA_PORT: int(env, 'M3DA_PORT', 44900, 0, 65535),
    COMM_PERIOD_S: int(env, 'COMM_PERIOD_S', 3600, 1, 31_536_000),
    WORKER_CONCURRENCY: int(env, 'WORKER_CONCURRENCY', 16, 1, 10_000),
    SMTP_URL: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    SMTP_FROM: email(env, 'SMTP_FROM', 'fleet@fleet.local'),
    CALLBACK_SECRET: optional(env, 'CALLBACK_SECRET'),
    CALLBACK_ALLOW_PRIVATE: bool(env, 'CALLBACK_ALLOW_PRIVATE', false),
    CALLBACK_RETRY_BASE_MS: int(env, 'CALLBACK_RETRY_BASE_MS', 30_000, 1, 3_600_000)
  })
}
