// Seeds many systems of one company straight through the Db port: one INSERT ... SELECT generate_series per table
// and chunk, so that 100,000 systems with their gateways, subscriptions and applications take seconds.
// The values follow formulas of the row number i (1..n), so a benchmark can aim queries at known rows.
import { createHash } from 'node:crypto'
import type { Db, Queryable } from '../../core/ports/store.js'
import { initialSystemData } from '../../core/domain/system-data.js'

export const AREAS = ['North', 'South', 'East', 'West', 'Central'] as const
export const KINDS = ['Pump', 'Valve', 'Meter', 'Tracker', 'Sensor', 'Router', 'Charger'] as const

/** The values of row i, as the SQL below writes them. */
export const row = {
  name: (i: number): string => `${KINDS[i % KINDS.length] ?? ''} ${AREAS[Math.floor(i / KINDS.length) % AREAS.length] ?? ''} ${i}`,
  serialNumber: (i: number): string => `SN${String(i).padStart(8, '0')}`,
  iccid: (i: number): string => `8933${String(i).padStart(15, '0')}`,
  /** The system's uid, md5('s' || i) below. */
  uid: (i: number): string => createHash('md5').update(`s${i}`).digest('hex')
}

export interface SeedTimes { rowsSeconds: number, indexesSeconds: number }

const TABLES = ['gateways', 'subscriptions', 'systems', 'system_state', 'system_applications']
const CHUNK = 25_000
/** Distinct device-data blobs; row i gets blob i % DATA_VARIANTS (building one per row costs more than the rest). */
const DATA_VARIANTS = 420

const SQL_NAME = `(ARRAY[${KINDS.map((k) => `'${k}'`).join(',')}])[1 + i % ${KINDS.length}] || ' ' ||
  (ARRAY[${AREAS.map((a) => `'${a}'`).join(',')}])[1 + (i / ${KINDS.length}) % ${AREAS.length}] || ' ' || i`
// Life-cycle and communication mixes: 60 % ACTIVE, 20 % INVENTORY, 10 % TEST_READY, 7 % SUSPENDED, 3 % RETIRED;
// 70 % OK, 15 % WARNING, 10 % ERROR, 5 % UNDEFINED (never communicated).
const LIFE_CYCLE = `CASE WHEN (i * 37) % 100 < 60 THEN 'ACTIVE' WHEN (i * 37) % 100 < 80 THEN 'INVENTORY'
  WHEN (i * 37) % 100 < 90 THEN 'TEST_READY' WHEN (i * 37) % 100 < 97 THEN 'SUSPENDED' ELSE 'RETIRED' END`
const COMM = `CASE WHEN (i * 53) % 100 < 70 THEN 'OK' WHEN (i * 53) % 100 < 85 THEN 'WARNING'
  WHEN (i * 53) % 100 < 95 THEN 'ERROR' ELSE 'UNDEFINED' END`
const LEVEL = (k: number): string => `(ARRAY['NO_SIGNAL','VERY_LOW','LOW','GOOD','VERY_GOOD','EXCELLENT'])[1 + (v * ${k}) % 6]`
const CREATED = '$2::bigint - ($3::int - i)::bigint * 60000' // one system a minute, the last one now

/**
 * Seeds n systems in one company: gateway, subscription, one application, labels, metadata, states and data.
 * The secondary indexes are dropped meanwhile and built again from their own definitions (building an index once
 * is much faster than growing it row by row, GIN above all), so the schema ends as the migrations made it.
 */
export async function seedSystems (db: Db, companyUid: string, n: number, now: number): Promise<SeedTimes> {
  const { rows: indexes } = await db.query<{ name: string, def: string }>(`SELECT i.indexname AS name, i.indexdef AS def
    FROM pg_indexes i WHERE i.schemaname = current_schema() AND i.tablename = ANY($1::text[])
      AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`, [TABLES])
  for (const x of indexes) await db.exec(`DROP INDEX ${x.name}`)
  const t0 = performance.now()
  const { rows: [role] } = await db.query<{ super: boolean }>('SELECT rolsuper AS super FROM pg_roles WHERE rolname = current_user')
  await db.transaction(async (tx) => {
    // The rows are consistent by construction: a superuser (PGlite's user is one) skips the foreign-key triggers.
    if (role?.super === true) await tx.query('SET LOCAL session_replication_role = replica')
    await insertRows(tx, companyUid, n, now)
  })
  const t1 = performance.now()
  await db.transaction(async (tx) => {
    await tx.query("SET LOCAL maintenance_work_mem = '128MB'")
    for (const x of indexes) await tx.query(x.def)
  })
  return { rowsSeconds: (t1 - t0) / 1000, indexesSeconds: (performance.now() - t1) / 1000 }
}

async function insertRows (q: Queryable, companyUid: string, n: number, now: number): Promise<void> {
  const apps = ['firmware', 'agent'].map((t) => ({ uid: `bench-app-${t}`, type: `bench.${t}` }))
  for (const a of apps) {
    await q.query(`INSERT INTO applications (uid, company_uid, name, revision, type, category, created_at)
      VALUES ($1, $2, $3, '1.0.0', $4, 'FIRMWARE', $5)`, [a.uid, companyUid, `Bench ${a.type}`, a.type, now])
  }
  await q.query(`CREATE TEMPORARY TABLE bench_data ON COMMIT DROP AS
    SELECT v, $1::jsonb || jsonb_build_object('rssi', -50 - v % 60, 'rssiLevel', ${LEVEL(1)}, 'ecio', -2 - v % 15,
      'ecioLevel', ${LEVEL(5)}, 'rsrp', -800 - v % 400, 'rsrpLevel', ${LEVEL(7)}, 'rsrqLevel', ${LEVEL(11)},
      'signalStrength', ${LEVEL(13)}, 'networkServiceType', (ARRAY['LTE','UMTS','HSPA','GPRS'])[1 + v % 4],
      'roamingStatus', CASE WHEN v % 9 = 0 THEN 'ROAMING' ELSE 'HOME' END,
      'bytesSent', (v * 7919) % 1000000, 'bytesReceived', (v * 104729) % 5000000) AS data
    FROM generate_series(0, ${DATA_VARIANTS - 1}) AS v`, [JSON.stringify(initialSystemData())])
  for (let from = 1; from <= n; from += CHUNK) {
    const params = [companyUid, now, n, from, Math.min(n, from + CHUNK - 1)]
    await q.query(`INSERT INTO gateways (uid, company_uid, imei, serial_number, mac_address, type, state, creation_date)
      SELECT md5('g' || i), $1, '35' || lpad(i::text, 13, '0'), 'SN' || lpad(i::text, 8, '0'),
        upper(regexp_replace(lpad(to_hex(i), 12, '0'), '(..)(?!$)', '\\1:', 'g')),
        (ARRAY['GL7600','FX30','RV50X','WP7702'])[1 + i % 4], 'DEPLOYED', ${CREATED}
      FROM generate_series($4::int, $5::int) AS i`, params)
    await q.query(`INSERT INTO subscriptions (uid, company_uid, identifier, mobile_number, network_identifier, ip_address,
        operator, state, creation_date)
      SELECT md5('b' || i), $1, '8933' || lpad(i::text, 15, '0'), '+3367' || lpad(i::text, 8, '0'),
        '20801' || lpad(i::text, 10, '0'), '10.' || (i / 65536) % 256 || '.' || (i / 256) % 256 || '.' || i % 256,
        (ARRAY['ORANGE','SFR','VODAFONE','TELEFONICA'])[1 + i % 4], 'ACTIVE', ${CREATED}
      FROM generate_series($4::int, $5::int) AS i`, params)
    await q.query(`INSERT INTO systems (uid, company_uid, name, type, life_cycle_state, state, activity_state,
        creation_date, activation_date, last_state_change_date, labels, gateway_uid, subscription_uid, metadata)
      SELECT md5('s' || i), $1, ${SQL_NAME}, (ARRAY['GL7600','FX30','RV50X','WP7702'])[1 + i % 4], lcs,
        CASE lcs WHEN 'ACTIVE' THEN 'DEPLOYED' WHEN 'TEST_READY' THEN 'READY' WHEN 'SUSPENDED' THEN 'MAINTENANCE' ELSE 'INVENTORY' END,
        'ACTIVATED', created, CASE WHEN lcs IN ('ACTIVE', 'SUSPENDED', 'RETIRED') THEN created + 3600000 END, created + 3600000,
        ARRAY['fleet-' || (i % 20), 'region-' || (i % 7)] || CASE WHEN i % 50 = 0 THEN ARRAY['vip'] ELSE ARRAY[]::text[] END,
        md5('g' || i), md5('b' || i),
        jsonb_build_object('site', 'site-' || (i % 500), 'owner', (ARRAY['ops','field','lab'])[1 + i % 3])
      FROM (SELECT i, ${LIFE_CYCLE} AS lcs, ${CREATED} AS created FROM generate_series($4::int, $5::int) AS i) AS r`, params)
    // The traffic state of each system (storage/migrations/0024_system_state.sql).
    await q.query(`INSERT INTO system_state (system_uid, last_comm_date, comm_status, data)
      SELECT md5('s' || i), CASE WHEN comm <> 'UNDEFINED' THEN $1::bigint - ((i * 7919) % 604800)::bigint * 1000 END, comm, d.data
      FROM (SELECT i, ${COMM} AS comm FROM generate_series($2::int, $3::int) AS i) AS r
        JOIN bench_data d ON d.v = r.i % ${DATA_VARIANTS}`, [now, params[3], params[4]])
    await q.query(`INSERT INTO system_applications (system_uid, application_uid)
      SELECT md5('s' || i), CASE WHEN i % 2 = 0 THEN $1 ELSE $2 END FROM generate_series($3::int, $4::int) AS i`,
    [apps[0]?.uid, apps[1]?.uid, params[3], params[4]])
  }
}
