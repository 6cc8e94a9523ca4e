// SNMP access to an AirLink gateway (docs/protocols/msci.md; docs/protocols/msci.md): v2c with the password as
// community, or v3 with the user and password (SHA authentication; authPriv adds AES with the same password). Reads
// GET the ALEOS OIDs of the ids, writes SET them. net-snmp's own error texts can hold the community, so every error
// becomes one of ours, in words that hold nothing of the request.
import * as snmp from 'net-snmp'
import { idOfOid, readOid, writeOid } from '../../protocols/msci/oids.js'
import { MsciError, type GatewayAccess, type RawValue } from './access.js'
import type { AccessParams } from './params.js'

/** OIDs per GET: keeps a request in one UDP datagram however many ids a retrieve names. */
const PER_REQUEST = 32

function session (p: AccessParams, timeoutMs: number): snmp.Session {
  const options = { port: p.port, timeout: timeoutMs, retries: 0 }
  if (p.snmpVersion === '2c') return snmp.createSession(p.host, p.password, { ...options, version: snmp.Version2c })
  const user: snmp.User = {
    name: p.user,
    level: p.snmpSecurity === 'authPriv' ? snmp.SecurityLevel.authPriv : snmp.SecurityLevel.authNoPriv,
    authProtocol: snmp.AuthProtocols.sha,
    authKey: p.password,
    ...(p.snmpSecurity === 'authPriv' ? { privProtocol: snmp.PrivProtocols.aes, privKey: p.password } : {})
  }
  return snmp.createV3Session(p.host, user, { ...options, version: snmp.Version3 })
}

/** A varbind's value as text or a number (§5.3: numbers often come as OCTET STRING; the caller parses them). */
function rawOf (vb: snmp.Varbind): RawValue | undefined {
  const v = vb.value
  if (typeof v === 'number') return v
  if (typeof v === 'bigint') return Number(v)
  if (typeof v === 'string') return v
  if (typeof v === 'boolean') return v ? 1 : 0
  if (Buffer.isBuffer(v)) {
    if (vb.type === snmp.ObjectType.Counter64) return v.length > 9 ? undefined : v.reduce((n, byte) => n * 256 + byte, 0)
    return v.toString('utf8')
  }
  return undefined
}

function failure (err: Error, garbled: boolean): MsciError {
  if (garbled) return new MsciError('garbage', 'the gateway answered something that is not SNMP')
  switch (err.name) {
    case 'RequestTimedOutError': return new MsciError('unreachable', 'no SNMP answer in time')
    case 'RequestFailedError': return new MsciError('refused', `SNMP error status ${String((err as snmp.RequestFailedError).status)}`)
    case 'ResponseInvalidError': {
      const code = (err as snmp.ResponseInvalidError).code
      // A v3 report (unknown user, wrong digest) or an answer that does not authenticate: the credentials are wrong.
      const denied = [snmp.ResponseInvalidCode.EAuthFailure, snmp.ResponseInvalidCode.ECouldNotDecrypt, snmp.ResponseInvalidCode.EUnexpectedReport].includes(code)
      return denied ? new MsciError('denied', 'the gateway refused the SNMP credentials') : new MsciError('garbage', `invalid SNMP answer (${String(code)})`)
    }
    default: return new MsciError('unreachable', 'SNMP request failed')
  }
}

export function snmpAccess (p: AccessParams, timeoutMs: number): GatewayAccess {
  const s = session(p, timeoutMs)
  let garbled = false
  // A datagram net-snmp cannot parse is an 'error' event of the session (unhandled, it would end the process).
  s.on('error', () => { garbled = true })

  const call = async (fn: (done: (err: Error | null, varbinds?: snmp.Varbind[]) => void) => void): Promise<snmp.Varbind[]> =>
    await new Promise((resolve, reject) => {
      try {
        fn((err, varbinds) => { if (err !== null && err !== undefined) reject(failure(err, garbled)); else resolve(varbinds ?? []) })
      } catch (err) {
        reject(failure(err as Error, garbled))
      }
    })

  return {
    async read (ids) {
      const out = new Map<number, RawValue>()
      for (let i = 0; i < ids.length; i += PER_REQUEST) {
        const oids = ids.slice(i, i + PER_REQUEST).map(readOid)
        const varbinds = await call((done) => s.get(oids, (err, vbs) => { done(err, vbs) }))
        for (const vb of varbinds) {
          if (snmp.isVarbindError(vb)) continue // noSuchObject / noSuchInstance: the gateway has no such id
          const id = idOfOid(vb.oid)
          const raw = rawOf(vb)
          if (id === undefined || !oids.includes(vb.oid)) throw new MsciError('garbage', 'SNMP answer for an OID not asked for')
          if (raw !== undefined) out.set(id, raw)
        }
      }
      return out
    },
    async write (values) {
      const varbinds: snmp.Varbind[] = values.map(([id, v]) => typeof v === 'number' && Number.isInteger(v)
        ? { oid: writeOid(id), type: snmp.ObjectType.Integer, value: v }
        : { oid: writeOid(id), type: snmp.ObjectType.OctetString, value: String(v) })
      const answered = await call((done) => s.set(varbinds, (err, vbs) => { done(err, vbs) }))
      const bad = answered.find((vb) => snmp.isVarbindError(vb))
      if (bad !== undefined) throw new MsciError('refused', `SNMP ${snmp.varbindError(bad).split(':')[0] ?? 'error'}`)
    },
    close () {
      try { s.close() } catch { /* already closed */ }
    }
  }
}
