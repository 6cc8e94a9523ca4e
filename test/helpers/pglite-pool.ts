import { readFile } from 'node:fs/promises'
import { openPgliteDb, type PgliteDb } from '../../storage/pglite-db.js'
import { PGLITE_IMAGE } from './env.js'
import { storeTables } from './store-snapshot.js'

// The embedded test stores of one test process, emptied and handed out again instead of started anew
// (docs/testing.md#isolation). Starting PGlite from the migrated image costs about 1.3 s of CPU (a thread, the
// WebAssembly instance, 43 MB of files); emptying one, a few ms. A store goes back to the pool only when its
// schema is the image's (no table, column, index, function or trigger added or dropped, the same migrations
// recorded) and nothing of its last user is still running; anything else is closed.

/** Stores kept for the next file: a test file holds one or two at once. */
const KEEP = 2
const idle: PgliteDb[] = []
let image: Promise<Uint8Array> | undefined
let pristine: Promise<Pristine> | undefined

interface Pristine { signature: string, reset: string, partitions: ReadonlySet<string> }

// What a test could change in the schema, as one digest.
const SIGNATURE = `SELECT md5(concat_ws('|',
  (SELECT string_agg(relname || ':' || relkind::text, ',' ORDER BY relname) FROM pg_class WHERE relnamespace = 'public'::regnamespace),
  (SELECT string_agg(c.relname || '.' || a.attname || ':' || a.atttypid::text, ',' ORDER BY c.relname, a.attname)
     FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
    WHERE c.relnamespace = 'public'::regnamespace AND a.attnum > 0 AND NOT a.attisdropped),
  (SELECT string_agg(conname, ',' ORDER BY conname) FROM pg_constraint WHERE connamespace = 'public'::regnamespace),
  (SELECT string_agg(proname, ',' ORDER BY proname) FROM pg_proc WHERE pronamespace = 'public'::regnamespace),
  (SELECT string_agg(tgname, ',' ORDER BY tgname) FROM pg_trigger WHERE NOT tgisinternal),
  (SELECT string_agg(nspname, ',' ORDER BY nspname) FROM pg_namespace),
  (SELECT string_agg(name, ',' ORDER BY name) FROM schema_migrations))) AS signature`

const PARTITIONS = `SELECT quote_ident(relname) AS name FROM pg_class
  WHERE relnamespace = 'public'::regnamespace AND relispartition AND relkind IN ('r', 'p')`

async function signatureOf (db: PgliteDb): Promise<string> {
  return (await db.query<{ signature: string }>(SIGNATURE)).rows[0]?.signature ?? ''
}

async function learn (db: PgliteDb): Promise<Pristine> {
  // Every table but the migrations' record (the only one the image fills), its sequences restarted.
  const tables = (await storeTables(db)).filter((t) => t !== 'schema_migrations').map((t) => `"${t}"`).join(', ')
  return {
    signature: await signatureOf(db),
    partitions: new Set((await db.query<{ name: string }>(PARTITIONS)).rows.map((r) => r.name)),
    reset: `TRUNCATE ${tables} RESTART IDENTITY CASCADE;
      SELECT setval(s.seqrelid, s.seqstart, false) FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid
       WHERE c.relnamespace = 'public'::regnamespace`
  }
}

/** A store as the image holds it: one emptied by an earlier file of this process, or a new one. */
export async function takePglite (): Promise<PgliteDb & { release (): Promise<void> }> {
  const db = idle.pop() ?? await openFresh()
  return lease(db)
}

async function openFresh (): Promise<PgliteDb> {
  image ??= readFile(PGLITE_IMAGE)
  const db = await openPgliteDb(undefined, { image: await image })
  pristine ??= learn(db)
  await pristine
  return db
}

/**
 * The store as its user sees it: closing it closes it for that user only (later calls are refused, as on a closed
 * store); `release` then empties it and keeps it for the next user, or closes it for good.
 */
function lease (db: PgliteDb): PgliteDb & { release (): Promise<void> } {
  let closed = false
  const open = (): PgliteDb => {
    if (closed) throw new Error('the store is closed')
    return db
  }
  return {
    kind: 'pglite',
    async query (sql, params) { return await open().query(sql, params) },
    async exec (sql) { await open().exec(sql) },
    async transaction (fn) { return await open().transaction(fn) },
    async image () { return await open().image() },
    poolStats: () => db.poolStats?.() ?? { total: 1, idle: 1, waiting: 0, inFlight: 0 },
    async close () { closed = true },
    async release () {
      closed = true
      if (!await reusable(db)) { await db.close(); return }
      idle.push(db)
    }
  }
}

/** Empties db for the next user when it can be; false when it must be closed instead. */
async function reusable (db: PgliteDb): Promise<boolean> {
  if (idle.length >= KEEP || pristine === undefined) return false
  // A statement of the last user still running (a background job the service did not wait for) could land in the
  // next user's store.
  if ((db.poolStats?.().inFlight ?? 0) > 0) return false
  try {
    const { signature, reset, partitions } = await pristine
    // The service adds the current months' partitions of data_points as it starts (docs/store.md#points-partitions-and-retention): they go.
    const added = (await db.query<{ name: string }>(PARTITIONS)).rows.map((r) => r.name).filter((n) => !partitions.has(n))
    if (added.length > 0) await db.exec(`DROP TABLE ${added.join(', ')}`)
    if (await signatureOf(db) !== signature) return false
    await db.exec(reset)
    // Session settings, advisory locks, prepared statements (outside the reset's transaction, as it must be).
    await db.exec('DISCARD ALL')
    return true
  } catch {
    return false
  }
}
