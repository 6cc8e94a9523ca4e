import type { Queryable } from '../../core/ports/store.js'
import type { BrokerLogin, BrokerLoginsRepository } from '../../core/ports/broker.js'
import { MQTT_X509 } from './systems/device-logins.js'

interface Row { system_uid: string, identifier: string, password: string | null }

const toLogin = (r: Row): BrokerLogin => ({ systemUid: r.system_uid, identifier: r.identifier, password: r.password })

/**
 * Which certificates the broker trusts (docs/cluster.md#device-certificates-with-the-external-broker, BROKER_CA_FILE):
 * a system one of them may name logs in by certificate, so the broker must hold its logins even without a password.
 */
export interface BrokerCertificateTrust {
  /** TLS_CLIENT_CA_FILE is in the broker's bundle: the operator's certificates may name any system. */
  operatorCa: boolean
  /** The companies' ACTIVE CAs are in it (BROKER_COMPANY_CAS): each may name its company's systems. */
  companyCas: boolean
}

// Whether system `s` can log in by a certificate the broker trusts: a pinned certificate, its company's CA, the
// operator's. Each EXISTS is one lookup of the certificates' partial indexes (migration 0037).
function byCertificate (trust: BrokerCertificateTrust | undefined): string {
  if (trust === undefined) return 'false'
  return `(${String(trust.operatorCa)}
    OR EXISTS (SELECT 1 FROM certificates p WHERE p.kind = 'DEVICE' AND p.system_uid = s.uid AND p.status = 'ACTIVE')
    OR (${String(trust.companyCas)} AND EXISTS (SELECT 1 FROM certificates a WHERE a.kind = 'CA' AND a.company_uid = s.company_uid AND a.status = 'ACTIVE')))`
}

// The same rows the device login reads (systems.repository.ts deviceLogins): comm_identifiers and the system's
// communication.mqtt.password. An empty password logs nobody in (devices.service.ts), so it is no password here either;
// nor is the password of a system whose application asks for x509 (docs/security.md#device-certificates). A login left
// without a password is the broker's only when a certificate can log it in.
function select (trust: BrokerCertificateTrust | undefined, where: string): string {
  return `SELECT system_uid, identifier, password FROM (
    SELECT c.system_uid, c.identifier, ${byCertificate(trust)} AS by_certificate,
      CASE WHEN ${MQTT_X509} THEN NULL ELSE nullif(s.communication -> 'mqtt' ->> 'password', '') END AS password
    FROM comm_identifiers c JOIN systems s ON s.uid = c.system_uid
    WHERE ${where}) l
  WHERE password IS NOT NULL OR by_certificate
  ORDER BY system_uid, identifier`
}

/** `trust`: the certificates the broker trusts (BROKER_CA_FILE set); absent, logins by password only. */
export function createBrokerLoginsRepository (q: Queryable, trust?: BrokerCertificateTrust): BrokerLoginsRepository {
  return {
    async ofSystems (systemUids) {
      if (systemUids.length === 0) return []
      const { rows } = await q.query<Row>(select(trust, 'c.system_uid = ANY($1::text[])'), [[...new Set(systemUids)]])
      return rows.map(toLogin)
    },
    async page (after, systems) {
      // A page of systems (not of logins), so that no system's logins are split across two pages.
      const { rows: uids } = await q.query<{ uid: string }>('SELECT uid FROM systems WHERE uid > $1 ORDER BY uid LIMIT $2', [after, Math.trunc(systems)])
      const last = uids.at(-1)?.uid
      if (last === undefined) return { logins: [], last: undefined }
      const { rows } = await q.query<Row>(select(trust, 'c.system_uid > $1 AND c.system_uid <= $2'), [after, last])
      return { logins: rows.map(toLogin), last }
    }
  }
}
