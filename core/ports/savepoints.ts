// Savepoints: the port through which a transaction's work is undone in part.

/** Savepoints of the current transaction: one task's changes are undone without undoing its neighbours'. */
export interface Savepoints {
  /** Runs fn inside a savepoint: released when it resolves, rolled back (and the error rethrown) when it throws. */
  run<T>(fn: () => Promise<T>): Promise<T>
}
