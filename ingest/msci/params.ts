// How the service reaches one gateway (docs/protocols/msci.md): host, user and password from the system's
// communication.msci; the access path, port, SNMP version and poll period from its MSCI application's communication
// parameters. A `host:port` host names its port (it wins over the parameters').
import { splitHost } from '../../core/domain/msci-host.js'

export type AccessPath = 'snmp' | 'acemanager'

export interface AccessParams {
  access: AccessPath
  host: string
  port: number
  /** SNMP only: "2c" (password = community) or "3" (user + password, SHA authentication). */
  snmpVersion: '2c' | '3'
  /** SNMP v3 only: authNoPriv (the default) or authPriv (AES, the password as privacy key too). */
  snmpSecurity: 'authNoPriv' | 'authPriv'
  user: string
  password: string
  periodMs: number
}

const DEFAULT_PORT: Record<AccessPath, number> = { snmp: 161, acemanager: 9191 }
const DEFAULT_PERIOD_S = 300

const validPort = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= 65535

/** The access to one gateway, or why its configuration does not allow a poll (a poll failure of its own). */
export function accessParams (
  msci: { host?: string | null, user?: string | null, password?: string | null },
  parameters: Record<string, unknown>
): { ok: true, params: AccessParams } | { ok: false, reason: string } {
  const where = splitHost(msci.host ?? '')
  if (where === undefined) return { ok: false, reason: 'msci.bad.host' }
  const access = parameters.access ?? 'snmp'
  if (access !== 'snmp' && access !== 'acemanager') return { ok: false, reason: 'msci.bad.access' }
  const port = where.port ?? parameters.port ?? DEFAULT_PORT[access]
  if (!validPort(port)) return { ok: false, reason: 'msci.bad.port' }
  const version = parameters.snmpVersion ?? '2c'
  if (version !== '2c' && version !== '3') return { ok: false, reason: 'msci.bad.snmpVersion' }
  const security = parameters.snmpSecurity ?? 'authNoPriv'
  if (security !== 'authNoPriv' && security !== 'authPriv') return { ok: false, reason: 'msci.bad.snmpSecurity' }
  const period = parameters.pollPeriodS ?? DEFAULT_PERIOD_S
  if (typeof period !== 'number' || !Number.isInteger(period) || period < 1) return { ok: false, reason: 'msci.bad.pollPeriodS' }
  return {
    ok: true,
    params: { access, host: where.host, port, snmpVersion: version, snmpSecurity: security, user: msci.user ?? '', password: msci.password ?? '', periodMs: period * 1000 }
  }
}
