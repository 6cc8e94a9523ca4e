// core/services/ingest/derived-state.ts: the state derived from device traffic (data_last, System data,
// lastCommDate) is written in coalesced flushes. A flush whose store connection is lost keeps its batch for the
// next flush; a flush failing for any other reason drops it (the device's next message refreshes it).
import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import type { UnitOfWork } from '../../../core/ports/store.js'
import type { Repositories } from '../../../core/ports/repositories.js'
import type { DeviceMessage } from '../../../core/domain/device-message.js'
import type { LastRow } from '../../../core/ports/telemetry.js'
import { StoreUnavailableError } from '../../../core/store-errors.js'
import { createDerivedState } from '../../../core/services/ingest/derived-state.js'

/** A store whose next transactions fail with the given errors, recording the data_last rows written. */
function fakeStore (failures: Error[]) {
  const last: LastRow[] = []
  const telemetry = {
    lockSystems: async (uids: string[]) => uids.map((uid) => ({ uid, data: {}, dataTs: {} })),
    upsertLast: async (rows: LastRow[]) => { last.push(...rows) },
    updateSystems: async () => {}
  }
  const inTransaction: UnitOfWork = async (fn) => {
    const failure = failures.shift()
    if (failure !== undefined) throw failure
    return await fn({ telemetry } as unknown as Repositories)
  }
  return { inTransaction, last }
}

const message = (systemUid: string, value: number): DeviceMessage => {
  const at = 1000 + value
  const points = [{ dataId: 'machine.temperature', ts: at, value }]
  return { uid: `m-${value}`, systemUid, companyUid: 'c', protocol: 'MQTT', receivedAt: at, timestamp: at, points, nbDataPoints: 1 }
}

describe('derived state flushes', () => {
  it('a flush whose store connection is lost is written with the next flush, merged with what came meanwhile', async () => {
    const store = fakeStore([new StoreUnavailableError(new Error('Connection terminated unexpectedly'))])
    const derived = createDerivedState({ inTransaction: store.inTransaction, log: pino({ level: 'silent' }), options: { flushMs: 60_000 } })
    derived.note(message('s1', 1))
    await derived.flush()
    expect(store.last).toEqual([])
    expect(derived.pending()).toBe(1)
    derived.note(message('s2', 2))
    await derived.flush()
    expect(store.last.map((r) => [r.systemUid, r.value]).sort()).toEqual([['s1', 1], ['s2', 2]])
    expect(derived.pending()).toBe(0)
  })

  it('a flush failing for another reason is dropped', async () => {
    const store = fakeStore([new Error('deadlock detected')])
    const derived = createDerivedState({ inTransaction: store.inTransaction, log: pino({ level: 'silent' }), options: { flushMs: 60_000 } })
    derived.note(message('s1', 1))
    await derived.flush()
    expect(derived.pending()).toBe(0)
    await derived.flush()
    expect(store.last).toEqual([])
  })
})
