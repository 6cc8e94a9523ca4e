// AlertsRepository (storage/repositories/alerts.repository.ts) on each engine: a company's alerts by every filter, newest
// first and paged, with their rule's and system's names; the states of its rules; an acknowledgement that keeps the
// first acknowledger; nothing of another company, ever. The rows are written here as the evaluation writes them
// (migration 0038). PGlite always; PostgreSQL with TEST_DATABASE_URL (always under CI=true).
import { expect } from 'vitest'
import type { Db } from '../../core/ports/store.js'
import { createTestDb } from '../helpers/test-db.js'
import { defaultRule } from '../helpers/alert-rules.js'
import { EMBEDDED_RUN, TEST_DATABASE_URL } from '../helpers/env.js'
import { defineContract, newCompany, newSystem, uniq, type Repos } from './repositories/store.js'

// The one environment read of this file: whether this is a CI run (test/helpers/env.ts holds the server URL).
const CI = process.env.CI === 'true'
const PAGE = { offset: 0, size: 100 }

async function newRule (repos: Repos, companyUid: string, name = 'Hot'): Promise<string> {
  const uid = uniq('rule')
  const rule = defaultRule(uid, [{ operator: 'GT', operands: [{ attributeId: { name: 'DATA.temp' } }, { valueNum: 40 }] }], { name, message: `${name}!` })
  // systemUids: what the evaluation finds a rule by besides its data ids (not read here: any system of the company).
  const write = { rule, companyUid, ownerUid: null, dataIds: ['temp'], periodic: false, systemUids: null, at: 1 }
  expect(await repos.alertRules.insertWithin(write, 1000)).toBe(true)
  return uid
}

interface AlertRow { rule: string, system: string, company: string, date: number, closed?: number, ack?: boolean }

async function insertAlert (db: Db, a: AlertRow): Promise<string> {
  const uid = uniq('alert')
  await db.query(`INSERT INTO alerts (uid, rule_uid, system_uid, company_uid, date, closed_date, state, acknowledged, attributes)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb)`, [uid, a.rule, a.system, a.company, a.date, a.closed ?? null,
    a.closed === undefined ? 'OPEN' : 'CLOSED', a.ack ?? false, JSON.stringify([{ id: { name: 'DATA.temp' }, value: { valueNum: a.date } }])])
  return uid
}

/** A company with two rules, two systems and five alerts at dates 100..500, and another company's alert. */
async function fleet ({ db, repos }: { db: Db, repos: Repos }) {
  const [co, other] = [await newCompany(repos), await newCompany(repos)]
  const [hot, cold] = [await newRule(repos, co, 'Hot'), await newRule(repos, co, 'Cold')]
  const [s1, s2] = [await newSystem(repos, co, { name: 'Pump 1' }), await newSystem(repos, co, { name: 'Pump 2' })]
  const a100 = await insertAlert(db, { rule: hot, system: s1, company: co, date: 100, closed: 150 })
  const a200 = await insertAlert(db, { rule: hot, system: s2, company: co, date: 200, ack: true })
  const a300 = await insertAlert(db, { rule: cold, system: s1, company: co, date: 300 })
  const a400 = await insertAlert(db, { rule: cold, system: s2, company: co, date: 400, closed: 450, ack: true })
  const a500 = await insertAlert(db, { rule: hot, system: s1, company: co, date: 500 })
  const otherRule = await newRule(repos, other)
  const otherSystem = await newSystem(repos, other)
  const foreign = await insertAlert(db, { rule: otherRule, system: otherSystem, company: other, date: 250 })
  return { co, other, hot, cold, s1, s2, a100, a200, a300, a400, a500, foreign, otherRule, otherSystem }
}

const uids = (alerts: Array<{ uid: string }>): string[] => alerts.map((a) => a.uid)

const contract = defineContract('AlertsRepository', {
  'answers the company\'s alerts newest first, with their rule and system, and nothing of another company': async (store) => {
    const f = await fleet(store)
    const all = await store.repos.alerts.find(f.co, {}, PAGE)
    expect(uids(all)).toEqual([f.a500, f.a400, f.a300, f.a200, f.a100])
    expect(all[4]).toEqual({
      uid: f.a100,
      rule: { uid: f.hot, name: 'Hot', message: 'Hot!' },
      target: { uid: f.s1, name: 'Pump 1' },
      date: 100,
      closedDate: 150,
      state: 'CLOSED',
      acknowledged: false,
      acknowledgedBy: null,
      attributes: [{ id: { name: 'DATA.temp' }, value: { valueNum: 100 } }]
    })
    expect(uids(await store.repos.alerts.find(f.other, {}, PAGE))).toEqual([f.foreign])
    // Naming another company's alert, rule or system finds nothing.
    expect(await store.repos.alerts.find(f.co, { alertIds: [f.foreign] }, PAGE)).toEqual([])
    expect(await store.repos.alerts.find(f.co, { ruleIds: [f.otherRule] }, PAGE)).toEqual([])
    expect(await store.repos.alerts.find(f.co, { targetIds: [f.otherSystem] }, PAGE)).toEqual([])
  },
  'filters by alert, rule, system, state, acknowledgement and dates (strictly after, strictly before), all together': async (store) => {
    const f = await fleet(store)
    const find = async (filter: Parameters<Repos['alerts']['find']>[1]) => uids(await store.repos.alerts.find(f.co, filter, PAGE))
    expect(await find({ alertIds: [f.a200, f.a400, 'nope'] })).toEqual([f.a400, f.a200])
    expect(await find({ ruleIds: [f.hot] })).toEqual([f.a500, f.a200, f.a100])
    expect(await find({ targetIds: [f.s2] })).toEqual([f.a400, f.a200])
    expect(await find({ ruleIds: [f.hot, f.cold], targetIds: [f.s1] })).toEqual([f.a500, f.a300, f.a100])
    expect(await find({ state: 'OPEN' })).toEqual([f.a500, f.a300, f.a200])
    expect(await find({ state: 'CLOSED' })).toEqual([f.a400, f.a100])
    expect(await find({ acknowledged: true })).toEqual([f.a400, f.a200])
    expect(await find({ acknowledged: false })).toEqual([f.a500, f.a300, f.a100])
    expect(await find({ dateAfter: 200, dateBefore: 500 })).toEqual([f.a400, f.a300])
    expect(await find({ dateAfter: 500 })).toEqual([])
    expect(await find({ ruleIds: [f.hot], state: 'OPEN', acknowledged: false, dateBefore: 1000 })).toEqual([f.a500])
    expect(await find({ ruleIds: [] })).toEqual([])
  },
  'pages the alerts: offset and size over the newest-first order': async (store) => {
    const f = await fleet(store)
    expect(uids(await store.repos.alerts.find(f.co, {}, { offset: 1, size: 2 }))).toEqual([f.a400, f.a300])
    expect(uids(await store.repos.alerts.find(f.co, {}, { offset: 4, size: 2 }))).toEqual([f.a100])
    expect(await store.repos.alerts.find(f.co, {}, { offset: 0, size: 0 })).toEqual([])
  },
  'acknowledges the company\'s alert once: the first acknowledger stays; another company\'s is not found': async (store) => {
    const f = await fleet(store)
    expect(await store.repos.alerts.acknowledge(f.co, f.a300, 'user-1')).toBe(true)
    expect(await store.repos.alerts.acknowledge(f.co, f.a300, 'user-2')).toBe(true)
    const [a] = await store.repos.alerts.find(f.co, { alertIds: [f.a300] }, PAGE)
    expect(a).toMatchObject({ acknowledged: true, acknowledgedBy: 'user-1', state: 'OPEN' })
    expect(await store.repos.alerts.acknowledge(f.co, f.foreign, 'user-1')).toBe(false)
    expect(await store.repos.alerts.acknowledge(f.co, 'nope', 'user-1')).toBe(false)
    expect((await store.repos.alerts.find(f.other, {}, PAGE))[0]).toMatchObject({ acknowledged: false, acknowledgedBy: null })
  },
  'answers the states of the company\'s rules, the latest change first, by rule and system': async (store) => {
    const f = await fleet(store)
    const state = async (rule: string, system: string, on: boolean, at: number): Promise<void> => {
      await store.db.query('INSERT INTO alert_states (rule_uid, system_uid, state, changed_at) VALUES ($1, $2, $3, $4)', [rule, system, on, at])
    }
    await state(f.hot, f.s1, true, 500)
    await state(f.hot, f.s2, false, 300)
    await state(f.cold, f.s1, true, 400)
    await state(f.otherRule, f.otherSystem, true, 600)
    const all = await store.repos.alerts.states(f.co, {}, PAGE)
    expect(all).toEqual([
      { rule: { uid: f.hot, name: 'Hot' }, target: { uid: f.s1, name: 'Pump 1' }, state: true, date: 500 },
      { rule: { uid: f.cold, name: 'Cold' }, target: { uid: f.s1, name: 'Pump 1' }, state: true, date: 400 },
      { rule: { uid: f.hot, name: 'Hot' }, target: { uid: f.s2, name: 'Pump 2' }, state: false, date: 300 }
    ])
    const pairs = async (filter: Parameters<Repos['alerts']['states']>[1]) =>
      (await store.repos.alerts.states(f.co, filter, PAGE)).map((s) => `${s.rule.name}/${s.target.name}`)
    expect(await pairs({ ruleIds: [f.hot] })).toEqual(['Hot/Pump 1', 'Hot/Pump 2'])
    expect(await pairs({ targetIds: [f.s1] })).toEqual(['Hot/Pump 1', 'Cold/Pump 1'])
    expect(await pairs({ ruleIds: [f.cold], targetIds: [f.s2] })).toEqual([])
    expect(await pairs({ ruleIds: [f.otherRule] })).toEqual([])
    expect((await store.repos.alerts.states(f.co, {}, { offset: 2, size: 5 })).map((s) => s.date)).toEqual([300])
    expect((await store.repos.alerts.states(f.other, {}, PAGE)).map((s) => s.rule.uid)).toEqual([f.otherRule])
  }
})

if (EMBEDDED_RUN) contract('PGlite', async () => await createTestDb('pglite'))
if (TEST_DATABASE_URL !== undefined || CI) contract('PostgreSQL', async () => await createTestDb('postgres'))
