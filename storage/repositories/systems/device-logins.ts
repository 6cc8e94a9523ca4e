// Device logins (comm identifiers: a gateway's serial number, its IMEI): each names one system across the service.
import type { Queryable } from '../../../core/ports/store.js'
import { FleetError } from '../../../core/errors.js'
import type { SystemsRepository } from '../../../core/ports/systems.js'
import type { System } from '../../../core/domain/system.js'
import type { IpFilters } from '../../../core/domain/company.js'

// docs/security.md#device-certificates: an application of system `s` whose MQTT communication sets `mqtt-security` to
// x509 (any case). Read in the login's own statement, through the system's few applications (their primary key).
export const MQTT_X509 = `EXISTS (SELECT 1 FROM system_applications sa JOIN applications a ON a.uid = sa.application_uid,
    jsonb_array_elements(CASE WHEN jsonb_typeof(a.communication) = 'array' THEN a.communication ELSE '[]'::jsonb END) e
  WHERE sa.system_uid = s.uid AND e ->> 'type' = 'MQTT' AND lower(e -> 'parameters' ->> 'mqtt-security') = 'x509')`

export type SystemDeviceLogins = Pick<SystemsRepository, 'setCommIdentifiers' | 'commIdentifierOwner' | 'systemByCommIdentifier' | 'commIdentifiersOf' | 'deviceLogins'>

export function createSystemDeviceLogins (q: Queryable): SystemDeviceLogins {
  return {
    async setCommIdentifiers (systemUid, identifiers) {
      await q.query('DELETE FROM comm_identifiers WHERE system_uid = $1', [systemUid])
      if (identifiers.length > 0) {
        try {
          await q.query(`INSERT INTO comm_identifiers (identifier, system_uid)
            SELECT DISTINCT u, $1 FROM unnest($2::text[]) AS u`, [systemUid, identifiers])
        } catch (err) {
          // Two companies binding one login at once: the later waits on the key, then finds it taken (set C).
          if ((err as { code?: unknown }).code === '23505') throw new FleetError('system.communication.identifier.already.used', identifiers)
          throw err
        }
      }
    },
    async commIdentifierOwner (identifiers, except) {
      const { rows } = await q.query<{ system_uid: string }>(
        'SELECT system_uid FROM comm_identifiers WHERE identifier = ANY($1::text[]) AND system_uid IS DISTINCT FROM $2 LIMIT 1',
        [identifiers, except])
      return rows[0]?.system_uid
    },
    async systemByCommIdentifier (identifier) {
      const { rows } = await q.query<{ system_uid: string, company_uid: string }>(
        `SELECT c.system_uid, s.company_uid FROM comm_identifiers c JOIN systems s ON s.uid = c.system_uid
         WHERE c.identifier = $1`, [identifier])
      return rows[0] === undefined ? undefined : { systemUid: rows[0].system_uid, companyUid: rows[0].company_uid }
    },
    async commIdentifiersOf (systemUids) {
      if (systemUids.length === 0) return []
      const { rows } = await q.query<{ system_uid: string, identifier: string }>(
        'SELECT system_uid, identifier FROM comm_identifiers WHERE system_uid = ANY($1::text[])', [[...new Set(systemUids)]])
      return rows.map((r) => ({ systemUid: r.system_uid, identifier: r.identifier }))
    },
    async deviceLogins (identifiers) {
      if (identifiers.length === 0) return []
      const { rows } = await q.query<{ identifier: string, system_uid: string, company_uid: string, communication: System['communication'], device_ip_filtering: boolean, device_ip_filters: IpFilters, mqtt_x509: boolean }>(
        `SELECT c.identifier, s.uid AS system_uid, s.company_uid, s.communication, co.device_ip_filtering, co.device_ip_filters,
           ${MQTT_X509} AS mqtt_x509
         FROM comm_identifiers c JOIN systems s ON s.uid = c.system_uid JOIN companies co ON co.uid = s.company_uid
         WHERE c.identifier = ANY($1::text[])`, [[...new Set(identifiers)]])
      return rows.map((r) => ({
        identifier: r.identifier, systemUid: r.system_uid, companyUid: r.company_uid, communication: r.communication, deviceIpFiltering: r.device_ip_filtering, deviceIpFilters: r.device_ip_filters, mqttX509: r.mqtt_x509
      }))
    }
  }
}
