import type { Queryable } from '../../core/ports/store.js'
import type { CatalogueRepository, OperatorAccount, OptionRecord, SettingTemplate } from '../../core/ports/catalogue.js'
import type { Offer } from '../../core/domain/system.js'
import { FleetError } from '../../core/errors.js'
import { containsPattern } from './users.repository.js'

interface OfferRow { uid: string, company_uid: string, name: string, limit_bytes: number | null, types: string[] }
const toOffer = (r: OfferRow): Offer => ({ uid: r.uid, companyUid: r.company_uid, name: r.name, limit: r.limit_bytes, types: r.types })

interface AccountRow { uid: string, company_uid: string, name: string, operator: string, swap_supported: boolean }
const toAccount = (r: AccountRow): OperatorAccount => ({ uid: r.uid, companyUid: r.company_uid, name: r.name, operator: r.operator, swapSupported: r.swap_supported })

interface TemplateRow { uid: string, company_uid: string, name: string, settings: SettingTemplate['settings'] }
const toTemplate = (r: TemplateRow): SettingTemplate => ({ uid: r.uid, companyUid: r.company_uid, name: r.name, settings: r.settings })

interface OptionRow { uid: string, company_uid: string | null, type: string, name: string, config: string | null }
const toOption = (r: OptionRow): OptionRecord => ({ uid: r.uid, companyUid: r.company_uid, type: r.type, name: r.name, ...(r.config === null ? {} : { config: r.config }) })

/** Offers, operator accounts, setting templates and options: the reference data `fleet seed` provides. */
export function createCatalogueRepository (q: Queryable): CatalogueRepository {
  const one = async <R, T>(sql: string, params: unknown[], map: (r: R) => T): Promise<T | undefined> => {
    const { rows } = await q.query<R>(sql, params)
    return rows[0] === undefined ? undefined : map(rows[0])
  }
  return {
    async putGatewayProduct (p) {
      await q.query(`INSERT INTO gateway_products (type, registration_code) VALUES ($1, $2)
        ON CONFLICT (type) DO UPDATE SET registration_code = EXCLUDED.registration_code`, [p.type, p.registrationCode])
    },
    async putInventoryGateway (g) {
      await q.query(`INSERT INTO gateway_inventory (company_uid, serial_number, imei, type, registration_code) VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (company_uid, serial_number) DO UPDATE SET imei = EXCLUDED.imei, type = EXCLUDED.type, registration_code = EXCLUDED.registration_code`,
      [g.companyUid, g.serialNumber, g.imei, g.type, g.registrationCode])
    },
    inventoryGateway: async (companyUid, serialNumber) => await one(
      `SELECT i.*, coalesce(p.registration_code, false) AS needs FROM gateway_inventory i LEFT JOIN gateway_products p ON p.type = i.type
       WHERE i.company_uid = $1 AND i.serial_number = $2`, [companyUid, serialNumber],
      (r: { company_uid: string, serial_number: string, imei: string | null, type: string, registration_code: string | null, needs: boolean }) => ({
        companyUid: r.company_uid, serialNumber: r.serial_number, imei: r.imei, type: r.type, registrationCode: r.registration_code, needsRegistrationCode: r.needs
      })),
    offer: async (companyUid, uid) => await one('SELECT * FROM offers WHERE company_uid = $1 AND uid = $2', [companyUid, uid], toOffer),
    offerByName: async (companyUid, name) => await one('SELECT * FROM offers WHERE company_uid = $1 AND name = $2', [companyUid, name], toOffer),
    async putOffer (o) {
      await q.query(`INSERT INTO offers (uid, company_uid, name, limit_bytes, types, data_increment_bytes, voice_increment_seconds)
        VALUES ($1, $2, $3, $4, $5, $6, $7)
        ON CONFLICT (uid) DO UPDATE SET name = EXCLUDED.name, limit_bytes = EXCLUDED.limit_bytes, types = EXCLUDED.types,
          data_increment_bytes = EXCLUDED.data_increment_bytes, voice_increment_seconds = EXCLUDED.voice_increment_seconds`,
      [o.uid, o.companyUid, o.name, o.limit, o.types, o.dataIncrementBytes ?? null, o.voiceIncrementSeconds ?? null])
    },
    operatorAccount: async (companyUid, uid) => await one('SELECT * FROM operator_accounts WHERE company_uid = $1 AND uid = $2', [companyUid, uid], toAccount),
    operatorAccountByName: async (companyUid, name) => await one('SELECT * FROM operator_accounts WHERE company_uid = $1 AND name = $2', [companyUid, name], toAccount),
    operatorAccountByOperator: async (companyUid, operator) => await one(
      'SELECT * FROM operator_accounts WHERE company_uid = $1 AND operator = $2 ORDER BY name LIMIT 1', [companyUid, operator], toAccount),
    async putOperatorAccount (a) {
      await q.query(`INSERT INTO operator_accounts (uid, company_uid, name, operator, swap_supported) VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (uid) DO UPDATE SET name = EXCLUDED.name, operator = EXCLUDED.operator, swap_supported = EXCLUDED.swap_supported`,
      [a.uid, a.companyUid, a.name, a.operator, a.swapSupported])
    },
    template: async (companyUid, uid) => await one('SELECT * FROM setting_templates WHERE company_uid = $1 AND uid = $2', [companyUid, uid], toTemplate),
    templateByName: async (companyUid, name) => await one('SELECT * FROM setting_templates WHERE company_uid = $1 AND name = $2', [companyUid, name], toTemplate),
    async putTemplate (t) {
      await q.query(`INSERT INTO setting_templates (uid, company_uid, name, settings) VALUES ($1, $2, $3, $4::jsonb)
        ON CONFLICT (uid) DO UPDATE SET name = EXCLUDED.name, settings = EXCLUDED.settings`,
      [t.uid, t.companyUid, t.name, JSON.stringify(t.settings)])
    },
    async templates (companyUid, filter, page) {
      const p: unknown[] = [companyUid]
      let where = 'company_uid = $1'
      if (filter.name !== undefined) { p.push(containsPattern(filter.name)); where += ` AND name ILIKE $${p.length}` }
      const total = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM setting_templates WHERE ${where}`, p)
      const { rows } = await q.query<TemplateRow>(
        `SELECT * FROM setting_templates WHERE ${where} ORDER BY name, uid LIMIT ${page.size} OFFSET ${page.offset}`, p)
      return { count: total.rows[0]?.n ?? 0, items: rows.map(toTemplate) }
    },
    async insertTemplate (t) {
      try {
        await q.query('INSERT INTO setting_templates (uid, company_uid, name, settings) VALUES ($1, $2, $3, $4::jsonb)',
          [t.uid, t.companyUid, t.name, JSON.stringify(t.settings)])
      } catch (err) {
        // Two requests naming one template at once: the later waits on setting_templates_key, then finds it taken.
        if ((err as { code?: unknown }).code === '23505') throw new FleetError('template.not.unique', [t.name])
        throw err
      }
    },
    optionByName: async (companyUid, type, name) => await one(
      'SELECT * FROM options WHERE coalesce(company_uid, \'\') = coalesce($1, \'\') AND type = $2 AND name = $3', [companyUid, type, name], toOption),
    async putOption (o) {
      await q.query(`INSERT INTO options (uid, company_uid, type, name, config) VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (uid) DO UPDATE SET type = EXCLUDED.type, name = EXCLUDED.name, config = EXCLUDED.config`,
      [o.uid, o.companyUid, o.type, o.name, o.config ?? null])
    }
  }
}
