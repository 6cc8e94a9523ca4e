// The systems a rule is pinned to (core/domain/alert-targets.ts): what the store finds a rule by must never leave out
// a system the evaluator could answer true for (decision 0032).
import { describe, expect, it } from 'vitest'
import { pinnedSystemsOf } from '../../../core/domain/alert-targets.js'
import { evaluateRule } from '../../../core/domain/alert-conditions.js'
import type { AlertCondition } from '../../../core/domain/alert-rule.js'
import { attr, cond, factsOf, num, str, strs } from '../../helpers/alert-facts.js'

const HOT = cond('GT', attr('DATA.temp'), num(40))

describe('pinnedSystemsOf', () => {
  it('pins a rule to the systems a system.id EQUALS or IN names, in either order', () => {
    expect(pinnedSystemsOf([HOT, cond('EQUALS', attr('system.id'), str('sys-b'))])).toEqual(['sys-b'])
    expect(pinnedSystemsOf([cond('EQUALS', str('sys-b'), attr('system.id')), HOT])).toEqual(['sys-b'])
    expect(pinnedSystemsOf([cond('IN', attr('system.id'), strs('sys-c', 'sys-a', 'sys-c'))])).toEqual(['sys-a', 'sys-c'])
    expect(pinnedSystemsOf([cond('EQUALS', attr('system.id'), strs('sys-a', 'sys-b'))])).toEqual(['sys-a', 'sys-b'])
  })

  it('keeps the systems every pinning condition names (possibly none)', () => {
    expect(pinnedSystemsOf([cond('IN', attr('system.id'), strs('a1', 'b1')), cond('IN', attr('system.id'), strs('b1', 'c1'))])).toEqual(['b1'])
    expect(pinnedSystemsOf([cond('EQUALS', attr('system.id'), str('a1')), cond('EQUALS', attr('system.id'), str('b1'))])).toEqual([])
  })

  it('pins nothing without such a condition, or where the evaluator could match another uid', () => {
    expect(pinnedSystemsOf([HOT])).toBeNull()
    expect(pinnedSystemsOf([])).toBeNull()
    expect(pinnedSystemsOf([cond('NOT_EQUALS', attr('system.id'), str('a1'))])).toBeNull()
    expect(pinnedSystemsOf([cond('CONTAINS', attr('system.id'), str('a1'))])).toBeNull()
    expect(pinnedSystemsOf([cond('EQUALS', attr('system.name'), str('a1'))])).toBeNull()
    // Decimal texts compare as numbers: "1e3" equals a uid "1000".
    expect(pinnedSystemsOf([cond('EQUALS', attr('system.id'), str('1e3'))])).toBeNull()
    expect(pinnedSystemsOf([cond('EQUALS', attr('system.id'), num(1000))])).toBeNull()
    expect(pinnedSystemsOf([cond('IN', attr('system.id'), strs('a1', '12'))])).toBeNull()
    expect(pinnedSystemsOf([cond('EQUALS', attr('system.id'), attr('system.id'))])).toBeNull()
    expect(pinnedSystemsOf(null as unknown as AlertCondition[])).toBeNull()
  })

  it('never leaves out a system the rule holds for', () => {
    const rules: AlertCondition[][] = [
      [cond('EQUALS', attr('system.id'), str('sys-1'))],
      [cond('IN', strs('sys-1', 'x'), attr('system.id'))],
      [cond('EQUALS', attr('system.id'), str('1000'))],
      [cond('IN', attr('system.id'), strs('1e3'))]
    ]
    for (const uid of ['sys-1', '1000', '01000']) {
      for (const conditions of rules) {
        const pinned = pinnedSystemsOf(conditions)
        if (evaluateRule(conditions, factsOf({ system: { uid } })).holds) expect(pinned === null || pinned.includes(uid)).toBe(true)
      }
    }
  })
})
