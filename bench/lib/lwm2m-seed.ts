// Systems that the simulator's LwM2M devices register as (docs/protocols/lwm2m.md#admission): the rows of
// seed-systems.ts, each with its gateway serial number as endpoint name (a communication identifier), one
// application speaking LWM2M that admits NoSec devices (`security: "none"`) and carries the generic data tree (its
// REBOOT action is Execute /3/0/4; it names no `lwm2m.` id, so the service observes the default /3/0, /4/0, /6/0),
// a pre-shared key for DTLS in communication.lwm2m, and one label to select them all by.
import { createHash } from 'node:crypto'
import type { Db } from '../../core/ports/store.js'
import { genericDataTree } from '../../core/domain/generic-applications.js'
import { row, seedSystems } from './seed-systems.js'

export const LWM2M_LABEL = 'bench-lwm2m'
const APPLICATION_UID = 'bench-app-lwm2m'

/** Device i's PSK in hex, as its system holds it: md5('psk' || i) on both sides (16 bytes). */
export const lwm2mPskHex = (i: number): string => createHash('md5').update(`psk${i}`).digest('hex')

/** Device i's endpoint name (and PSK identity): its gateway serial number. */
export const lwm2mEndpoint = (i: number): string => row.serialNumber(i)

/** Systems 1..n of seed-systems, device i registering as lwm2mEndpoint(i), over DTLS with lwm2mPskHex(i). */
export async function seedLwm2mDevices (db: Db, companyUid: string, n: number): Promise<void> {
  await seedSystems(db, companyUid, n, Date.now())
  await db.transaction(async (tx) => {
    await tx.query(`INSERT INTO applications (uid, company_uid, name, revision, type, category, created_at, communication, data)
      VALUES ($1, $2, 'Bench LwM2M firmware', '1.0.0', 'bench.lwm2m', 'FIRMWARE', $3, $4::jsonb, $5::jsonb)`,
    [APPLICATION_UID, companyUid, Date.now(), JSON.stringify([{ type: 'LWM2M', commIdType: 'SERIAL', parameters: { security: 'none' } }]), JSON.stringify(genericDataTree())])
    // Row i's serial number is SN followed by i on 8 digits (seed-systems.ts): its key is md5('psk' || i).
    await tx.query(`UPDATE systems s SET labels = array_append(s.labels, $1),
        communication = jsonb_build_object('lwm2m', jsonb_build_object('pskSecretHex', md5('psk' || substr(g.serial_number, 3)::int)))
      FROM gateways g WHERE g.uid = s.gateway_uid`, [LWM2M_LABEL])
    await tx.query('UPDATE system_applications SET application_uid = $1', [APPLICATION_UID])
    await tx.query(`INSERT INTO comm_identifiers (identifier, system_uid)
      SELECT g.serial_number, s.uid FROM systems s JOIN gateways g ON g.uid = s.gateway_uid`)
  })
  await db.exec('VACUUM ANALYZE')
}
