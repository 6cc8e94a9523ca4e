import type { Queryable } from '../../core/ports/store.js'
import type { GatewaysRepository } from '../../core/ports/gateways.js'
import type { Gateway } from '../../core/domain/system.js'
import { findParts } from './parts-find.sql.js'

export interface GatewayRow {
  uid: string
  company_uid: string
  imei: string | null
  serial_number: string | null
  mac_address: string | null
  esn: string | null
  meid: string | null
  type: string | null
  state: string
  transfer_to: string | null
  creation_date: number
}

export function toGateway (r: GatewayRow): Gateway {
  return {
    uid: r.uid,
    companyUid: r.company_uid,
    imei: r.imei,
    serialNumber: r.serial_number,
    macAddress: r.mac_address,
    esn: r.esn,
    meid: r.meid,
    type: r.type,
    state: r.state,
    transferTo: r.transfer_to,
    creationDate: Number(r.creation_date)
  }
}

const COLUMNS: Record<string, string> = {
  imei: 'imei', serialNumber: 'serial_number', macAddress: 'mac_address', esn: 'esn', meid: 'meid', type: 'type', state: 'state', transferTo: 'transfer_to'
}

// GET /api/v1/gateways: filters and sorts (core/domain/parts.ts).
const FIND_COLUMNS = { uid: 'uid', imei: 'imei', serialNumber: 'serial_number', macAddress: 'mac_address', type: 'type', creationDate: 'creation_date' }

export function createGatewaysRepository (q: Queryable): GatewaysRepository {
  return {
    async find (companyUid, filter, sort, page) {
      const found = await findParts<GatewayRow>(q, { table: 'gateways', columns: FIND_COLUMNS }, companyUid, filter, sort, page)
      return { count: found.count, items: found.items.map(toGateway) }
    },
    async findByUid (companyUid, uid) {
      const { rows } = await q.query<GatewayRow>('SELECT * FROM gateways WHERE company_uid = $1 AND uid = $2', [companyUid, uid])
      return rows[0] === undefined ? undefined : toGateway(rows[0])
    },
    async findByIdentifiers (companyUid, ids) {
      const { rows } = await q.query<GatewayRow>(
        `SELECT * FROM gateways WHERE company_uid = $1
         AND (imei = $2 OR serial_number = $3 OR mac_address = $4) ORDER BY creation_date`,
        [companyUid, ids.imei ?? null, ids.serialNumber ?? null, ids.macAddress ?? null])
      return rows.map(toGateway)
    },
    async insert (g) {
      await q.query(
        `INSERT INTO gateways (uid, company_uid, imei, serial_number, mac_address, esn, meid, type, state, transfer_to, creation_date)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [g.uid, g.companyUid, g.imei, g.serialNumber, g.macAddress, g.esn, g.meid, g.type, g.state, g.transferTo, g.creationDate])
    },
    async update (uid, patch) {
      const sets: string[] = []
      const params: unknown[] = [uid]
      for (const [k, v] of Object.entries(patch)) {
        if (v === undefined || COLUMNS[k] === undefined) continue
        params.push(v)
        sets.push(`${COLUMNS[k]} = $${params.length}`)
      }
      if (sets.length > 0) await q.query(`UPDATE gateways SET ${sets.join(', ')} WHERE uid = $1`, params)
    },
    async addLabels (uid, labels) {
      if (labels.length === 0) return
      await q.query('UPDATE gateways SET labels = ARRAY(SELECT DISTINCT unnest(labels || $2::text[]) ORDER BY 1) WHERE uid = $1', [uid, [...labels]])
    },
    async delete (uid) {
      await q.query('DELETE FROM gateways WHERE uid = $1', [uid])
    },
    async markTransfer (companyUid, systemUids, destination) {
      await q.query(`UPDATE gateways SET transfer_to = $3 WHERE company_uid = $1
        AND uid IN (SELECT gateway_uid FROM systems WHERE company_uid = $1 AND uid = ANY($2::text[]))`, [companyUid, systemUids, destination])
    },
    async unmarkTransfer (companyUid, systemUids, destination) {
      await q.query(`UPDATE gateways SET transfer_to = NULL WHERE company_uid = $1 AND transfer_to = $3
        AND uid IN (SELECT gateway_uid FROM systems WHERE company_uid = $1 AND uid = ANY($2::text[]))`, [companyUid, systemUids, destination])
    }
  }
}
