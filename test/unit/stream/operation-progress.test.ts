// Operation progress for the live stream (core/operations/progress.ts): changes are gathered and read once per
// operation, and nothing is read while no stream listens (EventBus.listening).
import { describe, expect, it } from 'vitest'
import { pino } from 'pino'
import { createOperationProgress } from '../../../core/operations/progress.js'
import type { EventBus, FleetEvent } from '../../../core/ports/events.js'
import type { Operation } from '../../../core/domain/operation.js'

function fakes (listening: boolean) {
  const published: FleetEvent[] = []
  const reads = { find: 0, counts: 0 }
  const events: EventBus = {
    publish: (e) => { published.push(...e) },
    subscribe: async () => () => {},
    listening: () => listening,
    close: async () => {}
  }
  const operations = {
    async find (uid: string) { reads.find++; return { uid, companyUid: 'c1', type: 'SYSTEM_LABEL', state: 'IN_PROGRESS' } as Operation },
    async counts (uids: string[]) { reads.counts++; return new Map(uids.map((u) => [u, { SUCCESS: 3, PENDING: 1 }])) }
  }
  return { published, reads, progress: createOperationProgress({ operations, events, log: pino({ level: 'silent' }) }) }
}

describe('operation progress', () => {
  it('reads nothing and publishes nothing while no stream listens', async () => {
    const { published, reads, progress } = fakes(false)
    progress.changed('op1')
    await progress.flush()
    expect(reads).toEqual({ find: 0, counts: 0 })
    expect(published).toEqual([])
  })

  it('gathers the changes of an operation into one read and one event with all six counters', async () => {
    const { published, reads, progress } = fakes(true)
    for (let i = 0; i < 50; i++) progress.changed('op1')
    progress.changed('op2')
    await progress.flush()
    expect(reads).toEqual({ find: 2, counts: 1 })
    expect(published.map((e) => e.kind === 'operation' ? e.uid : '')).toEqual(['op1', 'op2'])
    expect(published[0]).toMatchObject({ kind: 'operation', company: 'c1', type: 'SYSTEM_LABEL', state: 'IN_PROGRESS' })
    expect((published[0] as { counters: unknown[] }).counters).toEqual([
      { state: 'PENDING', count: 1 }, { state: 'IN_PROGRESS', count: 0 }, { state: 'SUCCESS', count: 3 },
      { state: 'FAILURE', count: 0 }, { state: 'BEING_CANCELLED', count: 0 }, { state: 'CANCELLED', count: 0 }
    ])
  })
})
