// Artifact store: put and open throughput (MB/s) of released binaries in files, in PGlite and in PostgreSQL, files the baseline.
//
// Each store gets --mb MiB artifacts (default 64), made as they are read (64 KiB pieces of random bytes, each piece
// numbered so no two artifacts are alike), --rounds times (default 3): `put` streams one in (hashing SHA-256 and MD5
// on the way, as a release does), `open` streams it back out whole and hashes it (as a download reads it). The
// figure is the median round. Stores: files in a temporary DATA_DIR/artifacts; the database store on a PGlite in a
// temporary directory (the embedded store on disk), and on PostgreSQL when DATABASE_URL is set (a scratch database
// dropped after), with each --chunks size in KiB (default 256,1024).
//
// Flags: --mb N (64), --rounds N (3), --chunks K,K (256,1024), --stores files,pglite,postgres (those that can run).
import { createHash, randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { parseArgs } from 'node:util'
import type { ArtifactStore } from '../core/ports/artifacts.js'
import type { Db } from '../core/ports/store.js'
import { createDbArtifacts } from '../storage/artifacts/db-artifacts.js'
import { createFileArtifacts } from '../storage/artifacts/file-artifacts.js'
import { migrate } from '../storage/migrate.js'
import { openPgliteDb } from '../storage/pglite-db.js'
import { openPostgresDb } from '../storage/postgres-db.js'
import { createScratchDatabase } from './lib/postgres.js'
import { table, type Cell } from './lib/table.js'

const { values: flags } = parseArgs({
  options: {
    mb: { type: 'string', default: '64' },
    rounds: { type: 'string', default: '3' },
    chunks: { type: 'string', default: '256,1024' },
    stores: { type: 'string', default: 'files,pglite,postgres' }
  }
})
const MIB = 1024 * 1024
const size = Number(flags.mb) * MIB
const rounds = Number(flags.rounds)
const chunks = flags.chunks.split(',').map((k) => Number(k) * 1024)
const stores = new Set(flags.stores.split(','))
const PIECE = 64 * 1024
const block = randomBytes(PIECE)
let serial = 0

function source (): Readable {
  const id = serial++
  let at = 0
  return new Readable({
    read () {
      if (at >= size) { this.push(null); return }
      const piece = Buffer.from(block)
      piece.writeUInt32BE(id, 0)
      piece.writeUInt32BE(at / PIECE, 4)
      at += PIECE
      this.push(piece)
    }
  })
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN

/** MB/s of put and of open (whole, hashed) over the rounds: the median of each. */
async function measure (store: ArtifactStore): Promise<{ put: number, open: number }> {
  const puts: number[] = []
  const opens: number[] = []
  for (let r = 0; r < rounds; r++) {
    let t = performance.now()
    const info = await store.put(source())
    puts.push(size / MIB / ((performance.now() - t) / 1000))
    t = performance.now()
    const hash = createHash('sha256')
    for await (const piece of await store.open(info.key)) hash.update(piece as Buffer)
    opens.push(size / MIB / ((performance.now() - t) / 1000))
    if (hash.digest('hex') !== info.sha256) throw new Error('the bytes read back differ')
    await store.delete(info.key)
  }
  return { put: median(puts), open: median(opens) }
}

async function onDb (name: string, open: () => Promise<{ db: Db, done: () => Promise<void> }>): Promise<Array<[string, { put: number, open: number }]>> {
  const { db, done } = await open()
  try {
    await migrate(db)
    const out: Array<[string, { put: number, open: number }]> = []
    for (const chunk of chunks) out.push([`${name}, ${chunk / 1024} KiB chunks`, await measure(createDbArtifacts(db, { chunkSize: chunk }))])
    return out
  } finally { await done() }
}

const results: Array<[string, { put: number, open: number }]> = []
const dir = await mkdtemp(join(tmpdir(), 'fleet-bench-artifacts-'))
try {
  results.push(['files', await measure(createFileArtifacts(join(dir, 'artifacts')))])
  if (stores.has('pglite')) {
    results.push(...await onDb('PGlite', async () => {
      const db = await openPgliteDb(join(dir, 'pglite'))
      return { db, done: async () => { await db.close() } }
    }))
  }
  const server = process.env.DATABASE_URL
  if (stores.has('postgres') && server !== undefined) {
    results.push(...await onDb('PostgreSQL', async () => {
      const scratch = await createScratchDatabase(server, 'fleet_bench_artifacts')
      const db = await openPostgresDb(scratch.url)
      return { db, done: async () => { await db.close(); await scratch.drop() } }
    }))
  }
} finally {
  await rm(dir, { recursive: true, force: true })
}

const base = results[0]?.[1] ?? { put: NaN, open: NaN }
const rows: Cell[][] = results.map(([name, r]) => [name, r.put, r.open, r.put / base.put, r.open / base.open])
console.log(`${flags.mb} MiB artifacts, median of ${rounds} rounds`)
console.log(table(['store', 'put MB/s', 'open MB/s', 'put / files', 'open / files'], rows))
