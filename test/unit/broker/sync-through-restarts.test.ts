// `fleet broker sync` and a broker restarting under it (bin/broker.ts): deploy/mosquitto/start.sh restarts Mosquitto
// for every new trust bundle, so a sync may lose its connection midway. It runs again once the broker is back; a
// broker never reached (a wrong MQTT_URL, a broker down) still fails the command at once.
import { describe, expect, it } from 'vitest'
import { BrokerUnavailableError } from '../../../ingest/broker-sync/dynsec-client.js'
import type { SyncCounts } from '../../../ingest/broker-sync/dynsec-plan.js'
import { fullSyncThroughRestarts } from '../../../bin/broker.js'

const counts: SyncCounts = { clients: { created: 1, updated: 0, deleted: 0, unchanged: 0, skipped: 0 }, roles: { created: 1, updated: 0, deleted: 0, unchanged: 0 } }

/** A sync whose attempts fail with these errors, in order, then succeed; counts its attempts. */
function syncFailing (...errors: Error[]): { fullSync: () => Promise<SyncCounts>, attempts: () => number } {
  let n = 0
  return {
    attempts: () => n,
    async fullSync () {
      const err = errors[n++]
      if (err !== undefined) throw err
      return counts
    }
  }
}

describe('fleet broker sync while the broker restarts', () => {
  it('runs again once the broker is back: lost mid-sync, then not connected while it restarts', async () => {
    const sync = syncFailing(
      new BrokerUnavailableError('connection closed before dynamic security answered', true),
      new BrokerUnavailableError('not connected'),
      new BrokerUnavailableError('not connected', true)
    )
    expect(await fullSyncThroughRestarts(sync, 10_000, 1)).toBe(counts)
    expect(sync.attempts()).toBe(4)
  })

  it('fails at once for a broker never reached, and for any other error', async () => {
    const away = syncFailing(new BrokerUnavailableError('connect ECONNREFUSED 127.0.0.1:1'))
    await expect(fullSyncThroughRestarts(away, 10_000, 1)).rejects.toThrow(/ECONNREFUSED/)
    expect(away.attempts()).toBe(1)
    const refused = syncFailing(new Error('dynamic security refused createClient'))
    await expect(fullSyncThroughRestarts(refused, 10_000, 1)).rejects.toThrow(/refused/)
    expect(refused.attempts()).toBe(1)
  })

  it('gives up when the broker is not back within the wait', async () => {
    const lost = new BrokerUnavailableError('not connected', true)
    const sync = { fullSync: async (): Promise<SyncCounts> => { throw lost } }
    await expect(fullSyncThroughRestarts(sync, 0, 1)).rejects.toBe(lost)
  })
})
