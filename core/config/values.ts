// The readers of one environment variable each: a bad value stops the start with a ConfigError naming the variable.
import { isIP } from 'node:net'

export class ConfigError extends Error {
  constructor (readonly variable: string, reason: string) {
    super(`invalid configuration: ${variable} ${reason}`)
    this.name = 'ConfigError'
  }
}

export type Env = Record<string, string | undefined>

export function str (env: Env, name: string, fallback: string): string {
  const v = env[name]
  return v === undefined || v === '' ? fallback : v
}

/** One MQTT topic level: not empty, no `/` and no wildcard (MQTT 3.1.1 §4.7). */
export function topicLevel (env: Env, name: string, fallback: string): string {
  const v = str(env, name, fallback)
  if (/[/+#]/.test(v) || v.includes('\u0000')) throw new ConfigError(name, `must be one MQTT topic level (no /, + or #), got "${v}"`)
  return v
}

export function optional (env: Env, name: string): string | undefined {
  const v = env[name]
  return v === undefined || v === '' ? undefined : v
}

export function int (env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be an integer, got "${raw}"`)
  const n = Number(raw)
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`)
  return n
}

export function url (env: Env, name: string, protocols: string[]): string | undefined {
  const raw = optional(env, name)
  if (raw === undefined) return undefined
  let parsed: URL
  try { parsed = new URL(raw) } catch { throw new ConfigError(name, `must be a URL, got "${raw}"`) }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}, got "${parsed.protocol}"`)
  }
  return raw
}

export function bool (env: Env, name: string, fallback: boolean): boolean {
  const v = optional(env, name)
  if (v === undefined) return fallback
  if (/^(1|true|yes|on)$/i.test(v)) return true
  if (/^(0|false|no|off)$/i.test(v)) return false
  throw new ConfigError(name, `must be true or false, got "${v}"`)
}

export function email (env: Env, name: string, fallback: string): string {
  const v = str(env, name, fallback)
  if (!/^[^\s@]+@[^\s@]+$/.test(v)) throw new ConfigError(name, `must be an e-mail address, got "${v}"`)
  return v
}

export function addressList (env: Env, name: string): string[] | undefined {
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
