// The pure part of the evaluation (core/services/alerts/alert-evaluation.ts): the data ids read per system, the facts a
// batch's traffic changes, and the answers written: only those that differ from the stored ones, never for a system
// of another company than the rule's.
import { describe, expect, it } from 'vitest'
import { candidatesOf, changedAnswers, dataIdsWanted, factsAt, fieldlessSystems, stateKey } from '../../../core/services/alerts/alert-evaluation.js'
import type { AlertCandidate, AlertRuleMatch, SystemFacts } from '../../../core/ports/alert-evaluation.js'
import { attr, cond, factsOf, NOW, num, str } from '../../helpers/alert-facts.js'

const HOT = cond('GT', attr('DATA.temp'), num(40))

function facts (uid: string, companyUid: string, data: Record<string, number | string>, system: Partial<SystemFacts['system']> = {}): SystemFacts {
  const f = factsOf({ data, system: { uid, ...system } })
  return { companyUid, system: f.system, data: f.data }
}

const candidate = (ruleUid: string, systemUids: string[], conditions = [HOT], companyUid = 'co'): AlertCandidate =>
  ({ ruleUid, companyUid, stateful: true, conditions, systemUids })

let n = 0
const newUid = (): string => `alert-${++n}`

describe('candidatesOf', () => {
  const match = (ruleUid: string, dataIds: string[], pinned: string[] | null = null, companyUid = 'co'): AlertRuleMatch =>
    ({ ruleUid, companyUid, stateful: true, conditions: [HOT], dataIds, pinned })
  const points = [{ systemUid: 'a', dataId: 'temp' }, { systemUid: 'b', dataId: 'volt' }, { systemUid: 'b', dataId: 'temp' }, { systemUid: 'y', dataId: 'temp' }, { systemUid: 'gone', dataId: 'temp' }]
  // As the messages' insert found them: y is another company's, gone was not found.
  const known = new Map([['a', 'co'], ['b', 'co'], ['y', 'other']])
  const systemsOf = (ms: AlertRuleMatch[]): Record<string, string[]> => Object.fromEntries(candidatesOf(ms, points, known).map((c) => [c.ruleUid, c.systemUids]))

  it('evaluates a rule for the systems of its company as the store found them that sent a data id it names', () => {
    expect(systemsOf([match('hot', ['temp']), match('volt', ['volt']), match('theirs', ['temp'], null, 'other'), match('rpm', ['rpm'])]))
      .toEqual({ hot: ['a', 'b'], volt: ['b'], theirs: ['y'] })
  })

  it('keeps a pinned rule to its systems, and leaves out a rule no system of the batch may change', () => {
    expect(systemsOf([match('pinned', ['temp'], ['b', 'y']), match('none', ['temp'], [])])).toEqual({ pinned: ['b'] })
    // Of its systems, those that sent a data id it names: a sent no volt.
    expect(systemsOf([match('volt', ['volt'], ['a', 'b', 'gone'])])).toEqual({ volt: ['b'] })
    expect(candidatesOf([match('hot', ['temp'])], points, new Map())).toEqual([])
  })
})

describe('dataIdsWanted', () => {
  it('answers, per system, the data ids of every rule found for it, each once', () => {
    const wanted = dataIdsWanted([candidate('r1', ['a', 'b']), candidate('r2', ['b'], [cond('GEO_CONTAINS', attr('DATA._LON_LAT'), str('POLYGON((0 0, 1 0, 1 1, 0 0))')), HOT])])
    expect(Object.fromEntries([...wanted].map(([k, v]) => [k, [...v].sort()]))).toEqual({ a: ['temp'], b: ['_LATITUDE', '_LONGITUDE', '_LON_LAT', 'temp'] })
  })
})

describe('fieldlessSystems', () => {
  const pinnedTo = (uid: string) => cond('EQUALS', attr('system.id'), str(uid))
  const known = new Map([['a', 'co'], ['b', 'co'], ['c', 'co']])

  it('answers the systems whose rules read no field but the uid, with their company as the batch found it', () => {
    const cs = [candidate('r1', ['a'], [pinnedTo('a'), HOT]), candidate('r2', ['b'], [HOT]), candidate('r3', ['gone'], [HOT])]
    expect(Object.fromEntries(fieldlessSystems(cs, known))).toEqual({ a: 'co', b: 'co' })
  })

  it('leaves out a system any of whose rules reads a field, a silence or a position', () => {
    const reading = [cond('EQUALS', attr('system.name'), str('x')), cond('IN', attr('system.labels'), str('x')),
      cond('NO_COMMUNICATION_FOR', num(5)), cond('GEO_CONTAINS', attr('DATA._LON_LAT'), str('POLYGON((0 0, 1 0, 1 1, 0 0))'))]
    for (const c of reading) {
      expect([...fieldlessSystems([candidate('r1', ['a', 'b'], [HOT]), candidate('r2', ['b'], [c, HOT])], known).keys()]).toEqual(['a'])
    }
  })

  it('answers none without the batch\'s companies (the periodic check reads every system)', () => {
    expect(fieldlessSystems([candidate('r1', ['a'], [HOT])], undefined).size).toBe(0)
  })
})

describe('factsAt', () => {
  it('counts the batch\'s traffic as communication: lastCommDate, commStatus OK and its protocols', () => {
    const f = facts('a', 'co', {}, { commStatus: 'ERROR', lastCommDate: 1000, commProtocols: ['REST'] })
    expect(factsAt(f, NOW, { lastComm: 5000, protocols: new Set(['MQTT']) }).system).toMatchObject({ commStatus: 'OK', lastCommDate: 5000, commProtocols: ['MQTT', 'REST'] })
    expect(factsAt(f, NOW, undefined).system).toMatchObject({ commStatus: 'ERROR', lastCommDate: 1000, commProtocols: ['REST'] })
    expect(factsAt(facts('a', 'co', {}, { lastCommDate: null }), NOW, { lastComm: 5000, protocols: new Set() }).system.lastCommDate).toBe(5000)
  })

  it('takes the position from the last _LATITUDE and _LONGITUDE points over the stored one', () => {
    const f = facts('a', 'co', { _LATITUDE: 45.5, _LONGITUDE: 'x' }, { latitude: 1, longitude: 2 })
    expect(factsAt(f, NOW, undefined).system).toMatchObject({ latitude: 45.5, longitude: 2 })
  })
})

describe('changedAnswers', () => {
  const all = new Map([['a', facts('a', 'co', { temp: 45 })], ['b', facts('b', 'co', { temp: 20 })], ['c', facts('c', 'co', {})], ['y', facts('y', 'other', { temp: 99 })]])

  it('answers each pair whose answer differs from the stored one (a first false one included), with the values when true', () => {
    const states = new Map([[stateKey('r1', 'b'), false], [stateKey('r1', 'c'), true]])
    const answers = changedAnswers({ candidates: [candidate('r1', ['a', 'b', 'c', 'gone'])], facts: all, states, now: NOW, newUid })
    expect(answers.map((x) => [x.systemUid, x.holds, x.attributes])).toEqual([
      ['a', true, [{ id: { name: 'DATA.temp' }, value: { valueNum: 45 } }]],
      ['c', false, []]])
    expect(new Set(answers.map((x) => x.alertUid)).size).toBe(2)
    expect(changedAnswers({ candidates: [candidate('r2', ['b'])], facts: all, states: new Map(), now: NOW, newUid }).map((x) => x.holds)).toEqual([false])
  })

  it('never evaluates a rule for a system of another company, and a pair once', () => {
    expect(changedAnswers({ candidates: [candidate('r1', ['y'])], facts: all, states: new Map(), now: NOW, newUid })).toEqual([])
    expect(changedAnswers({ candidates: [candidate('r1', ['a']), candidate('r1', ['a'])], facts: all, states: new Map(), now: NOW, newUid })).toHaveLength(1)
  })

  it('evaluates time at `now` and the batch\'s traffic as communication', () => {
    const silent = [cond('NO_COMMUNICATION_FOR', num(10))]
    const quiet = new Map([['a', facts('a', 'co', {}, { lastCommDate: NOW - 3_600_000 })]])
    expect(changedAnswers({ candidates: [candidate('r', ['a'], silent)], facts: quiet, states: new Map(), now: NOW, newUid })[0]?.holds).toBe(true)
    const traffic = new Map([['a', { lastComm: NOW, protocols: new Set(['MQTT']) }]])
    expect(changedAnswers({ candidates: [candidate('r', ['a'], silent)], facts: quiet, states: new Map(), now: NOW, traffic, newUid })[0]?.holds).toBe(false)
  })
})
