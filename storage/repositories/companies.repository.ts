import type { Queryable } from '../../core/ports/store.js'
import { FleetError } from '../../core/errors.js'
import type { CompaniesRepository } from '../../core/ports/companies.js'
import { type Company, type IpFilters, picturePaths } from '../../core/domain/company.js'

interface CompanyRow {
  uid: string
  name: string
  address: string | null
  n_factor: boolean
  ip_filtering: boolean
  ip_filters: IpFilters
  device_ip_filtering: boolean
  device_ip_filters: IpFilters
  system_limit: number | null
  has_picture: boolean
}

function toCompany (r: CompanyRow): Company {
  return {
    uid: r.uid,
    name: r.name,
    address: r.address,
    nFactor: r.n_factor,
    ipFiltering: r.ip_filtering,
    ipFilters: r.ip_filters,
    deviceIpFiltering: r.device_ip_filtering,
    deviceIpFilters: r.device_ip_filters,
    picture: r.has_picture ? picturePaths(r.uid) : null,
    systemLimit: r.system_limit
  }
}

function isUniqueViolation (err: unknown, constraint: string): boolean {
  const e = err as { code?: string, constraint?: string, message?: string }
  return e.code === '23505' && (e.constraint === constraint || (e.message ?? '').includes(constraint))
}

const COLUMNS: Record<string, string> = {
  name: 'name',
  address: 'address',
  ipFiltering: 'ip_filtering',
  ipFilters: 'ip_filters',
  deviceIpFiltering: 'device_ip_filtering',
  deviceIpFilters: 'device_ip_filters'
}

export function createCompaniesRepository (q: Queryable): CompaniesRepository {
  return {
    async findByUid (uid) {
      const { rows } = await q.query<CompanyRow>('SELECT * FROM companies WHERE uid = $1', [uid])
      return rows[0] === undefined ? undefined : toCompany(rows[0])
    },
    async any () {
      return (await q.query('SELECT 1 FROM companies LIMIT 1')).rows.length > 0
    },
    async findByName (name) {
      const { rows } = await q.query<CompanyRow>('SELECT * FROM companies WHERE lower(name) = lower($1)', [name])
      return rows[0] === undefined ? undefined : toCompany(rows[0])
    },
    async insert (c, createdAt) {
      await q.query(
        `INSERT INTO companies (uid, name, address, n_factor, ip_filtering, ip_filters, device_ip_filtering,
           device_ip_filters, system_limit, created_at)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8::jsonb, $9, $10)`,
        [c.uid, c.name, c.address, c.nFactor, c.ipFiltering, JSON.stringify(c.ipFilters), c.deviceIpFiltering,
          JSON.stringify(c.deviceIpFilters), c.systemLimit, createdAt])
    },
    async update (uid, patch) {
      const sets: string[] = []
      const params: unknown[] = [uid]
      for (const [key, value] of Object.entries(patch)) {
        const column = COLUMNS[key]
        if (column === undefined || value === undefined) continue
        const json = typeof value === 'object' && value !== null
        params.push(json ? JSON.stringify(value) : value)
        sets.push(`${column} = $${params.length}${json ? '::jsonb' : ''}`)
      }
      if (sets.length === 0) return
      try {
        await q.query(`UPDATE companies SET ${sets.join(', ')} WHERE uid = $1`, params)
      } catch (err) {
        // A rename racing another one past the service's check still meets the unique index.
        if (isUniqueViolation(err, 'companies_name_key')) throw new FleetError('company.not.unique.name', [String(patch.name)])
        throw err
      }
    },
    async setSystemLimit (uid, limit) {
      await q.query('UPDATE companies SET system_limit = $2 WHERE uid = $1', [uid, limit])
    },
    async addPartner (companyUid, partnerUid) {
      await q.query('INSERT INTO company_partners (company_uid, partner_uid) VALUES ($1, $2) ON CONFLICT DO NOTHING',
        [companyUid, partnerUid])
    },
    async partners (companyUid) {
      const { rows } = await q.query<{ partner_uid: string }>(
        'SELECT partner_uid FROM company_partners WHERE company_uid = $1 ORDER BY partner_uid', [companyUid])
      return rows.map((r) => r.partner_uid)
    },
    async putPictures (companyUid, { normal, small, icon }) {
      // One statement, so the three sizes and the flag change together even outside a transaction.
      await q.query(
        `WITH stored AS (
           INSERT INTO company_pictures (company_uid, size, content_type, data)
           VALUES ($1, 'normal', $2, $3), ($1, 'small', $4, $5), ($1, 'icon', $6, $7)
           ON CONFLICT (company_uid, size) DO UPDATE SET content_type = EXCLUDED.content_type, data = EXCLUDED.data
           RETURNING 1)
         UPDATE companies SET has_picture = true WHERE uid = $1`,
        [companyUid, normal.contentType, normal.data, small.contentType, small.data, icon.contentType, icon.data])
    },
    async getPicture (companyUid, size) {
      const { rows } = await q.query<{ content_type: string, data: Uint8Array }>(
        'SELECT content_type, data FROM company_pictures WHERE company_uid = $1 AND size = $2', [companyUid, size])
      const r = rows[0]
      return r === undefined ? undefined : { contentType: r.content_type, data: Buffer.from(r.data) }
    }
  }
}
