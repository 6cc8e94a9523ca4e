// AlertEvaluationRepository (storage/repositories/alert-evaluation.repository.ts, decisions 0032 and 0034) on each
// engine: the rules a batch's companies and data ids find (active ones, with the systems they are pinned to; through an
// index of rules that follows every write by the companies' versions), the
// facts and last values a system is evaluated on, and transitions written exactly once: one alert per change of
// answer, OPEN until the answer turns false for a stateful rule, CLOSED at once for a stateless one, and one alert
// for two transactions evaluating one rule for one system at once. PGlite always; PostgreSQL with TEST_DATABASE_URL
// (always under CI=true).
import { expect } from 'vitest'
import type { AlertCondition } from '../../core/domain/alert-rule.js'
import type { AlertAnswer, AlertCandidate } from '../../core/ports/alert-evaluation.js'
import type { Queryable } from '../../core/ports/store.js'
import { pinnedSystemsOf } from '../../core/domain/alert-targets.js'
import { dataIdsOf } from '../../core/domain/alert-conditions.js'
import { evaluateCandidates } from '../../core/services/alerts/alert-evaluate.js'
import { createRepositories } from '../../storage/repositories/index.js'
import { createAlertEvaluationRepository } from '../../storage/repositories/alert-evaluation.repository.js'
import { createAlertRulesIndex } from '../../storage/repositories/alert-rules-index.js'
import { createTestDb } from '../helpers/test-db.js'
import { EMBEDDED_RUN, TEST_DATABASE_URL } from '../helpers/env.js'
import { defaultRule } from '../helpers/alert-rules.js'
import { attr, cond, num, str, strs } from '../helpers/alert-facts.js'
import { insertMessage } from '../helpers/telemetry.js'
import { defineContract, newCompany, newSystem, uniq, type Repos } from './repositories/store.js'

// The one environment read of this file: whether this is a CI run (test/helpers/env.ts holds the server URL).
const CI = process.env.CI === 'true'

const HOT = [cond('GT', attr('DATA.temp'), num(40))]

/** Stores an active rule of the company as the rules service would (its data ids and pinned systems). */
async function ruleOf (repos: Repos, companyUid: string, conditions: AlertCondition[], opts: { active?: boolean, stateful?: boolean } = {}): Promise<string> {
  const uid = uniq('rule')
  const rule = defaultRule(uid, conditions, { active: opts.active ?? true, stateful: opts.stateful ?? true })
  const dataIds = dataIdsOf(conditions)
  expect(await repos.alertRules.insertWithin({ rule, companyUid, ownerUid: null, dataIds, periodic: dataIds.length === 0, systemUids: pinnedSystemsOf(conditions), at: 1 }, 1000)).toBe(true)
  return uid
}

const answer = (ruleUid: string, systemUid: string, holds: boolean): AlertAnswer =>
  ({ ruleUid, systemUid, holds, alertUid: uniq('alert'), attributes: holds ? [{ id: { name: 'DATA.temp' }, value: { valueNum: 45 } }] : [] })

interface AlertRow { uid: string, state: string, date: string, closed_date: string | null, notify_pending: boolean, company_uid: string, attributes: unknown }

async function alertsOf (q: Queryable, ruleUid: string): Promise<AlertRow[]> {
  return (await q.query<AlertRow>('SELECT uid, state, date, closed_date, notify_pending, company_uid, attributes FROM alerts WHERE rule_uid = $1 ORDER BY date, uid', [ruleUid])).rows
}

/** Resolves once `n` callers have arrived: two transactions both read before either writes. */
function barrier (n: number): () => Promise<void> {
  let arrived = 0
  let open: () => void = () => {}
  const opened = new Promise<void>((resolve) => { open = resolve })
  return async () => { if (++arrived >= n) open(); await opened }
}

const contract = defineContract('AlertEvaluationRepository', {
  'finds the active rules of the companies naming the data ids, with the ids they name and the systems they are pinned to': async ({ repos }) => {
    const [co, other] = [await newCompany(repos), await newCompany(repos)]
    const [a, b] = [await newSystem(repos, co), await newSystem(repos, co)]
    const hot = await ruleOf(repos, co, HOT)
    const pinned = await ruleOf(repos, co, [...HOT, cond('EQUALS', attr('system.id'), str(b))])
    const listed = await ruleOf(repos, co, [cond('IN', attr('system.id'), strs(b, a)), cond('LT', attr('DATA.volt'), num(11)), ...HOT])
    await ruleOf(repos, co, HOT, { active: false })
    await ruleOf(repos, co, [cond('GT', attr('DATA.rpm'), num(1))])
    const otherHot = await ruleOf(repos, other, HOT)
    const found = async (companies: string[], ids: string[], systems = [a, b]): Promise<Array<[string, string, string[], string[] | null]>> =>
      (await repos.alertEvaluation.candidates(companies, ids, systems)).map((m): [string, string, string[], string[] | null] => [m.ruleUid, m.companyUid, [...m.dataIds].sort(), m.pinned]).sort()
    expect(await found([co], ['temp', 'volt', 'none'])).toEqual([
      [hot, co, ['temp'], null], [pinned, co, ['temp'], [b]], [listed, co, ['temp', 'volt'], [a, b].sort()]].sort())
    expect(await found([co, other], ['volt'])).toEqual([[listed, co, ['volt'], [a, b].sort()]])
    expect(await found([other], ['temp'])).toEqual([[otherHot, other, ['temp'], null]])
    expect(await found(['none'], ['temp'])).toEqual([])
    expect(await repos.alertEvaluation.candidates([co], [], [a, b])).toEqual([])
    // A rule pinned to none of the batch's systems is not answered (a rule per device would send every batch all).
    expect(await found([co], ['temp'], [a])).toEqual([[hot, co, ['temp'], null], [listed, co, ['temp'], [a, b].sort()]].sort())
    expect(await found([co], ['temp'], ['elsewhere'])).toEqual([[hot, co, ['temp'], null]])
    // A rule pinned elsewhere by an update is found with its new system; unpinned, with none.
    const moved = defaultRule(pinned, [...HOT, cond('EQUALS', attr('system.id'), str(a))])
    await repos.alertRules.update({ rule: moved, companyUid: co, ownerUid: null, dataIds: ['temp'], periodic: false, systemUids: [a], at: 2 })
    expect((await found([co], ['temp'])).find((m) => m[0] === pinned)?.[3]).toEqual([a])
    // Found through its systems (alert_rule_systems): no longer with its old one alone, with its new one.
    expect((await found([co], ['temp'], [b])).map((m) => m[0])).not.toContain(pinned)
    expect((await found([co], ['temp'], [a])).map((m) => m[0])).toContain(pinned)
    await repos.alertRules.update({ rule: defaultRule(pinned, HOT), companyUid: co, ownerUid: null, dataIds: ['temp'], periodic: false, systemUids: null, at: 3 })
    expect((await found([co], ['temp'])).find((m) => m[0] === pinned)?.[3]).toBeNull()
    expect((await found([co], ['temp'], ['elsewhere'])).map((m) => m[0])).toContain(pinned)
    // A deleted rule's systems go with it.
    expect(await repos.alertRules.delete(co, listed)).toBe(true)
    expect((await found([co], ['temp', 'volt'], [a, b])).map((m) => m[0])).not.toContain(listed)
  },

  'an index shared by transactions follows every write of the rules, another process\'s too, and reads them only when they moved': async ({ repos, db }) => {
    const index = createAlertRulesIndex()
    const statements: string[] = []
    const counted: Queryable = { query: async (sql, params) => { statements.push(sql); return await db.query(sql, params) } }
    const lookup = async (co: string, systems: string[]): Promise<string[]> => {
      statements.length = 0
      return (await createAlertEvaluationRepository(counted, index).candidates([co], ['temp'], systems)).map((m) => m.ruleUid).sort()
    }
    const co = await newCompany(repos)
    const s = await newSystem(repos, co)
    const evaluation = createAlertEvaluationRepository(counted, index)
    // Nothing in memory before a lookup; then a company that never had a rule: version 0, its version read, nothing else.
    expect(evaluation.cached([co], ['temp'], [s])).toBeUndefined()
    expect(await lookup(co, [s])).toEqual([])
    expect(statements).toHaveLength(1)
    expect(evaluation.cached([co], ['temp'], [s])).toEqual({ matches: [], versions: new Map([[co, 0]]) })
    expect(await evaluation.versions([co, 'elsewhere'])).toEqual(new Map([[co, 0], ['elsewhere', 0]]))
    const hot = await ruleOf(repos, co, HOT)
    expect(await lookup(co, [s])).toEqual([hot])
    expect(statements).toHaveLength(2)
    // Unchanged: answered from memory after the version's one row; and from memory alone, with the version it assumes.
    expect(await lookup(co, [s])).toEqual([hot])
    expect(statements).toHaveLength(1)
    const held = evaluation.cached([co], ['temp', 'volt'], [s])
    expect(held?.matches.map((m) => m.ruleUid)).toEqual([hot])
    expect(held?.versions.get(co)).toBe((await evaluation.versions([co])).get(co))
    expect(held?.versions.get(co)).toBeGreaterThan(0)
    const pinned = await ruleOf(repos, co, [...HOT, cond('EQUALS', attr('system.id'), str(s))])
    expect(await lookup(co, [s])).toEqual([hot, pinned].sort())
    expect(await lookup(co, ['elsewhere'])).toEqual([hot])
    // Deactivated, activated, deleted: each seen by the next lookup.
    await repos.alertRules.update({ rule: defaultRule(hot, HOT, { active: false }), companyUid: co, ownerUid: null, dataIds: ['temp'], periodic: false, systemUids: null, at: 2 })
    expect(await lookup(co, [s])).toEqual([pinned])
    await repos.alertRules.update({ rule: defaultRule(hot, HOT), companyUid: co, ownerUid: null, dataIds: ['temp'], periodic: false, systemUids: null, at: 3 })
    expect(await lookup(co, [s])).toEqual([hot, pinned].sort())
    expect(await repos.alertRules.delete(co, pinned)).toBe(true)
    expect(await lookup(co, [s])).toEqual([hot])
    // A write rolled back moves nothing; a write in SQL alone (no repository) moves the version all the same.
    await db.transaction(async (tx) => { await tx.query('DELETE FROM alert_rules WHERE uid = $1', [hot]); throw new Error('rolled back') }).catch(() => {})
    expect(await lookup(co, [s])).toEqual([hot])
    expect(statements).toHaveLength(1)
    const before = (await evaluation.versions([co])).get(co)
    await db.query('DELETE FROM alert_rule_data_ids WHERE rule_uid = $1', [hot])
    // What memory holds is of the version before: the caller's check of versions() tells it moved.
    expect((await evaluation.versions([co])).get(co)).not.toBe(before)
    expect(evaluation.cached([co], ['temp'], [s])?.versions.get(co)).toBe(before)
    expect(await lookup(co, [s])).toEqual([])
  },

  'reads a system\'s fields and the latest point of each data id asked, by time': async ({ repos, db }) => {
    const co = await newCompany(repos)
    const s = await newSystem(repos, co, { name: 'Pump 7', labels: ['pilot'], lifeCycleState: 'ACTIVE' })
    await insertMessage(db, s, { ts: 2000, protocol: 'REST', points: [{ dataId: 'temp', ts: 2000, value: 45.5 }, { dataId: 'on', ts: 2000, value: true }] })
    await insertMessage(db, s, { ts: 1000, protocol: 'MQTT', points: [{ dataId: 'temp', ts: 1000, value: 10 }, { dataId: 'label', ts: 1000, value: 'x' }] })
    await repos.telemetry.updateSystems([{ uid: s, data: { latitude: 45.1, longitude: 'bad' }, dataTs: {}, lastCommDate: 3000 }])
    const facts = await repos.alertEvaluation.facts(new Map([[s, ['temp', 'on', 'label', 'none']], ['gone', ['temp']]]))
    expect([...facts.keys()]).toEqual([s])
    const f = facts.get(s)
    expect(f?.companyUid).toBe(co)
    expect(f?.system).toEqual({ uid: s, name: 'Pump 7', commStatus: 'OK', lifeCycleState: 'ACTIVE', labels: ['pilot'], commProtocols: ['REST'], lastCommDate: 3000, latitude: 45.1, longitude: null })
    expect(Object.fromEntries(f?.data ?? [])).toEqual({ temp: 45.5, on: true, label: 'x' })
    const fresh = await newSystem(repos, co)
    expect((await repos.alertEvaluation.facts(new Map([[fresh, []]]))).get(fresh)?.system).toMatchObject({ commStatus: 'UNDEFINED', lastCommDate: null, commProtocols: [] })
    // A system whose rules read no field: its last values and the company given, its row not read (its name stays '').
    const plain = await newSystem(repos, co, { name: 'Pump 8', labels: ['x'] })
    await insertMessage(db, plain, { ts: 500, points: [{ dataId: 'temp', ts: 500, value: 7 }] })
    const bare = await repos.alertEvaluation.facts(new Map([[s, ['temp']], [plain, ['temp']]]), new Map([[plain, co], ['elsewhere', co]]))
    expect([...bare.keys()].sort()).toEqual([s, plain].sort())
    expect(bare.get(plain)).toMatchObject({ companyUid: co, system: { uid: plain, name: '', labels: [] } })
    expect(Object.fromEntries(bare.get(plain)?.data ?? [])).toEqual({ temp: 7 })
    expect(bare.get(s)?.system.name).toBe('Pump 7')
  },

  'takes a pair the batch carries from the batch or the derived last value, whichever is newer, without reading its points': async ({ repos, db }) => {
    const co = await newCompany(repos)
    const s = await newSystem(repos, co)
    // The points say 99 for every data id; the derived last values are what the batch is compared with.
    await insertMessage(db, s, { ts: 9000, points: ['newer', 'older', 'tie', 'none', 'other'].map((dataId) => ({ dataId, ts: 9000, value: 99 })) })
    // The derived state behind the points (it follows them within a second).
    await db.query('DELETE FROM data_last WHERE system_uid = $1', [s])
    await repos.telemetry.upsertLast([
      { systemUid: s, dataId: 'newer', ts: 1000, value: 1 },
      { systemUid: s, dataId: 'older', ts: 3000, value: 'derived' },
      { systemUid: s, dataId: 'tie', ts: 2000, value: 3 },
      { systemUid: s, dataId: 'other', ts: 1000, value: 4 }
    ])
    const carried = new Map([[s, new Map([
      ['newer', { ts: 2000, value: 10 }], ['older', { ts: 2000, value: 20 }], ['tie', { ts: 2000, value: 30 }], ['none', { ts: 2000, value: true }]
    ])]])
    const facts = await repos.alertEvaluation.facts(new Map([[s, ['newer', 'older', 'tie', 'none', 'other']]]), new Map([[s, co]]), carried)
    // A pair the batch does not carry is read from the points, by time, as without `carried`.
    expect(Object.fromEntries(facts.get(s)?.data ?? [])).toEqual({ newer: 10, older: 'derived', tie: 30, none: true, other: 99 })
  },

  'raises one OPEN alert when a stateful rule becomes true, closes it when false, and raises again on the next change': async ({ repos, db }) => {
    const co = await newCompany(repos)
    const s = await newSystem(repos, co)
    const r = await ruleOf(repos, co, HOT)
    const first = answer(r, s, true)
    const raised = await repos.alertEvaluation.transitions([first], 1000)
    expect(raised).toEqual({ raised: [first.alertUid], closed: [] })
    // The same answer again (another batch, a retried one): nothing.
    expect(await repos.alertEvaluation.transitions([answer(r, s, true)], 1500)).toEqual({ raised: [], closed: [] })
    expect(await repos.alertEvaluation.states([{ ruleUid: r, systemUid: s }, { ruleUid: r, systemUid: 'x' }])).toEqual(new Map([[`${r} ${s}`, true]]))
    expect(await repos.alertEvaluation.transitions([answer(r, s, false)], 2000)).toEqual({ raised: [], closed: [first.alertUid] })
    const again = answer(r, s, true)
    expect((await repos.alertEvaluation.transitions([again], 3000)).raised).toEqual([again.alertUid])
    const rows = await alertsOf(db, r)
    expect(rows.map((a) => [a.uid, a.state, Number(a.date), a.closed_date === null ? null : Number(a.closed_date), a.notify_pending, a.company_uid])).toEqual([
      [first.alertUid, 'CLOSED', 1000, 2000, true, co], [again.alertUid, 'OPEN', 3000, null, true, co]])
    expect(rows[0]?.attributes).toEqual([{ id: { name: 'DATA.temp' }, value: { valueNum: 45 } }])
  },

  'a stateless rule\'s alert is CLOSED when raised, one per becoming true; a first false answer is stored and raises nothing': async ({ repos, db }) => {
    const co = await newCompany(repos)
    const s = await newSystem(repos, co)
    const r = await ruleOf(repos, co, HOT, { stateful: false })
    expect(await repos.alertEvaluation.transitions([answer(r, s, false)], 500)).toEqual({ raised: [], closed: [] })
    expect(await repos.alertEvaluation.states([{ ruleUid: r, systemUid: s }])).toEqual(new Map([[`${r} ${s}`, false]]))
    for (const [holds, at] of [[true, 1000], [true, 1100], [false, 1200], [true, 1300]] as const) await repos.alertEvaluation.transitions([answer(r, s, holds)], at)
    expect((await alertsOf(db, r)).map((a) => [a.state, Number(a.date), Number(a.closed_date)])).toEqual([['CLOSED', 1000, 1000], ['CLOSED', 1300, 1300]])
  },

  'skips a rule or system deleted meanwhile, and a system of another company than the rule\'s': async ({ repos, db }) => {
    const [co, other] = [await newCompany(repos), await newCompany(repos)]
    const [s, theirs] = [await newSystem(repos, co), await newSystem(repos, other)]
    const r = await ruleOf(repos, co, HOT)
    expect(await repos.alertEvaluation.transitions([answer('deleted-rule', s, true), answer(r, 'deleted-system', true), answer(r, theirs, true)], 1000))
      .toEqual({ raised: [], closed: [] })
    expect(await alertsOf(db, r)).toEqual([])
  },

  'two transactions evaluating one rule for one system at once raise one alert': async ({ repos, db }) => {
    const co = await newCompany(repos)
    const s = await newSystem(repos, co)
    await insertMessage(db, s, { ts: 1000, points: [{ dataId: 'temp', ts: 1000, value: 50 }] })
    const r = await ruleOf(repos, co, HOT)
    const [match] = await repos.alertEvaluation.candidates([co], ['temp'], [s])
    if (match === undefined) throw new Error('no candidate')
    const candidate: AlertCandidate = { ...match, systemUids: [s] }
    // PostgreSQL: both read the stored answer (none) before either writes; PGlite runs one transaction at a time.
    const bothRead = db.kind === 'postgres' ? barrier(2) : async () => {}
    const evaluate = async (): Promise<string[]> => await db.transaction(async (tx) => {
      const own = createRepositories(tx).alertEvaluation
      const repo = { ...own, states: async (pairs: Parameters<typeof own.states>[0]) => { const st = await own.states(pairs); await bothRead(); return st } }
      return (await evaluateCandidates(repo, [candidate], 5000)).raised
    })
    const [one, two] = await Promise.all([evaluate(), evaluate()])
    expect([...one, ...two]).toHaveLength(1)
    expect((await alertsOf(db, r)).map((a) => a.uid)).toEqual([...one, ...two])
  },

  'pages a company\'s systems newest first, and lists the alerts pending past a time, oldest first': async ({ repos }) => {
    const co = await newCompany(repos)
    const made = [await newSystem(repos, co, { creationDate: 3 }), await newSystem(repos, co, { creationDate: 2 }), await newSystem(repos, co, { creationDate: 2 })]
    await newSystem(repos, await newCompany(repos))
    const first = await repos.alertEvaluation.systemsPage(co, null, 2)
    const rest = await repos.alertEvaluation.systemsPage(co, first[1] ?? null, 2)
    expect([...first, ...rest].map((c) => c.uid)).toEqual([made[0], ...[made[1], made[2]].sort()])
    expect(await repos.alertEvaluation.systemsPage(co, rest[0] ?? null, 2)).toEqual([])
    const r = await ruleOf(repos, co, HOT, { stateful: false })
    const early = answer(r, made[0] ?? '', true)
    await repos.alertEvaluation.transitions([early], 100)
    const late = answer(r, made[1] ?? '', true)
    await repos.alertEvaluation.transitions([late], 200)
    const pending = await repos.alertEvaluation.pendingNotifications(150, 10)
    expect(pending).toContain(early.alertUid)
    expect(pending).not.toContain(late.alertUid)
  }
})

if (EMBEDDED_RUN) contract('PGlite', async () => await createTestDb('pglite'))
if (TEST_DATABASE_URL !== undefined || CI) contract('PostgreSQL', async () => await createTestDb('postgres'))
