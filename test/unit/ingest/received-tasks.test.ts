// ingest/mqtt/received-tasks.ts: which tasks a device confirmed receiving lately, bounded.
import { describe, expect, it } from 'vitest'
import { createReceivedTasks } from '../../../ingest/mqtt/received-tasks.js'

describe('received tasks', () => {
  it('answers the tasks a system confirmed, and forgets them past the window', () => {
    let t = 1_000
    const r = createReceivedTasks({ now: () => t, recentMs: 100 })
    r.add('s1', ['a', 'b'])
    t += 50
    r.add('s1', ['c'])
    expect(r.of('s1')).toEqual(['a', 'b', 'c'])
    expect(r.of('s2')).toEqual([])
    t += 60 // a and b are 110 ms old, c 60
    expect(r.of('s1')).toEqual(['c'])
    t += 50
    expect(r.of('s1')).toEqual([])
  })

  it('a task confirmed again is remembered from its latest confirmation', () => {
    let t = 0
    const r = createReceivedTasks({ now: () => t, recentMs: 100 })
    r.add('s1', ['a'])
    t = 90
    r.add('s1', ['a'])
    t = 150
    expect(r.of('s1')).toEqual(['a'])
  })

  it('forgets the least recently written systems past its bound (they are then sent their tasks again: never fewer)', () => {
    const r = createReceivedTasks({ maxSystems: 2 })
    r.add('s1', ['a'])
    r.add('s2', ['b'])
    r.add('s1', ['c'])
    r.add('s3', ['d'])
    expect(r.of('s2')).toEqual([])
    expect(r.of('s1')).toEqual(['a', 'c'])
    expect(r.of('s3')).toEqual(['d'])
  })
})
