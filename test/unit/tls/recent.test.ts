// The bounded memory of certificate answers (ingest/tls/recent.ts): computed once per key, the oldest forgotten first.
import { describe, expect, it } from 'vitest'
import { recent } from '../../../ingest/tls/recent.js'

describe('recent', () => {
  it('computes an answer once per key and keeps at most `limit`, forgetting the oldest', () => {
    const r = recent<number>(2)
    let computed = 0
    const get = (k: string): number => r.get(k, () => { computed++; return k.length })
    expect([get('a'), get('bb'), get('a')]).toEqual([1, 2, 1])
    expect(computed).toBe(2)
    get('ccc') // 'a' is the oldest: forgotten
    expect(r.size()).toBe(2)
    get('bb')
    expect(computed).toBe(3)
    get('a')
    expect(computed).toBe(4)
  })

  it('remembers a falsy answer too', () => {
    const r = recent<boolean | null>(10)
    let computed = 0
    for (let i = 0; i < 3; i++) r.get('k', () => { computed++; return i !== 0 })
    expect(r.get('k', () => true)).toBe(false)
    expect(computed).toBe(1)
  })
})
