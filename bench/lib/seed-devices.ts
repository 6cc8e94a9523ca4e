// Seeds systems that real devices can log in as (docs/devices.md): the rows of seed-systems.ts, each with
// an MQTT password, its gateway serial number as communication identifier, one firmware application (a public
// generic one, so that device operations find its actions and protocol) and a label to select them all by.
import type { Db } from '../../core/ports/store.js'
import { seedSystems, type SeedTimes } from './seed-systems.js'

export interface DeviceSeed {
  /** Every system gets this MQTT password (communication.mqtt.password). */
  password: string
  /** Type of the public application every system carries instead of the bench ones (e.g. generic.mqtt). */
  applicationType: string
  /** Added to every system's labels (selection by label: uids are capped at 100, docs/api.md). */
  label: string
}

/** Systems 1..n of seed-systems, device i logging in as row.serialNumber(i) with `seed.password`. */
export async function seedDevices (db: Db, companyUid: string, n: number, seed: DeviceSeed): Promise<SeedTimes> {
  const { rows: [app] } = await db.query<{ uid: string }>('SELECT uid FROM applications WHERE company_uid IS NULL AND type = $1 ORDER BY revision DESC LIMIT 1', [seed.applicationType])
  if (app === undefined) throw new Error(`no public application of type ${seed.applicationType}`)
  const times = await seedSystems(db, companyUid, n, Date.now())
  await db.transaction(async (tx) => {
    await tx.query('UPDATE systems SET communication = $1::jsonb, labels = array_append(labels, $2)',
      [JSON.stringify({ mqtt: { password: seed.password } }), seed.label])
    await tx.query('UPDATE system_applications SET application_uid = $1', [app.uid])
    await tx.query(`INSERT INTO comm_identifiers (identifier, system_uid)
      SELECT g.serial_number, s.uid FROM systems s JOIN gateways g ON g.uid = s.gateway_uid`)
  })
  await db.exec('VACUUM ANALYZE')
  return times
}
