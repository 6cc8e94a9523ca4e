// A bounded memory of answers by key, forgetting the oldest first: what a TLS listener learns of a certificate (its
// names, which CA signed it) holds for as long as the certificate's bytes do, and every reconnection of a fleet of
// devices presents the same few thousand certificates again.

export interface Recent<V> {
  /** The answer remembered for `key`, or `compute()`'s, remembered. */
  get (key: string, compute: () => V): V
  size (): number
}

export function recent<V> (limit: number): Recent<V> {
  const answers = new Map<string, V>()
  return {
    get (key, compute) {
      if (answers.has(key)) return answers.get(key) as V
      const value = compute()
      answers.set(key, value)
      // A Map iterates in insertion order: its first key is the oldest.
      if (answers.size > limit) answers.delete(answers.keys().next().value as string)
      return value
    },
    size: () => answers.size
  }
}
