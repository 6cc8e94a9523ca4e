// PackageDownloadsRepository (storage/repositories/package-downloads.repository.ts) on each engine: links found by
// their token's hash, bytes served added in one statement for several links, links removed with their task, their
// system or their expiry. The embedded run on PGlite; PostgreSQL with TEST_DATABASE_URL (always under CI=true).
import { expect } from 'vitest'
import type { DownloadLinkInput } from '../../core/ports/package-downloads.js'
import { createTestDb } from '../helpers/test-db.js'
import { EMBEDDED_RUN, TEST_DATABASE_URL } from '../helpers/env.js'
import { defineContract, newCompany, newSystem, uniq, type Store } from './repositories/store.js'

// The one environment read of this file: whether this is a CI run (test/helpers/env.ts holds the server URL).
const CI = process.env.CI === 'true'

/** A system with one operation task, as an install operation makes them. */
async function installTask ({ db, repos }: Store): Promise<{ systemUid: string, taskUid: string }> {
  const co = await newCompany(repos)
  const systemUid = await newSystem(repos, co)
  const op = uniq('op')
  const taskUid = uniq('task')
  await db.query('INSERT INTO operations (uid, company_uid, type, state, created_at, timeout_date) VALUES ($1, $2, \'SYSTEM_INSTALL_APPLICATION\', \'IN_PROGRESS\', 1, 2)', [op, co])
  await db.query('INSERT INTO operation_tasks (uid, operation_uid, seq, system_uid, state, created_at) VALUES ($1, $2, 0, $3, \'PENDING\', 1)', [taskUid, op, systemUid])
  return { systemUid, taskUid }
}

const link = (t: { systemUid: string, taskUid: string }, patch: Partial<DownloadLinkInput> = {}): DownloadLinkInput =>
  ({ ...t, artifact: 'a'.repeat(64), file: 'fw/app.bin', size: 5_000_000_000, expiresAt: 1_700_000_000_000, ...patch })

const contract = defineContract('PackageDownloadsRepository', {
  'inserts and finds by hash, sizes and dates past int4 as numbers': async (store) => {
    const d = store.repos.packageDownloads
    const t = await installTask(store)
    const hash = uniq('h')
    await d.insert(hash, link(t), 1_699_000_000_000)
    expect(await d.find(hash)).toEqual({ ...link(t), bytesServed: 0, firstDownloadAt: null, lastDownloadAt: null })
    expect(await d.find(uniq('none'))).toBeUndefined()
  },
  'adds the bytes served of several links in one call, keeping the first and last dates': async (store) => {
    const d = store.repos.packageDownloads
    const t = await installTask(store)
    const [a, b, gone] = [uniq('a'), uniq('b'), uniq('gone')]
    await d.insert(a, link(t), 1)
    await d.insert(b, link(t), 1)
    await d.addServed([{ tokenSha256: a, bytes: 3_000_000_000, first: 200, last: 300 }, { tokenSha256: b, bytes: 10, first: 250, last: 250 }, { tokenSha256: gone, bytes: 1, first: 1, last: 1 }])
    await d.addServed([{ tokenSha256: a, bytes: 3_000_000_000, first: 100, last: 150 }])
    await d.addServed([])
    expect(await d.find(a)).toMatchObject({ bytesServed: 6_000_000_000, firstDownloadAt: 100, lastDownloadAt: 300 })
    expect(await d.find(b)).toMatchObject({ bytesServed: 10, firstDownloadAt: 250, lastDownloadAt: 250 })
  },
  'removes the links of tasks, the expired ones, and those of a deleted task or system': async (store) => {
    const d = store.repos.packageDownloads
    const [t1, t2, t3] = [await installTask(store), await installTask(store), await installTask(store)]
    const [h1, h2, h3, h4] = [uniq('1'), uniq('2'), uniq('3'), uniq('4')]
    await d.insert(h1, link(t1), 1)
    await d.insert(h2, link(t2, { expiresAt: 10 }), 1)
    await d.insert(h3, link(t3), 1)
    await d.insert(h4, link(t2), 1)
    expect(await d.removeForTasks([t1.taskUid, uniq('none')])).toBe(1)
    expect(await d.removeForTasks([])).toBe(0)
    expect(await d.find(h1)).toBeUndefined()
    expect(await d.removeExpired(11)).toBeGreaterThanOrEqual(1)
    expect(await d.find(h2)).toBeUndefined()
    expect(await d.find(h4)).toBeDefined()
    await store.db.query('DELETE FROM operation_tasks WHERE uid = $1', [t2.taskUid])
    expect(await d.find(h4)).toBeUndefined()
    await store.db.query('DELETE FROM systems WHERE uid = $1', [t3.systemUid])
    expect(await d.find(h3)).toBeUndefined()
  }
})

if (EMBEDDED_RUN) contract('PGlite', async () => await createTestDb('pglite'))
if (TEST_DATABASE_URL !== undefined || CI) contract('PostgreSQL', async () => await createTestDb('postgres'))
