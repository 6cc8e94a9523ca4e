// The embedded store's image (storage/pglite-db.ts): an in-memory PGlite started from another's files holds what
// that one held when the image was taken, and the two go their own ways after. The test stores of every suite start
// this way (test/helpers/test-db.ts), so a wrong image would show there only as confusing failures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openPgliteDb, type PgliteDb } from '../../../storage/pglite-db.js'

describe('PGlite image', () => {
  let first: PgliteDb
  beforeAll(async () => {
    first = await openPgliteDb(undefined)
    await first.exec('CREATE TABLE kept (id int PRIMARY KEY, v text)')
    await first.query('INSERT INTO kept VALUES (1, $1)', ['before the image'])
  })
  afterAll(async () => { await first.close() })

  it('starts another store with the tables and rows of the first, and each changes alone after', async () => {
    const image = await first.image()
    await first.query('INSERT INTO kept VALUES (2, $1)', ['after the image'])
    const second = await openPgliteDb(undefined, { image })
    try {
      expect((await second.query('SELECT id, v FROM kept ORDER BY id')).rows).toEqual([{ id: 1, v: 'before the image' }])
      await second.query('INSERT INTO kept VALUES (3, $1)', ['second only'])
      expect((await first.query('SELECT id FROM kept ORDER BY id')).rows).toEqual([{ id: 1 }, { id: 2 }])
      // The primary key came along with the rows.
      await expect(second.query('INSERT INTO kept VALUES (1, $1)', ['again'])).rejects.toMatchObject({ code: '23505' })
    } finally { await second.close() }
  })

  it('refuses an image for a store on disk', async () => {
    await expect(openPgliteDb('/tmp/never-made', { image: new Uint8Array(0) })).rejects.toThrow(/in-memory/)
  })
})
