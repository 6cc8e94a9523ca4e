// The ArtifactStore contract (artifacts.contract.ts) on both stores of storage/artifacts/: the files (embedded run),
// the database on PGlite (embedded run) and on PostgreSQL (TEST_DATABASE_URL, and always under CI=true: a CI run never
// passes by skipping the server, docs/testing.md).
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createFileArtifacts } from '../../storage/artifacts/file-artifacts.js'
import { createDbArtifacts, DEFAULT_CHUNK_SIZE } from '../../storage/artifacts/db-artifacts.js'
import { createTestDb } from '../helpers/test-db.js'
import { EMBEDDED_RUN, TEST_DATABASE_URL } from '../helpers/env.js'
import { describeArtifactsContract, type ArtifactsHarness } from './artifacts.contract.js'

// The one environment read of this file: whether this is a CI run (test/helpers/env.ts holds the server URL).
const CI = process.env.CI === 'true'

async function files (): Promise<ArtifactsHarness> {
  const dir = await mkdtemp(join(tmpdir(), 'fleet-artifacts-'))
  return {
    store: createFileArtifacts(dir),
    chunk: 64 * 1024,
    copies: async (key) => (await readdir(dir)).filter((n) => n === key).length,
    leftovers: async () => (await readdir(dir)).filter((n) => n.startsWith('.partial-')).length,
    close: async () => { await rm(dir, { recursive: true, force: true }) }
  }
}

async function database (kind: 'pglite' | 'postgres'): Promise<ArtifactsHarness> {
  const { db, drop } = await createTestDb(kind)
  const count = async (sql: string, params: unknown[] = []): Promise<number> => (await db.query<{ n: number }>(sql, params)).rows[0]?.n ?? 0
  return {
    store: createDbArtifacts(db),
    chunk: DEFAULT_CHUNK_SIZE,
    async copies (key) {
      const rows = await count('SELECT count(*)::int AS n FROM artifacts WHERE key = $1', [key])
      const chunks = await count('SELECT count(*)::int AS n FROM artifact_chunks WHERE key = $1', [key])
      const expected = await count('SELECT ceil(size::numeric / chunk_size)::int AS n FROM artifacts WHERE key = $1', [key])
      return rows === 0 ? (chunks === 0 ? 0 : -1) : chunks / Math.max(expected, 1)
    },
    leftovers: async () => await count("SELECT count(*)::int AS n FROM artifact_chunks WHERE key LIKE 'partial:%'"),
    close: drop
  }
}

if (EMBEDDED_RUN) {
  describeArtifactsContract('files', files)
  describeArtifactsContract('database on PGlite', async () => await database('pglite'))
}
if (TEST_DATABASE_URL !== undefined || CI) describeArtifactsContract('database on PostgreSQL', async () => await database('postgres'))
