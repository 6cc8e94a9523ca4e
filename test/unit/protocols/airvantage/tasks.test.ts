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

  it('writes a software task as swinstall {type, revision, url} (the first binary\'s link) or swuninstall / swstart / swstop {type, revision}', () => {
    const application = { type: 'greenhouse', revision: '2.0' }
    const binaries = [{ url: 'http://h/device/packages/t1' }, { url: 'http://h/device/packages/t2' }]
    const text = encodeTasks([
      { uid: 'i', timestamp: TS, software: { action: 'install', application, binaries } },
      { uid: 'u', timestamp: TS, software: { action: 'uninstall', application, binaries: [] } },
      { uid: 's', timestamp: TS, software: { action: 'start', application, binaries: [] } },
      { uid: 'p', timestamp: TS, software: { action: 'stop', application, binaries: [] } }
    ])
    expect(text).toBe('[{"uid":"i","timestamp":1700000000000,"swinstall":{"type":"greenhouse","revision":"2.0","url":"http://h/device/packages/t1"}},' +
      '{"uid":"u","timestamp":1700000000000,"swuninstall":{"type":"greenhouse","revision":"2.0"}},' +
      '{"uid":"s","timestamp":1700000000000,"swstart":{"type":"greenhouse","revision":"2.0"}},' +
      '{"uid":"p","timestamp":1700000000000,"swstop":{"type":"greenhouse","revision":"2.0"}}]')
    expect(decodeTasks(text)).toEqual({
      ok: true,
      tasks: [
        { uid: 'i', timestamp: TS, swinstall: { ...application, url: 'http://h/device/packages/t1' } },
        { uid: 'u', timestamp: TS, swuninstall: application },
        { uid: 's', timestamp: TS, swstart: application },
        { uid: 'p', timestamp: TS, swstop: application }
      ]
    })
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
    ['task.invalid.shape', `[{"uid": "a", "timestamp": ${TS}, "swstart": {"type": "x", "revision": 2}}]`],
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
      fc.record({ ...head, command: fc.record({ id: fc.string(), params: fc.dictionary(fc.string(), scalar) }) }),
      fc.record({ ...head, swinstall: fc.record({ type: fc.string(), revision: fc.string(), url: fc.string() }) }),
      fc.record({ ...head, swstop: fc.record({ type: fc.string(), revision: fc.string() }) }))
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
