// The messages between storage/pglite-db.ts (the service's thread) and storage/pglite-worker.ts (the thread that runs
// PGlite). Each request has an id its answer repeats; rows cross by structured clone.

export type Request =
  | { id: number, op: 'query', sql: string, params: readonly unknown[], tx?: number }
  | { id: number, op: 'exec', sql: string }
  /** `tx` is chosen by the service's thread, which sends the transaction's statements without waiting. */
  | { id: number, op: 'begin', tx: number }
  | { id: number, op: 'end', tx: number, commit: boolean }
  | { id: number, op: 'close' }
  | { id: number, op: 'image' }

/** A PGlite error's fields (code, constraint, detail...): an Error crosses threads without them. */
export interface ErrorFields { message: string, name: string, [field: string]: unknown }

export type Answer =
  | { id: number, ok: true, rows?: unknown[], rowCount?: number, /** columns holding bytea */ bytea?: string[], tx?: number, image?: Uint8Array }
  | { id: number, ok: false, error: ErrorFields }

/** The worker's first message: PGlite opened, or why not. */
export type Ready = { ready: true } | { ready: false, error: ErrorFields }

export interface WorkerInput {
  dataDir: string | undefined
  /** An in-memory store's starting files: the tarball of an earlier store's image() (PGlite's loadDataDir). */
  image?: Uint8Array
}

/** The fields of a thrown value that an answer carries (own enumerable ones: code, severity, constraint...). */
export function errorFields (err: unknown): ErrorFields {
  if (!(err instanceof Error)) return { message: String(err), name: 'Error' }
  const fields: ErrorFields = { message: err.message, name: err.name }
  for (const [k, v] of Object.entries(err)) {
    if (v === undefined || typeof v === 'function' || (typeof v === 'object' && v !== null)) continue
    fields[k] = v
  }
  return fields
}

/** The error of the other thread, as the store's callers test it (err.code === '23505', err.constraint...). */
export function errorOf (fields: ErrorFields): Error {
  const err = new Error(fields.message)
  Object.assign(err, fields)
  return err
}
