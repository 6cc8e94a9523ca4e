// Statements of one transaction sent together (the store runs them in the order sent): the caller waits for every
// one of them before it goes on, so that a failure never rolls the transaction back while a statement sent after
// the failed one is still waiting to run.

/** Resolves with the values once all settled; rejects with the first rejection in order, after all settled. */
export async function settledInOrder<T extends readonly unknown[]> (promises: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(promises)
  const values: unknown[] = []
  for (const s of settled) {
    if (s.status === 'rejected') throw s.reason
    values.push(s.value)
  }
  return values as unknown as T
}
