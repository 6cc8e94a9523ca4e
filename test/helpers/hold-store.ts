// Holding the store's device message writes, for tests of what waits for a commit (acknowledge after commit, the
// ingest buffer's bound, a connection's backpressure).
import type { Stack } from './stack.js'

/**
 * Holds the store until the answered release() is called: a transaction that locks device_messages against writes
 * (SHARE mode lets readers through, stops every INSERT). On PostgreSQL it is another connection of the pool; on
 * PGlite it holds the one connection, so the ingest write waits just the same.
 */
export async function holdStore (stack: Stack): Promise<{ release: () => Promise<void> }> {
  let locked!: () => void
  let release!: () => void
  const isLocked = new Promise<void>((resolve) => { locked = resolve })
  const gate = new Promise<void>((resolve) => { release = resolve })
  const tx = stack.db.transaction(async (q) => {
    await q.query('LOCK TABLE device_messages IN SHARE MODE')
    locked()
    await gate
  })
  await isLocked
  return { release: async () => { release(); await tx } }
}
