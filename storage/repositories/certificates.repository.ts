// The certificates of systems and the CAs of companies (core/ports/certificates.ts; table certificates, migration 0037).
import type { Queryable } from '../../core/ports/store.js'
import { FleetError } from '../../core/errors.js'
import type { CertificateFacts, CertificatesRepository, CertificateStatus, CompanyCa, DeviceCertificate } from '../../core/ports/certificates.js'
import { certificateLoginFacts } from './certificate-login.sql.js'

interface Row {
  fingerprint: string
  system_uid: string | null
  company_uid: string | null
  pem: string
  subject: string
  issuer: string
  not_before: string
  not_after: string
  status: CertificateStatus
  auto_register: boolean
  auto_registered: number
  created_at: string
  revoked_at: string | null
}

const COLUMNS = `fingerprint, system_uid, company_uid, pem, subject, issuer, not_before, not_after, status, auto_register,
  auto_registered, created_at, revoked_at`

function facts (r: Row): CertificateFacts {
  return { fingerprint: r.fingerprint, pem: r.pem, subject: r.subject, issuer: r.issuer, notBefore: Number(r.not_before), notAfter: Number(r.not_after) }
}

function deviceCert (r: Row): DeviceCertificate {
  return { ...facts(r), systemUid: r.system_uid ?? '', status: r.status, createdAt: Number(r.created_at), revokedAt: r.revoked_at === null ? null : Number(r.revoked_at) }
}

function companyCa (r: Row): CompanyCa {
  return {
    ...facts(r),
    companyUid: r.company_uid ?? '',
    status: r.status,
    autoRegister: r.auto_register,
    autoRegistered: r.auto_registered,
    createdAt: Number(r.created_at),
    revokedAt: r.revoked_at === null ? null : Number(r.revoked_at)
  }
}

export function createCertificatesRepository (q: Queryable): CertificatesRepository {
  /** One row for a new fingerprint; false when the fingerprint is taken (the primary key decides, even in a race). */
  async function insert (c: CertificateFacts, kind: 'DEVICE' | 'CA', owner: { system: string | null, company: string | null }, autoRegister: boolean, at: number): Promise<boolean> {
    try {
      const { rowCount } = await q.query(`INSERT INTO certificates (fingerprint, kind, system_uid, company_uid, pem, subject, issuer, not_before,
          not_after, auto_register, created_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (fingerprint) DO NOTHING`,
      [c.fingerprint, kind, owner.system, owner.company, c.pem, c.subject, c.issuer, c.notBefore, c.notAfter, autoRegister, at])
      return rowCount === 1
    } catch (err) {
      // The system (or company) was deleted since the caller found it: as unknown as if it had been gone before.
      if ((err as { code?: unknown }).code === '23503') throw new FleetError(owner.system === null ? 'company.unknown' : 'system.unknown', [owner.system ?? owner.company ?? ''])
      throw err
    }
  }

  /**
   * REVOKED from `at`, once: the first revocation's date stays. The row as it is after the statement, and whether
   * this call changed it; nothing when the fingerprint is not the owner's.
   */
  async function revoke (ownerColumn: 'system_uid' | 'company_uid', owner: string, fingerprint: string, at: number): Promise<{ row: Row, changed: boolean } | undefined> {
    const changed = await q.query<Row>(`UPDATE certificates SET status = 'REVOKED', revoked_at = $3
      WHERE fingerprint = $1 AND ${ownerColumn} = $2 AND status = 'ACTIVE' RETURNING ${COLUMNS}`, [fingerprint, owner, at])
    if (changed.rows[0] !== undefined) return { row: changed.rows[0], changed: true }
    const { rows } = await q.query<Row>(`SELECT ${COLUMNS} FROM certificates WHERE fingerprint = $1 AND ${ownerColumn} = $2`, [fingerprint, owner])
    return rows[0] === undefined ? undefined : { row: rows[0], changed: false }
  }

  async function listed (where: string, owner: string, page: { offset: number, size: number }): Promise<{ rows: Row[], count: number }> {
    const { rows } = await q.query<Row>(`SELECT ${COLUMNS} FROM certificates WHERE ${where} ORDER BY created_at, fingerprint OFFSET $2 LIMIT $3`, [owner, page.offset, page.size])
    const counted = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM certificates WHERE ${where}`, [owner])
    return { rows, count: counted.rows[0]?.n ?? 0 }
  }

  return {
    async insertDevice (cert, systemUid, at) { return await insert(cert, 'DEVICE', { system: systemUid, company: null }, false, at) },
    async insertCa (cert, companyUid, autoRegister, at) { return await insert(cert, 'CA', { system: null, company: companyUid }, autoRegister, at) },
    async ofSystem (systemUid, page) {
      const { rows, count } = await listed('kind = \'DEVICE\' AND system_uid = $1', systemUid, page)
      return { items: rows.map(deviceCert), count }
    },
    async ofCompany (companyUid, page) {
      const { rows, count } = await listed('kind = \'CA\' AND company_uid = $1', companyUid, page)
      return { items: rows.map(companyCa), count }
    },
    async revokeDevice (systemUid, fingerprint, at) {
      const r = await revoke('system_uid', systemUid, fingerprint, at)
      return r === undefined ? undefined : { cert: deviceCert(r.row), changed: r.changed }
    },
    async revokeCa (companyUid, fingerprint, at) {
      const r = await revoke('company_uid', companyUid, fingerprint, at)
      return r === undefined ? undefined : { ca: companyCa(r.row), changed: r.changed }
    },
    async countAutoRegistered (fingerprint) {
      await q.query('UPDATE certificates SET auto_registered = auto_registered + 1 WHERE fingerprint = $1 AND kind = \'CA\'', [fingerprint])
    },
    async activeCaPems () {
      const { rows } = await q.query<{ pem: string }>('SELECT pem FROM certificates WHERE kind = \'CA\' AND status = \'ACTIVE\' ORDER BY created_at, fingerprint')
      return rows.map((r) => r.pem)
    },
    async activePinned () {
      const { rows } = await q.query<{ pem: string, logins: string[] }>(`SELECT c.pem,
          array(SELECT ci.identifier FROM comm_identifiers ci WHERE ci.system_uid = c.system_uid ORDER BY ci.identifier) AS logins
        FROM certificates c WHERE c.kind = 'DEVICE' AND c.status = 'ACTIVE' ORDER BY c.created_at, c.fingerprint`)
      return rows.map((r) => ({ pem: r.pem, logins: r.logins }))
    },
    async loginFacts (asks) { return await certificateLoginFacts(q, asks) }
  }
}
