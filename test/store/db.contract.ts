// The Db port's contract (docs/testing.md, contract suites): every adapter (PGlite, PostgreSQL) must
// answer the same SQL the same way, so that repositories written once run on both (docs/architecture.md#storage).
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import type { Db } from '../../core/ports/store.js'
import { migrate, migrations } from '../../storage/migrate.js'

/** A fresh store with nothing in it (not migrated) and how to dispose of it. */
export interface FreshDb { db: Db, drop (): Promise<void> }

export function describeDbContract (name: string, makeDb: () => Promise<FreshDb>): void {
  describe(`Db contract: ${name}`, () => {
    // One store per suite (opening PGlite takes seconds); every test starts from an empty public schema.
    let store: FreshDb | undefined
    beforeAll(async () => { store = await makeDb() })
    afterAll(async () => { await store?.drop() })
    afterEach(async () => { await store?.db.exec('DROP SCHEMA public CASCADE; CREATE SCHEMA public') })

    function empty (): Db {
      if (store === undefined) throw new Error('no store')
      return store.db
    }

    async function withTable (): Promise<Db> {
      const db = empty()
      await db.exec('CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL, tags text[], doc jsonb, data bytea, n bigint)')
      return db
    }

    const ctx: Ctx = { empty, withTable, makeDb }
    for (const [title, run] of Object.entries(CASES)) it(title, async () => { await run(ctx) })
  })
}

/** What a case is given: the store emptied after each case, one with a table of every column type, a fresh store. */
interface Ctx { empty: () => Db, withTable: () => Promise<Db>, makeDb: () => Promise<FreshDb> }

const CASES: Record<string, (ctx: Ctx) => Promise<void>> = {
  'runs a query with $n parameters and reports rowCount for inserts, updates, deletes and selects': async ({ withTable }) => {
    const db = await withTable()
    for (const [id, label] of [[1, 'a'], [2, 'b'], [3, 'b']] as const) {
      expect((await db.query('INSERT INTO items (id, name) VALUES ($1, $2)', [id, label])).rowCount).toBe(1)
    }
    expect((await db.query('UPDATE items SET name = $1 WHERE name = $2', ['c', 'b'])).rowCount).toBe(2)
    expect((await db.query('UPDATE items SET name = $1 WHERE id = $2', ['z', 99])).rowCount).toBe(0)
    const sel = await db.query<{ id: number }>('SELECT id FROM items WHERE name = $1 ORDER BY id', ['c'])
    expect(sel.rows).toEqual([{ id: 2 }, { id: 3 }])
    expect(sel.rowCount).toBe(2)
    const ret = await db.query<{ id: number }>('DELETE FROM items WHERE id >= $1 RETURNING id', [2])
    expect(ret.rowCount).toBe(2)
    expect(ret.rows.map((r) => r.id).sort()).toEqual([2, 3])
    expect((await db.query('SELECT * FROM items')).rowCount).toBe(1)
  },

  'answers null parameters and null columns as null': async ({ withTable }) => {
    const db = await withTable()
    await db.query('INSERT INTO items (id, name, tags, doc, data, n) VALUES ($1, $2, $3, $4, $5, $6)', [1, 'a', null, null, null, null])
    const { rows } = await db.query('SELECT tags, doc, data, n FROM items')
    expect(rows).toEqual([{ tags: null, doc: null, data: null, n: null }])
  },

  'answers int8, numeric and count(*) as JS numbers': async ({ withTable }) => {
    const db = await withTable()
    const ms = 1_767_225_600_123 // an epoch-ms timestamp, as stored in bigint columns
    await db.query('INSERT INTO items (id, name, n) VALUES (1, $1, $2), (2, $1, $3)', ['a', ms, Number.MAX_SAFE_INTEGER])
    const { rows } = await db.query<{ n: unknown }>('SELECT n FROM items ORDER BY id')
    expect(rows).toEqual([{ n: ms }, { n: Number.MAX_SAFE_INTEGER }])
    // sum(int4) is int8, sum(int8) and avg are numeric
    const agg = await db.query('SELECT count(*) AS c, sum(id) AS s, sum(n) FILTER (WHERE id = 1) * 2 AS big, 12.25::numeric AS dec, avg(id) AS mean FROM items')
    expect(agg.rows[0]).toEqual({ c: 2, s: 3, big: 2 * ms, dec: 12.25, mean: 1.5 })
    for (const v of Object.values(agg.rows[0] ?? {})) expect(typeof v).toBe('number')
  },

  'round-trips jsonb given as JSON text': async ({ withTable }) => {
    // Convention of the repositories: jsonb parameters are JSON.stringify'd with a ::jsonb cast, because pg
    // would turn a JS array parameter into a PostgreSQL array literal.
    const db = await withTable()
    const doc = { startIPAddress: null, list: ['10.0.0.1', 'x"y'], nested: { n: 1.5, ok: true }, unicode: 'é✓' }
    await db.query('INSERT INTO items (id, name, doc) VALUES ($1, $2, $3::jsonb)', [1, 'a', JSON.stringify(doc)])
    await db.query('INSERT INTO items (id, name, doc) VALUES ($1, $2, $3::jsonb)', [2, 'b', JSON.stringify([1, 'two'])])
    const { rows } = await db.query<{ doc: unknown }>('SELECT doc FROM items ORDER BY id')
    expect(rows).toEqual([{ doc }, { doc: [1, 'two'] }])
    const byKey = await db.query<{ id: number }>("SELECT id FROM items WHERE doc->'nested'->>'ok' = $1", ['true'])
    expect(byKey.rows).toEqual([{ id: 1 }])
  },

  'takes text[] parameters and answers text[] columns as string arrays': async ({ withTable }) => {
    const db = await withTable()
    const tags = ['plain', 'with,comma', 'with "quotes"', '', 'NULL', 'é']
    await db.query('INSERT INTO items (id, name, tags) VALUES ($1, $2, $3::text[])', [1, 'a', tags])
    await db.query('INSERT INTO items (id, name, tags) VALUES ($1, $2, $3::text[])', [2, 'b', []])
    const { rows } = await db.query<{ tags: string[] }>('SELECT tags FROM items ORDER BY id')
    expect(rows).toEqual([{ tags }, { tags: [] }])
    const any = await db.query<{ id: number }>('SELECT id FROM items WHERE name = ANY($1::text[]) ORDER BY id', [['b', 'zz']])
    expect(any.rows).toEqual([{ id: 2 }])
    const agg = await db.query<{ names: string[] }>('SELECT array_agg(name ORDER BY id) AS names FROM items')
    expect(agg.rows[0]?.names).toEqual(['a', 'b'])
  },

  'round-trips bytea as a Buffer': async ({ withTable }) => {
    const db = await withTable()
    const data = Buffer.from([0, 1, 2, 0x5c, 0x78, 127, 128, 254, 255])
    await db.query('INSERT INTO items (id, name, data) VALUES ($1, $2, $3)', [1, 'a', data])
    await db.query('INSERT INTO items (id, name, data) VALUES ($1, $2, $3)', [2, 'b', Buffer.alloc(0)])
    const { rows } = await db.query<{ data: Buffer }>('SELECT data FROM items ORDER BY id')
    expect(Buffer.isBuffer(rows[0]?.data)).toBe(true)
    expect(rows[0]?.data.equals(data)).toBe(true)
    expect(Buffer.isBuffer(rows[1]?.data)).toBe(true)
    expect(rows[1]?.data.length).toBe(0)
  },

  'commits a transaction when its function resolves, and answers its value': async ({ withTable }) => {
    const db = await withTable()
    const out = await db.transaction(async (tx) => {
      await tx.query('INSERT INTO items (id, name) VALUES ($1, $2)', [1, 'a'])
      await tx.query('INSERT INTO items (id, name) VALUES ($1, $2)', [2, 'b'])
      return 'done'
    })
    expect(out).toBe('done')
    expect((await db.query('SELECT id FROM items ORDER BY id')).rows).toEqual([{ id: 1 }, { id: 2 }])
  },

  'rolls a transaction back when its function throws, and rethrows the same error': async ({ withTable }) => {
    const db = await withTable()
    await db.query('INSERT INTO items (id, name) VALUES (1, $1)', ['before'])
    const boom = new Error('boom')
    await expect(db.transaction(async (tx) => {
      await tx.query('INSERT INTO items (id, name) VALUES (2, $1)', ['inside'])
      await tx.query('UPDATE items SET name = $1 WHERE id = 1', ['changed'])
      throw boom
    })).rejects.toBe(boom)
    expect((await db.query('SELECT id, name FROM items')).rows).toEqual([{ id: 1, name: 'before' }])
  },

  'rolls back when a statement fails inside the transaction, and the store stays usable': async ({ withTable }) => {
    const db = await withTable()
    await expect(db.transaction(async (tx) => {
      await tx.query('INSERT INTO items (id, name) VALUES (1, $1)', ['a'])
      await tx.query('INSERT INTO items (id, name) VALUES (1, $1)', ['duplicate'])
    })).rejects.toThrow(/duplicate key|unique/i)
    expect((await db.query('SELECT count(*) AS n FROM items')).rows).toEqual([{ n: 0 }])
    await db.query('INSERT INTO items (id, name) VALUES (1, $1)', ['after'])
    expect((await db.query('SELECT name FROM items')).rows).toEqual([{ name: 'after' }])
  },

  'answers a failed statement as an Error with its SQLSTATE, constraint and severity': async ({ withTable }) => {
    const db = await withTable()
    await db.query('INSERT INTO items (id, name) VALUES (1, $1)', ['a'])
    const err: unknown = await db.query('INSERT INTO items (id, name) VALUES (1, $1)', ['b']).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(Error)
    expect(err).toMatchObject({ code: '23505', constraint: 'items_pkey', severity: 'ERROR' })
    const inTx: unknown = await db.transaction(async (tx) => await tx.query('SELECT 1 / $1::int AS x', [0])).catch((e: unknown) => e)
    expect(inTx).toMatchObject({ code: '22012' })
  },

  'runs a statement sent during a transaction after it, never inside it': async ({ withTable }) => {
    const db = await withTable()
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => { release = resolve })
    let inserted: () => void = () => {}
    const inside = new Promise<void>((resolve) => { inserted = resolve })
    const tx = db.transaction(async (t) => {
      await t.query('INSERT INTO items (id, name) VALUES (1, $1)', ['inside'])
      inserted()
      await held
      throw new Error('rolled back')
    })
    // Sent once the transaction holds its row. PGlite runs it after the transaction ends; a PostgreSQL pool on
    // another connection, not seeing row 1.
    await inside
    const outside = db.query<{ n: number }>('SELECT count(*) AS n FROM items')
    release()
    await expect(tx).rejects.toThrow('rolled back')
    expect((await outside).rows).toEqual([{ n: 0 }])
    expect((await db.query<{ n: number }>('SELECT count(*) AS n FROM items')).rows).toEqual([{ n: 0 }])
  },

  'runs the statements of a transaction sent at once in the order sent, and a failure among them rolls all back': async ({ withTable }) => {
    const db = await withTable()
    // Sent without waiting for each answer, as the ingest sends a batch's statements (core/settled.ts); the PGlite
    // store sends them before BEGIN has even answered.
    const names = await db.transaction(async (tx) => {
      const sent = [
        tx.query('INSERT INTO items (id, name) VALUES (1, $1)', ['a']),
        tx.query('UPDATE items SET name = name || $1 WHERE id = 1', ['b']),
        tx.query('INSERT INTO items (id, name) SELECT 2, name || $1 FROM items WHERE id = 1', ['c']),
        tx.query<{ name: string }>('SELECT name FROM items ORDER BY id')
      ]
      return (await Promise.all(sent))[3]?.rows.map((r) => r.name)
    })
    expect(names).toEqual(['ab', 'abc'])
    await expect(db.transaction(async (tx) => {
      const sent = [
        tx.query('INSERT INTO items (id, name) VALUES (3, $1)', ['x']),
        tx.query('INSERT INTO items (id, name) VALUES (1, $1)', ['duplicate']),
        tx.query('INSERT INTO items (id, name) VALUES (4, $1)', ['y'])
      ]
      const settled = await Promise.allSettled(sent)
      expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'rejected'])
      throw (settled[1] as PromiseRejectedResult).reason
    })).rejects.toThrow(/duplicate key|unique/i)
    expect((await db.query<{ id: number }>('SELECT id FROM items ORDER BY id')).rows).toEqual([{ id: 1 }, { id: 2 }])
  },

  'sees its own writes inside a transaction': async ({ withTable }) => {
    const db = await withTable()
    await db.transaction(async (tx) => {
      await tx.query('INSERT INTO items (id, name) VALUES (1, $1)', ['a'])
      expect((await tx.query('SELECT name FROM items WHERE id = 1')).rows).toEqual([{ name: 'a' }])
      await tx.query('UPDATE items SET name = $1 WHERE id = 1', ['b'])
      expect((await tx.query<{ name: string }>('SELECT name FROM items')).rows).toEqual([{ name: 'b' }])
    })
  },

  'runs several statements with exec': async ({ empty }) => {
    const db = empty()
    await db.exec(`
      CREATE TABLE a (x int);
      CREATE TABLE b (y text);
      INSERT INTO a VALUES (1), (2);
      INSERT INTO b VALUES ('z');
    `)
    expect((await db.query('SELECT sum(x) AS s FROM a')).rows).toEqual([{ s: 3 }])
    expect((await db.query('SELECT y FROM b')).rows).toEqual([{ y: 'z' }])
    await expect(db.exec('SELECT * FROM missing_table')).rejects.toThrow(/missing_table/)
  },

  'applies every migration once, in name order, and nothing on a second run': async ({ empty }) => {
    const db = empty()
    const files = (await migrations()).map((m) => m.name)
    expect(files.length).toBeGreaterThan(0)
    expect(await migrate(db)).toEqual(files)
    expect(await migrate(db)).toEqual([])
    const { rows } = await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name')
    expect(rows.map((r) => r.name)).toEqual(files)
    // The schema is there: a table of the first migration answers.
    expect((await db.query('SELECT count(*) AS n FROM companies')).rows).toEqual([{ n: 0 }])
  },

  'refuses queries once closed, and closing twice is harmless': async ({ makeDb }) => {
    const other = await makeDb()
    onTestFinished(async () => { await other.drop() })
    expect((await other.db.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }])
    await other.db.close()
    await expect(other.db.query('SELECT 1')).rejects.toThrow()
    await other.db.close()
  }
}
