// Pure parts of the job queue: the error contract, the backoff, BullMQ job id escaping.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { FleetError } from '../../../core/errors.js'
import { backoffDelay, isPermanentJobError, type JobQueue } from '../../../core/ports/queue.js'
import { fromBullId, toBullId } from '../../../storage/queue/bullmq-queue.js'

describe('job error contract (shared/style.md §2.7)', () => {
  it('treats a FleetError as permanent and anything else as transient', () => {
    expect(isPermanentJobError(new FleetError('operation.on.system.missing.comm.identifiers'))).toBe(true)
    expect(isPermanentJobError(new Error('connection reset'))).toBe(false)
    expect(isPermanentJobError('a string')).toBe(false)
  })
})

describe('backoffDelay', () => {
  it('doubles from the base after each failed attempt', () => {
    expect([1, 2, 3, 4].map((a) => backoffDelay(a, 1000))).toEqual([1000, 2000, 4000, 8000])
  })
})

describe('BullMQ job ids', () => {
  it('escapes any id into one BullMQ accepts (no ":", not an integer) and back', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), (id) => {
      const bull = toBullId(id)
      expect(bull).not.toContain(':')
      expect(`${parseInt(bull, 10)}`).not.toBe(bull)
      expect(fromBullId(bull)).toBe(id)
    }))
    expect(fromBullId(toBullId('operation.task:op%3A:12'))).toBe('operation.task:op%3A:12')
  })

  it('keeps distinct ids distinct', () => {
    fc.assert(fc.property(fc.string(), fc.string(), (a, b) => {
      fc.pre(a !== b)
      expect(toBullId(a)).not.toBe(toBullId(b))
    }))
  })
})

describe('JobQueue typing (checked by tsc --noEmit)', () => {
  interface Payloads { 'operation.task': { operationUid: string, systemUid: string }, 'operation.callback': string }
  // Never called: the @ts-expect-error lines fail the type check if the port stops rejecting them.
  async function typed (q: JobQueue<Payloads>): Promise<void> {
    await q.enqueue('operation.task', { operationUid: 'o', systemUid: 's' }, { jobId: 'operation.task:o:s' })
    // @ts-expect-error a payload of another job
    await q.enqueue('operation.task', 'url')
    // @ts-expect-error an unknown job name
    await q.enqueue('operation.unknown', {})
    await q.work({
      'operation.task': async (p) => { p.systemUid.toUpperCase() },
      'operation.callback': async (p) => { p.toUpperCase() }
    }, { concurrency: 1, onFailed: async (f) => { if (f.name === 'operation.callback') f.payload.toUpperCase() } })
    // @ts-expect-error a handler is missing
    await q.work({ 'operation.callback': async () => {} }, { concurrency: 1 })
  }

  it('ties every job name to its payload type', () => {
    expect(typed).toBeTypeOf('function')
  })
})
