// What one type of bulk operation is (an operation type is one file plus one line in
// core/operations/kinds/index.ts): the request that creates it, how it is validated and created, and how each of its
// tasks runs. The API registers one route per kind and the engine takes its handler from the same list.
import type { Static, TSchema } from 'typebox'
import type { OperationType } from '../domain/operation.js'
import type { OperationHandler } from './handler.js'
import type { Caller, OperationDeps } from './common.js'
import type { SoftwareDeps } from './device/software-handler.js'

/** What a kind's handler may need of the service beyond the store, given once per engine (./service.ts). */
export interface HandlerDeps {
  /** The download links of install tasks (core/services/packages); absent, their tasks cannot run. */
  software?: SoftwareDeps
  /**
   * Removes the stored binaries of these keys that no application references, once the caller's transaction is over,
   * without waiting (a release that lost to another of its type and revision); absent, they stay.
   */
  dropUnreferenced?: (keys: readonly string[]) => void
}

export interface OperationRoute<S extends TSchema> {
  /** POST path under /api/v1; `:uid` stands for a system uid (export of one system's history). */
  path: string
  summary: string
  description: string
  body: S
  /**
   * A CSV operation (core/operations/csv/): the request is read as multipart (and, for `multipart-or-raw`, as a raw
   * CSV body too) into a CsvUpload, not validated against `body`, which only documents it. `zip`: the raw body is
   * a package, read by the applications' routes (api/routes/applications-release.routes.ts).
   */
  upload?: 'multipart' | 'multipart-or-raw' | 'zip'
}

export interface OperationKind<S extends TSchema = TSchema> {
  type: OperationType
  route: OperationRoute<S>
  /**
   * Validates the request (every synchronous rule of its docs/api.md row: 400 with the code, nothing created) and
   * creates the operation. `systemUid` is the `:uid` of the path, when it has one.
   */
  create: (deps: OperationDeps, caller: Caller, body: Static<S>, systemUid?: string) => Promise<{ operation: string }>
  handler: OperationHandler
  /** Optional: the handler given what it needs of the service; the engine then runs this one instead of `handler`. */
  bind?: (deps: HandlerDeps) => OperationHandler
}

/** Declares a kind, keeping its body's static type tied to its schema. */
export const operationKind = <S extends TSchema>(kind: OperationKind<S>): OperationKind<S> => kind
