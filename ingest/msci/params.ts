// How the service reaches one gateway (conventions.md §Devices, MSCI): host, user and password from the system's
// communication.msci; the access path, port, SNMP version and poll period from its MSCI application's communication
// parameters. A `host:port` host names its port (it wins over the parameters').

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

/** `host`, `host:port`, `[v6]` or `[v6]:port`; undefined when it is none of them. */
export function splitHost (text: string): { host: string, port?: number } | undefined {
  const t = text.trim()
  const v6 = /^\[([0-9a-fA-F:.]+)\](?::(\d{1,5}))?$/.exec(t)
  const plain = /^([A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(t)
  const m = v6 ?? plain
  if (m === null) return undefined
  const port = m[2] === undefined ? undefined : Number(m[2])
  if (port !== undefined && !validPort(port)) return undefined
  return { host: m[1] as string, ...(port === undefined ? {} : { port }) }
}

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
