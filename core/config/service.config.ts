// The configuration of the process itself: where it listens and keeps its data, its logs, the API's browser origins,
// metrics and load shedding, its name and roles in a cluster, and the live stream's bounds.
import { hostname } from 'node:os'
import { ConfigError, optional, str, type Env } from './values.js'
import type { PortOrOff } from './tls.config.js'

export const ROLES = ['api', 'ingest', 'worker'] as const
export type Role = typeof ROLES[number]

export interface ServiceConfig {
  /** The plain HTTP listener; `off`: HTTPS only (docs/security.md#tls). */
  HTTP_PORT: PortOrOff
  HTTP_HOST: string
  DATA_DIR: string
  DATABASE_URL: string | undefined
  REDIS_URL: string | undefined
  /**
   * Where released binaries are kept (docs/decisions/0025-artifact-store.md): `files` under DATA_DIR/artifacts, or
   * `database`, chunks in the store's tables, which every process of a cluster reads. Default: database with
   * DATABASE_URL, files on the embedded store.
   */
  ARTIFACT_STORE: 'files' | 'database'
  LOG_LEVEL: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
  /** JSON lines (for machines, the default) or pretty (coloured, one readable line per event, for people). */
  LOG_FORMAT: 'json' | 'pretty'
  /**
   * The address users reach the service at (e.g. https://fleet.example.com behind a TLS proxy): the web console's
   * redirect URI is <PUBLIC_URL>/console/. Absent: the address each sign-in request came to (console-client.ts).
   */
  PUBLIC_URL: string | undefined
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
   * The name of this process in a cluster (default: the host name): an ingest process's MQTT client ids at
   * an external broker derive from it, so that a restarted process resumes its persistent sessions.
   */
  FLEET_NODE_ID: string
  /**
   * What this process does (roles): `api` the HTTP API, `ingest` the device transports, `worker` the
   * operations engine and the repeatable jobs. Default: all three (one process).
   */
  FLEET_ROLES: readonly Role[]
  /** Live stream: bytes waiting to be sent to one client above which it is closed as too slow. */
  STREAM_MAX_BUFFER_BYTES: number
  /** Live stream: how often (ms) a stream checks its token and rights again and re-reads its label and criteria. */
  STREAM_RECHECK_MS: number
}

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

export function level (env: Env): ServiceConfig['LOG_LEVEL'] {
  const v = str(env, 'LOG_LEVEL', 'info')
  const found = LEVELS.find((l) => l === v)
  if (found === undefined) throw new ConfigError('LOG_LEVEL', `must be one of ${LEVELS.join(', ')}, got "${v}"`)
  return found
}

export function logFormat (env: Env): ServiceConfig['LOG_FORMAT'] {
  const v = str(env, 'LOG_FORMAT', 'json')
  if (v !== 'json' && v !== 'pretty') throw new ConfigError('LOG_FORMAT', `must be json or pretty, got "${v}"`)
  return v
}

export function artifactStore (env: Env): ServiceConfig['ARTIFACT_STORE'] {
  const v = optional(env, 'ARTIFACT_STORE')
  if (v === undefined) return optional(env, 'DATABASE_URL') === undefined ? 'files' : 'database'
  if (v !== 'files' && v !== 'database') throw new ConfigError('ARTIFACT_STORE', `must be files or database, got "${v}"`)
  return v
}

export function origins (env: Env): ServiceConfig['CORS_ORIGINS'] {
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

/** A comma-separated subset of ROLES, at least one; absent: all of them. */
export function roles (env: Env): readonly Role[] {
  const v = optional(env, 'FLEET_ROLES')
  if (v === undefined) return ROLES
  const parts = v.split(',').map((r) => r.trim().toLowerCase()).filter((r) => r !== '')
  const known = parts.filter((r): r is Role => (ROLES as readonly string[]).includes(r))
  if (known.length === 0 || known.length !== parts.length) throw new ConfigError('FLEET_ROLES', `must be a comma-separated list of ${ROLES.join(', ')}`)
  return ROLES.filter((r) => known.includes(r))
}

/** An MQTT client id part: letters, digits, '.', '_' and '-' (a host name qualifies), 1 to 64 of them. */
export function nodeId (env: Env): string {
  const v = optional(env, 'FLEET_NODE_ID')
  if (v === undefined) return hostname().replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 64) || 'fleet'
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(v)) throw new ConfigError('FLEET_NODE_ID', 'must be 1 to 64 letters, digits, ".", "_" or "-"')
  return v
}
