// The SNMP agent of a simulated AirLink gateway (docs/protocols/msci.md), on net-snmp's Agent: the ALEOS OIDs of
// the MSCI table read-only (each GET reads the gateway now, so values move), the settings and the reboot read-write
// under the configuration group `…9.1.12.<id>.0`. v2c with a community, or v3 with a user (SHA, optionally AES).
import dgram from 'node:dgram'
import * as snmp from 'net-snmp'
import { MSCI_REBOOT, MSCI_TABLE } from '../../protocols/msci/ids.js'
import { readOid, writeOid } from '../../protocols/msci/oids.js'
import { FACTORY_SETTINGS, type AirlinkGateway, type GatewayValue } from './gateway.js'

export interface SnmpAgentOptions {
  /** v2c: the community the agent accepts. */
  community?: string
  /** v3: the user it accepts (SHA authentication with `password`; `priv`: AES with it too). */
  user?: { name: string, password: string, priv?: boolean }
  host?: string
  /** 0 (the default): any free UDP port. */
  port?: number
}

export interface SimulatedSnmpAgent { port: number, close (): Promise<void> }

// net-snmp binds `port || 161`: a dgram module whose sockets bind where asked, 0 included, gives an ephemeral port.
function dgramOn (port: number, host: string): { module: unknown, bound: Promise<number> } {
  let resolveBound: (p: number) => void = () => {}
  const bound = new Promise<number>((resolve) => { resolveBound = resolve })
  const module = {
    createSocket (type: dgram.SocketType) {
      const socket = dgram.createSocket(type)
      const bind = socket.bind.bind(socket)
      socket.bind = ((..._args: unknown[]) => bind(port, host, () => { resolveBound(socket.address().port) })) as typeof socket.bind
      return socket
    }
  }
  return { module, bound }
}

const typeOf = (v: GatewayValue): snmp.ObjectType => typeof v === 'number' && Number.isInteger(v) ? snmp.ObjectType.Integer : snmp.ObjectType.OctetString
/** A value in the provider's type (a setting written as text to an INTEGER OID reads back as its number, or 0). */
const asSnmp = (type: snmp.ObjectType, v: GatewayValue | undefined): GatewayValue => {
  if (type === snmp.ObjectType.Integer) return typeof v === 'number' && Number.isInteger(v) ? v : Number.isInteger(Number(v)) ? Number(v) : 0
  return v === undefined ? '' : String(v)
}

export async function startSnmpAgent (gateway: AirlinkGateway, opts: SnmpAgentOptions): Promise<SimulatedSnmpAgent> {
  const host = opts.host ?? '127.0.0.1'
  const { module, bound } = dgramOn(opts.port ?? 0, host)
  const agent = snmp.createAgent({ port: 1, address: host, dgramModule: module, accessControlModelType: snmp.AccessControlModelType.None }, () => {})
  const auth = agent.getAuthorizer()
  if (opts.community !== undefined) auth.addCommunity(opts.community)
  if (opts.user !== undefined) {
    auth.addUser({
      name: opts.user.name,
      level: opts.user.priv === true ? snmp.SecurityLevel.authPriv : snmp.SecurityLevel.authNoPriv,
      authProtocol: snmp.AuthProtocols.sha,
      authKey: opts.user.password,
      ...(opts.user.priv === true ? { privProtocol: snmp.PrivProtocols.aes, privKey: opts.user.password } : {})
    })
  }
  const mib = agent.getMib()
  const provide = (name: string, oid: string, id: number, writable: boolean): void => {
    const first = gateway.read(id) ?? 0
    const type = typeOf(first)
    mib.registerProvider({
      name,
      type: snmp.MibProviderType.Scalar,
      oid: oid.slice(0, -2),
      scalarType: type,
      maxAccess: writable ? snmp.MaxAccess['read-write'] : snmp.MaxAccess['read-only'],
      handler: (req: { operation: number, testSet?: boolean, setValue?: unknown, instanceNode: { value: unknown }, done: (e?: { errorStatus: number }) => void }) => {
        if (!gateway.up()) { req.done({ errorStatus: snmp.ErrorStatus.GeneralError }); return }
        if (req.operation === snmp.PduType.SetRequest) {
          // net-snmp runs a SET's handlers twice: a test pass (every varbind checked), then the commit pass.
          const v = Buffer.isBuffer(req.setValue) ? req.setValue.toString('utf8') : req.setValue as GatewayValue
          const ok = req.testSet === true ? gateway.writable(id, v) : gateway.write(id, v)
          req.done(ok ? undefined : { errorStatus: snmp.ErrorStatus.WrongValue })
          return
        }
        req.instanceNode.value = asSnmp(type, gateway.read(id))
        req.done()
      }
    })
    mib.setScalarValue(name, asSnmp(type, first))
  }
  for (const e of MSCI_TABLE) if (e.snmp !== null) provide(`msci${e.id}`, readOid(e.id), e.id, false)
  for (const id of FACTORY_SETTINGS.keys()) provide(`cfg${id}`, writeOid(id), id, true)
  provide('reboot', writeOid(MSCI_REBOOT), MSCI_REBOOT, true)
  const port = await bound
  let closed: Promise<void> | undefined
  return {
    port,
    async close () {
      closed ??= new Promise<void>((resolve) => { agent.close(() => { resolve() }) })
      await closed
    }
  }
}
