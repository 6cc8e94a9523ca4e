// The live stream's client messages (core/services/stream/commands.ts; docs/stream.md): what parses, what is
// refused with which of the API's codes, and that nothing else is ever thrown, whatever arrives.
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { parseCommand, refOf } from '../../../core/services/stream/commands.js'
import { isFleetError } from '../../../core/errors.js'

function refusal (raw: string): { code: string, params: readonly string[] } {
  try {
    parseCommand(raw)
  } catch (err) {
    if (isFleetError(err)) return { code: err.code, params: err.params }
    throw err
  }
  throw new Error(`accepted: ${raw}`)
}

const json = (v: unknown): string => JSON.stringify(v)

describe('live stream commands', () => {
  it('reads the three ways to follow systems, with data ids, and the two ways to follow operations', () => {
    expect(parseCommand(json({ action: 'subscribe', ref: 'a', systems: { uids: ['u1', 'u2', 'u1'] }, dataIds: ['temp'] })))
      .toEqual({ action: 'subscribe', ref: 'a', systems: { by: 'uids', uids: ['u1', 'u2'] }, dataIds: ['temp'] })
    expect(parseCommand(json({ action: 'subscribe', systems: { label: 'north' } })))
      .toEqual({ action: 'subscribe', ref: null, systems: { by: 'label', label: 'north' }, dataIds: null })
    expect(parseCommand(json({ action: 'subscribe', systems: { criteria: { commStatus: ['OK', 'ERROR'], gateway: 'type:FX30', lastCommAfter: 1700000000000 } } })))
      .toMatchObject({ systems: { by: 'criteria', criteria: { commStatus: ['OK', 'ERROR'], gateway: 'type:FX30', lastCommAfter: 1700000000000 } } })
    expect(parseCommand(json({ action: 'subscribe', systems: { criteria: {} } }))).toMatchObject({ systems: { by: 'criteria', criteria: {} } })
    expect(parseCommand(json({ action: 'subscribe', operations: { all: true } }))).toEqual({ action: 'subscribe', ref: null, operations: { by: 'all' } })
    expect(parseCommand(json({ action: 'subscribe', operations: { uids: ['o1'] } }))).toEqual({ action: 'subscribe', ref: null, operations: { by: 'uids', uids: ['o1'] } })
    expect(parseCommand(json({ action: 'unsubscribe', ref: 'x', subscription: 's1' }))).toEqual({ action: 'unsubscribe', ref: 'x', subscription: 's1' })
  })

  it.each([
    ['not JSON', '{"action":', 'request.invalid'],
    ['not an object', '[1,2]', 'request.invalid'],
    ['an unknown action', json({ action: 'publish' }), 'request.invalid'],
    ['neither systems nor operations', json({ action: 'subscribe' }), 'selection.invalid'],
    ['both systems and operations', json({ action: 'subscribe', systems: { label: 'a' }, operations: { all: true } }), 'selection.invalid'],
    ['two ways to name systems', json({ action: 'subscribe', systems: { label: 'a', uids: ['u'] } }), 'selection.invalid'],
    ['no way to name systems', json({ action: 'subscribe', systems: {} }), 'selection.invalid'],
    ['an empty uid list', json({ action: 'subscribe', systems: { uids: [] } }), 'selection.empty'],
    ['101 distinct uids', json({ action: 'subscribe', systems: { uids: Array.from({ length: 101 }, (_, i) => `u${i}`) } }), 'selection.max.uid.reached'],
    ['a uid that is not a string', json({ action: 'subscribe', systems: { uids: [1] } }), 'request.invalid'],
    ['a NUL in a label', json({ action: 'subscribe', systems: { label: 'a\u0000b' } }), 'request.invalid'],
    ['an unknown criteria key', json({ action: 'subscribe', systems: { criteria: { colour: 'red' } } }), 'request.invalid'],
    ['company inside the criteria', json({ action: 'subscribe', systems: { criteria: { company: 'c' } } }), 'request.invalid'],
    ['an unknown commStatus', json({ action: 'subscribe', systems: { criteria: { commStatus: 'GREEN' } } }), 'unknown.enum.value'],
    ['a timestamp that is text', json({ action: 'subscribe', systems: { criteria: { lastCommAfter: 'yesterday' } } }), 'request.invalid'],
    ['a timestamp beyond 8.64e18', '{"action":"subscribe","systems":{"criteria":{"creationAfter":1e309}}}', 'request.invalid'],
    ['dataIds that are not a list', json({ action: 'subscribe', systems: { label: 'a' }, dataIds: 'temp' }), 'request.invalid'],
    ['101 data ids', json({ action: 'subscribe', systems: { label: 'a' }, dataIds: Array.from({ length: 101 }, (_, i) => `d${i}`) }), 'request.invalid'],
    ['operations all: false', json({ action: 'subscribe', operations: { all: false } }), 'request.invalid'],
    ['operations uids and all', json({ action: 'subscribe', operations: { all: true, uids: ['o'] } }), 'selection.invalid'],
    ['an unknown key', json({ action: 'subscribe', systems: { label: 'a' }, company: 'other' }), 'request.invalid'],
    ['unsubscribe without its subscription', json({ action: 'unsubscribe' }), 'request.invalid'],
    ['a ref that is not text', json({ action: 'unsubscribe', ref: 5, subscription: 's1' }), 'request.invalid']
  ])('refuses %s', (_what, raw, code) => {
    expect(refusal(raw).code).toBe(code)
  })

  it('names where the fault is and how to fix it', () => {
    expect(refusal(json({ action: 'subscribe', systems: { criteria: { gateway: 'colour:red' } } })).code).toBe('request.invalid')
    expect(refusal(json({ action: 'subscribe', systems: { uids: ['a', 7] } })).params).toEqual(['systems.uids[1]', 'must be a non-empty string'])
  })

  it('echoes a usable ref only', () => {
    expect(refOf(json({ ref: 'r1', action: 'nope' }))).toBe('r1')
    expect(refOf(json({ ref: 5 }))).toBeNull()
    expect(refOf('not json')).toBeNull()
  })

  it('answers a command or a FleetError for any text, never another exception (fuzz)', () => {
    const anyJson = fc.jsonValue({ maxDepth: 4 })
    const shaped = fc.record({
      action: fc.oneof(fc.constant('subscribe'), fc.constant('unsubscribe'), fc.string()),
      ref: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
      systems: fc.oneof(anyJson, fc.record({ uids: fc.array(fc.oneof(fc.string(), fc.integer())) }), fc.record({ label: fc.string() }),
        fc.record({ criteria: fc.dictionary(fc.constantFrom('labels', 'commStatus', 'gateway', 'lastCommAfter', 'name', '__proto__', 'constructor', 'x'), anyJson) })),
      operations: fc.oneof(anyJson, fc.record({ all: anyJson }), fc.record({ uids: fc.array(anyJson) })),
      dataIds: anyJson,
      subscription: anyJson
    }, { requiredKeys: [] })
    const texts = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), anyJson.map((v) => JSON.stringify(v)), shaped.map((v) => JSON.stringify(v)))
    fc.assert(fc.property(texts, (raw) => {
      try {
        parseCommand(raw)
      } catch (err) {
        if (!isFleetError(err)) throw err
      }
      refOf(raw)
    }), { numRuns: 3000 })
  })
})
