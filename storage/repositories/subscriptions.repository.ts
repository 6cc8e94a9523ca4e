import type { Queryable } from '../../core/ports/store.js'
import type { SubscriptionsRepository } from '../../core/ports/subscriptions.js'
import type { Subscription } from '../../core/domain/system.js'
import { findParts } from './parts-find.sql.js'

export interface SubscriptionRow {
  uid: string
  company_uid: string
  identifier: string
  mobile_number: string | null
  network_identifier: string | null
  ip_address: string | null
  requested_ip: string | null
  eid: string | null
  operator: string
  operator_account_uid: string | null
  state: string
  applet_generation: string | null
  form_factor: string | null
  conf_type: string | null
  technology: string | null
  order_id: string | null
  product_ref_name: string | null
  activation_imei: string | null
  imei_lock: Subscription['imeiLock']
  creation_date: number
}

export function toSubscription (r: SubscriptionRow): Subscription {
  return {
    uid: r.uid,
    companyUid: r.company_uid,
    identifier: r.identifier,
    mobileNumber: r.mobile_number,
    networkIdentifier: r.network_identifier,
    ipAddress: r.ip_address,
    requestedIp: r.requested_ip,
    eid: r.eid,
    operator: r.operator,
    operatorAccountUid: r.operator_account_uid,
    state: r.state,
    appletGeneration: r.applet_generation,
    formFactor: r.form_factor,
    confType: r.conf_type,
    technology: r.technology,
    orderId: r.order_id,
    productRefName: r.product_ref_name,
    activationImei: r.activation_imei,
    imeiLock: r.imei_lock,
    creationDate: Number(r.creation_date)
  }
}

export const SUBSCRIPTION_COLUMNS: Record<string, string> = {
  identifier: 'identifier',
  mobileNumber: 'mobile_number',
  networkIdentifier: 'network_identifier',
  ipAddress: 'ip_address',
  requestedIp: 'requested_ip',
  eid: 'eid',
  operator: 'operator',
  operatorAccountUid: 'operator_account_uid',
  state: 'state',
  appletGeneration: 'applet_generation',
  formFactor: 'form_factor',
  confType: 'conf_type',
  technology: 'technology',
  orderId: 'order_id',
  productRefName: 'product_ref_name',
  activationImei: 'activation_imei',
  imeiLock: 'imei_lock'
}

// GET /api/v1/subscriptions: filters and sorts (core/domain/parts.ts).
const FIND_COLUMNS = {
  uid: 'uid', identifier: 'identifier', mobileNumber: 'mobile_number', networkIdentifier: 'network_identifier', operator: 'operator', state: 'state', creationDate: 'creation_date'
}

export function createSubscriptionsRepository (q: Queryable): SubscriptionsRepository {
  return {
    async find (companyUid, filter, sort, page) {
      const found = await findParts<SubscriptionRow>(q, { table: 'subscriptions', columns: FIND_COLUMNS }, companyUid, filter, sort, page)
      return { count: found.count, items: found.items.map(toSubscription) }
    },
    async findByUid (companyUid, uid) {
      const { rows } = await q.query<SubscriptionRow>('SELECT * FROM subscriptions WHERE company_uid = $1 AND uid = $2', [companyUid, uid])
      return rows[0] === undefined ? undefined : toSubscription(rows[0])
    },
    async findByIdentifier (companyUid, identifier) {
      const { rows } = await q.query<SubscriptionRow>('SELECT * FROM subscriptions WHERE company_uid = $1 AND identifier = $2', [companyUid, identifier])
      return rows[0] === undefined ? undefined : toSubscription(rows[0])
    },
    async insert (s) {
      const cols = ['uid', 'company_uid', 'creation_date', ...Object.values(SUBSCRIPTION_COLUMNS)]
      const params: unknown[] = [s.uid, s.companyUid, s.creationDate,
        ...Object.keys(SUBSCRIPTION_COLUMNS).map((k) => {
          const v = (s as unknown as Record<string, unknown>)[k]
          return k === 'imeiLock' ? (v == null ? null : JSON.stringify(v)) : v ?? null
        })]
      const marks = cols.map((c, i) => `$${i + 1}${c === 'imei_lock' ? '::jsonb' : ''}`)
      await q.query(`INSERT INTO subscriptions (${cols.join(', ')}) VALUES (${marks.join(', ')})`, params)
    },
    async update (uid, patch) {
      const sets: string[] = []
      const params: unknown[] = [uid]
      for (const [k, v] of Object.entries(patch)) {
        const col = SUBSCRIPTION_COLUMNS[k]
        if (v === undefined || col === undefined) continue
        params.push(col === 'imei_lock' && v !== null ? JSON.stringify(v) : v)
        sets.push(`${col} = $${params.length}${col === 'imei_lock' ? '::jsonb' : ''}`)
      }
      if (sets.length > 0) await q.query(`UPDATE subscriptions SET ${sets.join(', ')} WHERE uid = $1`, params)
    },
    async addLabels (uid, labels) {
      if (labels.length === 0) return
      await q.query('UPDATE subscriptions SET labels = ARRAY(SELECT DISTINCT unnest(labels || $2::text[]) ORDER BY 1) WHERE uid = $1', [uid, [...labels]])
    },
    async delete (uid) {
      await q.query('DELETE FROM subscriptions WHERE uid = $1', [uid])
    }
  }
}
