// What certificate logins read (core/services/certificates/certificate-login.ts), the logins of devices connecting at
// the same time in one statement: for each, the certificate pinned under the fingerprint, the systems its names (CN,
// SANs) log in as, and the registered CAs among its issuers. Every part is a primary-key lookup (certificates.fingerprint, comm_identifiers.identifier), so a login costs the
// same whatever the fleet's size.
import type { Queryable } from '../../core/ports/store.js'
import type { CertificateLoginAsk, CertificateLoginFacts } from '../../core/ports/certificates.js'

// The system and what the login checks of its company: s, g and co in each subquery below.
const SYSTEM_FIELDS = `'systemUid', s.uid, 'companyUid', s.company_uid, 'serialNumber', g.serial_number, 'imei', g.imei,
  'deviceIpFiltering', co.device_ip_filtering, 'deviceIpFilters', co.device_ip_filters`

// One row per login asked ($1: a JSON array of {f: fingerprint, n: names, i: issuers}), in the order asked.
const SQL = `SELECT
  (SELECT jsonb_build_object(${SYSTEM_FIELDS}, 'status', c.status, 'notBefore', c.not_before, 'notAfter', c.not_after)
     FROM certificates c JOIN systems s ON s.uid = c.system_uid JOIN companies co ON co.uid = s.company_uid
     LEFT JOIN gateways g ON g.uid = s.gateway_uid
     WHERE c.fingerprint = x.ask->>'f' AND c.kind = 'DEVICE') AS pinned,
  (SELECT coalesce(jsonb_agg(jsonb_build_object(${SYSTEM_FIELDS}, 'identifier', ci.identifier)), '[]'::jsonb)
     FROM comm_identifiers ci JOIN systems s ON s.uid = ci.system_uid JOIN companies co ON co.uid = s.company_uid
     LEFT JOIN gateways g ON g.uid = s.gateway_uid
     WHERE ci.identifier = ANY(ARRAY(SELECT jsonb_array_elements_text(x.ask->'n')))) AS named,
  (SELECT coalesce(jsonb_agg(jsonb_build_object('fingerprint', c.fingerprint, 'companyUid', c.company_uid, 'status', c.status,
       'autoRegister', c.auto_register, 'deviceIpFiltering', co.device_ip_filtering, 'deviceIpFilters', co.device_ip_filters)), '[]'::jsonb)
     FROM certificates c JOIN companies co ON co.uid = c.company_uid
     WHERE c.fingerprint = ANY(ARRAY(SELECT jsonb_array_elements_text(x.ask->'i'))) AND c.kind = 'CA') AS cas
  FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS x(ask, n)
  ORDER BY x.n`

type Row = { [K in keyof CertificateLoginFacts]: CertificateLoginFacts[K] | null }

export async function certificateLoginFacts (q: Queryable, asks: readonly CertificateLoginAsk[]): Promise<CertificateLoginFacts[]> {
  if (asks.length === 0) return []
  const json = JSON.stringify(asks.map((a) => ({ f: a.fingerprint, n: [...new Set(a.names)], i: [...new Set(a.issuers)] })))
  const { rows } = await q.query<Row>(SQL, [json])
  return rows.map((r) => ({ pinned: r.pinned ?? undefined, named: r.named ?? [], cas: r.cas ?? [] }))
}
