// The thread that runs PGlite (started by storage/pglite-db.ts): the embedded store's statements execute here, in
// WebAssembly, while the service's thread decodes, validates and answers (bench ingest: the two shared one core).
import { parentPort, workerData } from 'node:worker_threads'
import { PGlite, types, type Transaction } from '@electric-sql/pglite'
import { pg_trgm as pgTrgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { errorFields, type Answer, type Ready, type Request, type WorkerInput } from './pglite-protocol.js'

// int8 and numeric come back as JS numbers on both adapters: timestamps are epoch ms in bigint columns,
// well inside Number's safe range (docs/api.md#using-the-api: timestamps are epoch ms).
// bytea comes back as bytes (text format '\\x<hex>'); storage/pglite-db.ts makes them Buffers, as pg answers them.
const parsers = {
  [types.INT8]: Number,
  [types.NUMERIC]: Number,
  [types.BYTEA]: (x: string) => Buffer.from(x.slice(2), 'hex')
}

/** Rejects a transaction's body: PGlite rolls back, and the rollback is the answer asked for. */
const ROLLBACK = Symbol('rollback')

/**
 * A transaction of the service's: BEGIN was asked; `opened` resolves once PGlite runs it (after what it was running),
 * and the statements sent for it meanwhile wait on it, in the order they came.
 */
interface OpenTx { opened: Promise<Transaction>, end: (commit: boolean) => void, settled: Promise<void> }

if (parentPort === null) throw new Error('storage/pglite-worker.ts runs as a worker thread')
const port = parentPort
const input = workerData as WorkerInput

const answer = (a: Answer): void => { port.postMessage(a) }
const fail = (id: number, err: unknown): void => { answer({ id, ok: false, error: errorFields(err) }) }

async function run (q: PGlite | Transaction, id: number, sql: string, params: readonly unknown[]): Promise<void> {
  try {
    const res = await q.query(sql, params as unknown[], { parsers })
    const bytea = res.fields.filter((f) => f.dataTypeID === types.BYTEA).map((f) => f.name)
    // PGlite reports affectedRows 0 for a SELECT; pg's rowCount is the rows answered (test/store/db.contract.ts).
    const rowCount = res.fields.length > 0 ? res.rows.length : res.affectedRows ?? 0
    answer({ id, ok: true, rows: res.rows, rowCount, ...(bytea.length > 0 ? { bytea } : {}) })
  } catch (err) { fail(id, err) }
}

function serve (pg: PGlite): void {
  const open = new Map<number, OpenTx>()

  // The service's thread names the transaction and sends its statements without waiting for BEGIN's answer (one
  // round trip less per transaction, and the statements of a batch reach this thread together: bench ingest).
  const begin = (id: number, txId: number): void => {
    let opened!: (tx: Transaction) => void
    let refused!: (err: unknown) => void
    let end!: (commit: boolean) => void
    const entry: OpenTx = {
      opened: new Promise<Transaction>((resolve, reject) => { opened = resolve; refused = reject }),
      end: (commit) => { end(commit) },
      settled: Promise.resolve()
    }
    // A statement of a transaction whose BEGIN failed fails with BEGIN's error (answered there): no unhandled one here.
    entry.opened.catch(() => {})
    open.set(txId, entry)
    let begun = false
    entry.settled = pg.transaction(async (tx) => {
      await new Promise<void>((resolve, reject) => {
        end = (commit) => { if (commit) resolve(); else reject(ROLLBACK) }
        begun = true
        opened(tx)
        answer({ id, ok: true, tx: txId })
      })
    }).then(() => undefined, (err: unknown) => {
      if (err === ROLLBACK) return
      // BEGIN itself failed: the caller is still waiting for the transaction, and so are its statements.
      if (!begun) { open.delete(txId); refused(err); fail(id, err); return }
      throw err
    })
  }

  const finish = (id: number, txId: number, commit: boolean): void => {
    const t = open.get(txId)
    if (t === undefined) { fail(id, new Error(`no open transaction ${txId}`)); return }
    t.opened.then(() => {
      open.delete(txId)
      t.end(commit)
      t.settled.then(() => { answer({ id, ok: true }) }, (err: unknown) => { fail(id, err) })
    }, (err: unknown) => { fail(id, err) })
  }

  port.on('message', (r: Request) => {
    switch (r.op) {
      case 'query': {
        if (r.tx === undefined) { run(pg, r.id, r.sql, r.params).catch(() => {}); return }
        const t = open.get(r.tx)
        if (t === undefined) { fail(r.id, new Error(`no open transaction ${String(r.tx)}`)); return }
        t.opened.then(async (tx) => { await run(tx, r.id, r.sql, r.params) }, (err: unknown) => { fail(r.id, err) }).catch(() => {})
        return
      }
      case 'exec':
        pg.exec(r.sql).then(() => { answer({ id: r.id, ok: true }) }, (err: unknown) => { fail(r.id, err) })
        return
      case 'begin': begin(r.id, r.tx); return
      case 'end': finish(r.id, r.tx, r.commit); return
      case 'image':
        pg.dumpDataDir('none').then(async (blob) => {
          const image = new Uint8Array(await blob.arrayBuffer())
          port.postMessage({ id: r.id, ok: true, image } satisfies Answer, [image.buffer])
        }, (err: unknown) => { fail(r.id, err) })
        return
      case 'close':
        (pg.closed ? Promise.resolve() : pg.close()).then(() => { answer({ id: r.id, ok: true }); port.close() }, (err: unknown) => { fail(r.id, err) })
    }
  })
}

try {
  // pg_trgm: the trigram indexes of the find filters (storage/migrations/0003_find_indexes.sql).
  const pg = await PGlite.create({
    ...(input.dataDir === undefined ? {} : { dataDir: input.dataDir }),
    ...(input.image === undefined ? {} : { loadDataDir: new Blob([input.image]) }),
    extensions: { pg_trgm: pgTrgm },
    // A new 16 MB WAL segment is not written full of zeros first (wal_init_zero): through the WebAssembly file system
    // that cost a commit more and more as the ingest went on (bench ingest, PGlite, 60 s: the COMMITs took 0.65 s
    // of every 10 by the end against 0.3 s without, and 11,599 → 12,043 msg/s). Zero-filling guards against a disk
    // that fills up under a segment; it changes nothing to what a killed process leaves (PGlite runs with fsync off).
    startParams: [...PGlite.defaultStartParams, '-c', 'wal_init_zero=off']
  })
  serve(pg)
  port.postMessage({ ready: true } satisfies Ready)
} catch (err) {
  port.postMessage({ ready: false, error: errorFields(err) } satisfies Ready)
}
