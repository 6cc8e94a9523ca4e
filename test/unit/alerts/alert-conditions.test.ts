// The alert evaluator's operators and attributes (core/domain/alert-conditions.ts, alert-operators.ts), one row a
// case: each operator true, false and on a missing value; the number/string/boolean coercions; lists; the attributes
// an evaluation reports; NO_COMMUNICATION_FOR's edges; the data ids a rule is found by; the alert transitions.
import { describe, expect, it } from 'vitest'
import { dataIdsOf, evaluateRule, needsPeriodicCheck, transition } from '../../../core/domain/alert-conditions.js'
import type { AlertCondition } from '../../../core/domain/alert-rule.js'
import { NOW, attr, cond, factsOf, num, str, strs, type FactsInput } from '../../helpers/alert-facts.js'

const T = 'DATA.temp'
type Row = [string, AlertCondition, FactsInput, boolean]

const rows: Row[] = [
  ['EQUALS number', cond('EQUALS', attr(T), num(20)), { data: { temp: 20 } }, true],
  ['EQUALS number, other', cond('EQUALS', attr(T), num(20)), { data: { temp: 21 } }, false],
  ['EQUALS missing data', cond('EQUALS', attr(T), num(20)), {}, false],
  ['EQUALS null data', cond('EQUALS', attr(T), num(20)), { data: { temp: null } }, false],
  ['EQUALS NaN data is missing', cond('EQUALS', attr(T), str('NaN')), { data: { temp: Number.NaN } }, false],
  ['EQUALS valueStr "12" against 12.0', cond('EQUALS', attr(T), str('12')), { data: { temp: 12.0 } }, true],
  ['EQUALS valueStr "1e3" against 1000', cond('EQUALS', attr(T), str('1e3')), { data: { temp: 1000 } }, true],
  ['EQUALS string data "12.50" against 12.5', cond('EQUALS', attr(T), num(12.5)), { data: { temp: '12.50' } }, true],
  ['EQUALS valueStr "0x10" is no number', cond('EQUALS', attr(T), str('0x10')), { data: { temp: 16 } }, false],
  ['EQUALS "true" against boolean true', cond('EQUALS', attr('DATA.on'), str('true')), { data: { on: true } }, true],
  ['EQUALS "TRUE" against boolean true', cond('EQUALS', attr('DATA.on'), str('TRUE')), { data: { on: true } }, true],
  ['EQUALS "false" against boolean true', cond('EQUALS', attr('DATA.on'), str('false')), { data: { on: true } }, false],
  ['EQUALS "false" against boolean false', cond('EQUALS', attr('DATA.on'), str('false')), { data: { on: false } }, true],
  ['EQUALS 1 against boolean true', cond('EQUALS', attr('DATA.on'), num(1)), { data: { on: true } }, false],
  ['EQUALS strings exactly', cond('EQUALS', attr('DATA.mode'), str('eco')), { data: { mode: 'eco' } }, true],
  ['EQUALS strings, case counts', cond('EQUALS', attr('DATA.mode'), str('ECO')), { data: { mode: 'eco' } }, false],
  ['EQUALS string "true" to "TRUE"', cond('EQUALS', attr('DATA.mode'), str('TRUE')), { data: { mode: 'true' } }, false],
  ['EQUALS value first', cond('EQUALS', num(20), attr(T)), { data: { temp: 20 } }, true],
  ['NOT_EQUALS', cond('NOT_EQUALS', attr(T), num(20)), { data: { temp: 21 } }, true],
  ['NOT_EQUALS equal', cond('NOT_EQUALS', attr(T), str('20')), { data: { temp: 20 } }, false],
  ['NOT_EQUALS missing holds nothing', cond('NOT_EQUALS', attr(T), num(20)), {}, false],
  ['GT', cond('GT', attr(T), num(20)), { data: { temp: 20.5 } }, true],
  ['GT equal', cond('GT', attr(T), num(20)), { data: { temp: 20 } }, false],
  ['GT missing', cond('GT', attr(T), num(20)), {}, false],
  ['GT on a numeric string', cond('GT', attr(T), str('9')), { data: { temp: '10' } }, true],
  ['GT on strings is not ordered', cond('GT', attr('DATA.mode'), str('a')), { data: { mode: 'b' } }, false],
  ['GT on a boolean', cond('GT', attr('DATA.on'), num(0)), { data: { on: true } }, false],
  ['GTE equal', cond('GTE', attr(T), num(20)), { data: { temp: 20 } }, true],
  ['GTE below', cond('GTE', attr(T), num(20)), { data: { temp: 19.99 } }, false],
  ['LT', cond('LT', attr(T), num(0)), { data: { temp: -3 } }, true],
  ['LT above', cond('LT', attr(T), num(0)), { data: { temp: 3 } }, false],
  ['LTE equal', cond('LTE', attr(T), num(-3)), { data: { temp: -3 } }, true],
  ['LTE above', cond('LTE', attr(T), num(-3)), { data: { temp: -2 } }, false],
  ['LT value first: 5 LT temp', cond('LT', num(5), attr(T)), { data: { temp: 6 } }, true],
  ['IN', cond('IN', attr('DATA.mode'), strs('eco', 'boost')), { data: { mode: 'boost' } }, true],
  ['IN not among', cond('IN', attr('DATA.mode'), strs('eco', 'boost')), { data: { mode: 'off' } }, false],
  ['IN numeric', cond('IN', attr(T), strs('1', '2.0')), { data: { temp: 2 } }, true],
  ['IN missing', cond('IN', attr('DATA.mode'), strs('eco')), {}, false],
  ['IN empty list', cond('IN', attr('DATA.mode'), strs()), { data: { mode: 'eco' } }, false],
  ['CONTAINS substring', cond('CONTAINS', attr('DATA.msg'), str('fault')), { data: { msg: 'pump fault 3' } }, true],
  ['CONTAINS no substring', cond('CONTAINS', attr('DATA.msg'), str('Fault')), { data: { msg: 'pump fault' } }, false],
  ['CONTAINS a number as text', cond('CONTAINS', attr('DATA.msg'), num(3)), { data: { msg: 'code 3' } }, true],
  ['CONTAINS on a number', cond('CONTAINS', attr(T), str('2')), { data: { temp: 123 } }, false],
  ['CONTAINS missing', cond('CONTAINS', attr('DATA.msg'), str('a')), {}, false],
  ['unknown attribute', cond('EQUALS', attr('system.colour'), str('red')), {}, false],
  ['DATA. without an id', cond('EQUALS', attr('DATA.'), str('x')), { data: { '': 'x' } }, false],
  ['one operand', cond('EQUALS', attr(T)), { data: { temp: 1 } }, false],
  ['three operands', cond('EQUALS', attr(T), num(1), num(1)), { data: { temp: 1 } }, false],
  ['an empty operand', cond('EQUALS', attr(T), {} as never), { data: { temp: 1 } }, false]
]

const systemRows: Row[] = [
  ['system.id', cond('EQUALS', attr('system.id'), str('sys-1')), {}, true],
  ['system.name', cond('CONTAINS', attr('system.name'), str('Pump')), {}, true],
  ['system.commStatus', cond('IN', attr('system.commStatus'), strs('WARNING', 'ERROR')), {}, false],
  ['system.commStatus ERROR', cond('EQUALS', attr('system.commStatus'), str('ERROR')), { system: { commStatus: 'ERROR' } }, true],
  ['system.lifeCycleState', cond('NOT_EQUALS', attr('system.lifeCycleState'), str('INVENTORY')), {}, true],
  ['system.lastCommDate GT', cond('GT', attr('system.lastCommDate'), num(NOW - 120_000)), {}, true],
  ['system.lastCommDate null', cond('LT', attr('system.lastCommDate'), num(NOW)), { system: { lastCommDate: null } }, false],
  ['labels EQUALS member', cond('EQUALS', attr('system.labels'), str('pilot')), {}, true],
  ['labels EQUALS non-member', cond('EQUALS', attr('system.labels'), str('south')), {}, false],
  ['labels EQUALS list on the right', cond('EQUALS', str('north'), attr('system.labels')), {}, true],
  ['labels NOT_EQUALS non-member', cond('NOT_EQUALS', attr('system.labels'), str('south')), {}, true],
  ['labels NOT_EQUALS member', cond('NOT_EQUALS', attr('system.labels'), str('pilot')), {}, false],
  ['no labels NOT_EQUALS', cond('NOT_EQUALS', attr('system.labels'), str('pilot')), { system: { labels: [] } }, true],
  ['no labels EQUALS', cond('EQUALS', attr('system.labels'), str('pilot')), { system: { labels: [] } }, false],
  ['labels CONTAINS element', cond('CONTAINS', attr('system.labels'), str('north')), {}, true],
  ['labels CONTAINS part of one', cond('CONTAINS', attr('system.labels'), str('nor')), {}, false],
  ['labels IN any', cond('IN', attr('system.labels'), strs('south', 'north')), {}, true],
  ['labels IN none', cond('IN', attr('system.labels'), strs('south', 'east')), {}, false],
  ['labels EQUALS a list', cond('EQUALS', attr('system.labels'), strs('pilot', 'north')), {}, false],
  ['comm.protocol CONTAINS', cond('CONTAINS', attr('system.comm.protocol'), str('MQTT')), {}, true],
  ['comm.protocol EQUALS other', cond('EQUALS', attr('system.comm.protocol'), str('REST')), {}, false],
  ['comm.protocol IN', cond('IN', attr('system.comm.protocol'), strs('REST', 'MQTT')), {}, true]
]

const nocomm = (minutes: number, lastCommDate: number | null): FactsInput => ({ system: { lastCommDate }, data: { temp: minutes } })
const silenceRows: Row[] = [
  ['silent longer', cond('NO_COMMUNICATION_FOR', num(30)), nocomm(30, NOW - 30 * 60_000 - 1), true],
  ['silent exactly N minutes: not yet', cond('NO_COMMUNICATION_FOR', num(30)), nocomm(30, NOW - 30 * 60_000), false],
  ['silent less', cond('NO_COMMUNICATION_FOR', num(30)), nocomm(30, NOW - 60_000), false],
  ['never communicated', cond('NO_COMMUNICATION_FOR', num(30)), nocomm(30, null), true],
  ['0 minutes, heard just before', cond('NO_COMMUNICATION_FOR', num(0)), nocomm(0, NOW - 1), true],
  ['0 minutes, heard now', cond('NO_COMMUNICATION_FOR', num(0)), nocomm(0, NOW), false],
  ['heard in the future', cond('NO_COMMUNICATION_FOR', num(1)), nocomm(1, NOW + 600_000), false],
  ['minutes as valueStr', cond('NO_COMMUNICATION_FOR', str('2')), nocomm(2, NOW - 3 * 60_000), true],
  ['negative minutes', cond('NO_COMMUNICATION_FOR', num(-5)), nocomm(-5, null), false],
  ['no minutes', cond('NO_COMMUNICATION_FOR', attr('system.lastCommDate')), nocomm(0, null), false],
  ['ignores data', cond('NO_COMMUNICATION_FOR', attr(T), num(30)), nocomm(30, NOW - 31 * 60_000), true]
]

describe('evaluateRule, one condition', () => {
  it.each([...rows, ...systemRows, ...silenceRows])('%s', (_name, condition, input, expected) => {
    expect(evaluateRule([condition], factsOf(input)).holds).toBe(expected)
  })
})

describe('evaluateRule, the rule and its attributes', () => {
  const warm = cond('GT', attr(T), num(20))
  const pilot = cond('EQUALS', attr('system.labels'), str('pilot'))

  it('holds when every condition holds (AND)', () => {
    expect(evaluateRule([warm, pilot], factsOf({ data: { temp: 25 } })).holds).toBe(true)
    expect(evaluateRule([warm, pilot], factsOf({ data: { temp: 15 } })).holds).toBe(false)
    expect(evaluateRule([warm, pilot], factsOf({ data: { temp: 25 }, system: { labels: [] } })).holds).toBe(false)
  })

  it('holds nothing without conditions', () => {
    expect(evaluateRule([], factsOf()).holds).toBe(false)
  })

  it('lists the values read, each attribute once, numbers as valueNum and the rest as valueStr', () => {
    const conditions = [warm, pilot, cond('LT', attr(T), num(30)), cond('EQUALS', attr('DATA.on'), str('true')),
      cond('NO_COMMUNICATION_FOR', num(0))]
    const { holds, attributes } = evaluateRule(conditions, factsOf({ data: { temp: 25, on: true } }))
    expect(holds).toBe(true)
    expect(attributes).toEqual([
      { id: { name: T }, value: { valueNum: 25 } },
      { id: { name: 'system.labels' }, value: { valueStr: 'pilot,north' } },
      { id: { name: 'DATA.on' }, value: { valueStr: 'true' } },
      { id: { name: 'system.lastCommDate' }, value: { valueNum: NOW - 60_000 } }
    ])
  })

  it('reads every condition even after one fails, and leaves out missing values', () => {
    const { holds, attributes } = evaluateRule([cond('EQUALS', attr('DATA.mode'), str('x')), warm], factsOf({ data: { temp: 25 } }))
    expect(holds).toBe(false)
    expect(attributes).toEqual([{ id: { name: T }, value: { valueNum: 25 } }])
  })
})

describe('what a rule reads', () => {
  it('dataIdsOf: the DATA ids, once each, with the position ids for DATA._LON_LAT', () => {
    expect(dataIdsOf([cond('GT', attr(T), num(1)), cond('LT', num(9), attr(T)), cond('EQUALS', attr('system.name'), str('a'))]))
      .toEqual(['temp'])
    expect(dataIdsOf([cond('GEO_CONTAINS', attr('DATA._LON_LAT'), str('POLYGON((0 0,1 0,1 1,0 0))'))]))
      .toEqual(['_LON_LAT', '_LATITUDE', '_LONGITUDE'])
    expect(dataIdsOf([cond('NO_COMMUNICATION_FOR', num(5))])).toEqual([])
  })

  it('needsPeriodicCheck: silence, commStatus and lastCommDate change with no point', () => {
    expect(needsPeriodicCheck([cond('NO_COMMUNICATION_FOR', num(5))])).toBe(true)
    expect(needsPeriodicCheck([cond('EQUALS', attr('system.commStatus'), str('ERROR'))])).toBe(true)
    expect(needsPeriodicCheck([cond('GT', attr(T), num(1)), cond('LT', attr('system.lastCommDate'), num(1))])).toBe(true)
    expect(needsPeriodicCheck([cond('GT', attr(T), num(1)), cond('EQUALS', attr('system.labels'), str('a'))])).toBe(false)
  })
})

describe('transition', () => {
  it.each([
    [undefined, true, true, 'open'], [false, true, true, 'open'], [true, true, true, 'none'],
    [true, false, true, 'close'], [false, false, true, 'none'], [undefined, false, true, 'none'],
    [undefined, true, false, 'open'], [false, true, false, 'open'], [true, true, false, 'none'],
    [true, false, false, 'none'], [false, false, false, 'none'], [undefined, false, false, 'none']
  ] as const)('previous %s, now %s, stateful %s: %s', (previous, now, stateful, expected) => {
    expect(transition(previous, now, stateful)).toBe(expected)
  })
})
