import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeTasks, encodeTasks, type Task } from '../../../../protocols/airvantage/index.js'

const TS = 1_700_000_000_000

describe('encodeTasks', () => {
  it('writes the three task kinds of conventions.md §Devices, uid and timestamp first', () => {
    const text = encodeTasks([
      { uid: 'r1', timestamp: TS, read: ['machine.temperature', '_RSSI'] },
      { uid: 'w1', timestamp: TS, write: [{ 'machine.threshold': 25 }, { 'machine.mode': 'eco' }] },
      { uid: 'c1', timestamp: TS, command: { id: 'machine.reboot', params: { delay: 5, force: true } } }
    ])
    expect(text).toBe('[{"uid":"r1","timestamp":1700000000000,"read":["machine.temperature","_RSSI"]},' +
      '{"uid":"w1","timestamp":1700000000000,"write":[{"machine.threshold":25},{"machine.mode":"eco"}]},' +
      '{"uid":"c1","timestamp":1700000000000,"command":{"id":"machine.reboot","params":{"delay":5,"force":true}}}]')
  })

  it('writes empty params when a command has none, and drops properties that are not part of a task', () => {
    const task = { uid: 'c2', timestamp: TS, command: { id: 'machine.reset' }, systemUid: 'internal' } as Task
    expect(JSON.parse(encodeTasks([task]))).toEqual([{ uid: 'c2', timestamp: TS, command: { id: 'machine.reset', params: {} } }])
  })

  it('writes an empty list as []', () => {
    expect(encodeTasks([])).toBe('[]')
  })
})

describe('decodeTasks', () => {
  it.each<[string, string]>([
    ['payload.empty', ''],
    ['payload.invalid.json', '[{'],
    ['task.invalid.shape', '{"uid": "a"}'],
    ['task.invalid.shape', '[1]'],
    ['task.invalid.shape', `[{"uid": "a", "timestamp": ${TS}}]`],
    ['task.invalid.shape', `[{"uid": "a", "timestamp": ${TS}, "swinstall": {"url": "x"}}]`],
    ['task.invalid.shape', `[{"uid": "a", "timestamp": ${TS}, "write": [{"a": {"b": 1}}]}]`],
    ['task.invalid.uid', `[{"uid": 1, "timestamp": ${TS}, "read": []}]`],
    ['task.invalid.timestamp', '[{"uid": "a", "timestamp": "now", "read": []}]']
  ])('%s: %#', (reason, input) => {
    expect(decodeTasks(input)).toEqual({ ok: false, reason })
  })

  it('gives back encoded tasks', () => {
    const head = { uid: fc.string({ minLength: 1 }), timestamp: fc.integer({ min: 0, max: 1e14 }) }
    const scalar = fc.oneof(fc.integer(), fc.string(), fc.boolean(), fc.constant(null))
    const task: fc.Arbitrary<Task> = fc.oneof(
      fc.record({ ...head, read: fc.array(fc.string()) }),
      fc.record({ ...head, write: fc.array(fc.dictionary(fc.string(), scalar, { minKeys: 1, maxKeys: 1 })) }),
      fc.record({ ...head, command: fc.record({ id: fc.string(), params: fc.dictionary(fc.string(), scalar) }) }))
    fc.assert(fc.property(fc.array(task, { maxLength: 5 }), (tasks) => {
      expect(decodeTasks(encodeTasks(tasks))).toEqual({ ok: true, tasks })
    }), { numRuns: 200 })
  })

  it('never throws on arbitrary bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 256 }), (b) => {
      expect(typeof decodeTasks(Buffer.from(b)).ok).toBe('boolean')
    }), { numRuns: 300 })
  })
})
