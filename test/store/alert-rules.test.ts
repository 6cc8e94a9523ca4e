// AlertRulesRepository (storage/repositories/alert-rules.repository.ts) on each engine: rules stored whole and read back
// per company; the company limit held by the insert itself; an update replacing the data ids a point finds its rules
// by (decision 0031); the periodic job's rules; hooks going with their rule. PGlite always; PostgreSQL with
// TEST_DATABASE_URL (always under CI=true).
import { expect } from 'vitest'
import type { AlertRule } from '../../core/domain/alert-rule.js'
import type { AlertRuleWrite } from '../../core/ports/alert-rules.js'
import { createTestDb } from '../helpers/test-db.js'
import { EMBEDDED_RUN, TEST_DATABASE_URL } from '../helpers/env.js'
import { defineContract, newCompany, newSystem, uniq, type Repos } from './repositories/store.js'

// The one environment read of this file: whether this is a CI run (test/helpers/env.ts holds the server URL).
const CI = process.env.CI === 'true'

function rule (patch: Partial<AlertRule> = {}): AlertRule {
  const uid = uniq('rule')
  return {
    id: uid,
    uid,
    targetType: 'SYSTEM',
    name: 'Hot',
    message: 'too hot',
    stateful: true,
    active: true,
    emails: ['ops@example.com'],
    notifMode: null,
    conditions: [{ operator: 'GT', operands: [{ attributeId: { name: 'DATA.temp' } }, { valueNum: 40 }] }],
    metadata: { team: 'ops', n: 1 },
    readOnly: false,
    actions: [{ operation: 'REBOOT', cooldownMinutes: 10, parameters: {} }],
    maxOperationsPerHour: 60,
    ...patch
  }
}

const write = (companyUid: string, r: AlertRule, dataIds: string[], patch: Partial<AlertRuleWrite> = {}): AlertRuleWrite =>
  ({ rule: r, companyUid, ownerUid: null, dataIds, periodic: dataIds.length === 0, systemUids: null, at: 100, ...patch })

async function inserted (repos: Repos, w: AlertRuleWrite): Promise<string> {
  expect(await repos.alertRules.insertWithin(w, 1000)).toBe(true)
  return w.rule.uid
}

const uids = (rules: Array<{ rule: AlertRule }>): string[] => rules.map((r) => r.rule.uid).sort()

const contract = defineContract('AlertRulesRepository', {
  'stores a rule whole and reads it back in its company only, oldest first': async ({ repos }) => {
    const [a, b] = [await newCompany(repos), await newCompany(repos)]
    const r1 = rule({ metadata: null, message: null, notifMode: 'ALWAYS' })
    const r2 = rule({ name: 'Second' })
    await inserted(repos, write(a, r2, ['temp'], { at: 200 }))
    await inserted(repos, write(a, r1, ['temp'], { at: 100 }))
    expect(await repos.alertRules.get(a, r1.uid)).toEqual({ rule: r1, companyUid: a, ownerUid: null, createdAt: 100, updatedAt: 100 })
    expect(await repos.alertRules.get(b, r1.uid)).toBeUndefined()
    expect(await repos.alertRules.get(a, 'nope')).toBeUndefined()
    expect((await repos.alertRules.list(a)).map((s) => s.rule.uid)).toEqual([r1.uid, r2.uid])
    expect(await repos.alertRules.list(b)).toEqual([])
    expect(await repos.alertRules.count(a)).toBe(2)
    expect(await repos.alertRules.count(b)).toBe(0)
  },
  'refuses a rule over the company\'s limit, in the insert itself': async ({ repos }) => {
    const co = await newCompany(repos)
    expect(await repos.alertRules.insertWithin(write(co, rule(), ['x']), 2)).toBe(true)
    expect(await repos.alertRules.insertWithin(write(co, rule(), ['x']), 2)).toBe(true)
    const third = rule()
    expect(await repos.alertRules.insertWithin(write(co, third, ['x']), 2)).toBe(false)
    expect(await repos.alertRules.get(co, third.uid)).toBeUndefined()
    expect(await repos.alertRules.count(co)).toBe(2)
    expect(await repos.alertRules.rulesForDataIds(co, ['x'])).toHaveLength(2)
  },
  'finds the ACTIVE rules naming a data id, each once; an update replaces the data ids': async ({ repos }) => {
    const [co, other] = [await newCompany(repos), await newCompany(repos)]
    const both = await inserted(repos, write(co, rule(), ['temp', 'hum']))
    const hum = await inserted(repos, write(co, rule(), ['hum']))
    const off = await inserted(repos, write(co, rule({ active: false }), ['temp']))
    await inserted(repos, write(other, rule(), ['temp']))
    expect(uids(await repos.alertRules.rulesForDataIds(co, ['temp', 'hum']))).toEqual([both, hum].sort())
    expect(uids(await repos.alertRules.rulesForDataIds(co, ['temp']))).toEqual([both])
    expect(await repos.alertRules.rulesForDataIds(co, [])).toEqual([])
    const changed = rule({ uid: hum, id: hum, name: 'Now on temp', active: true })
    expect(await repos.alertRules.update(write(co, changed, ['temp', 'volt'], { at: 500, ownerUid: 'ignored' }))).toBe(true)
    expect(uids(await repos.alertRules.rulesForDataIds(co, ['hum']))).toEqual([both])
    expect(uids(await repos.alertRules.rulesForDataIds(co, ['volt']))).toEqual([hum])
    expect(await repos.alertRules.get(co, hum)).toEqual({ rule: changed, companyUid: co, ownerUid: null, createdAt: 100, updatedAt: 500 })
    // Reactivated, the inactive rule is found again; another company's update changes nothing.
    expect(await repos.alertRules.update(write(co, rule({ uid: off, id: off }), ['temp']))).toBe(true)
    expect(uids(await repos.alertRules.rulesForDataIds(co, ['temp']))).toEqual([both, hum, off].sort())
    expect(await repos.alertRules.update(write(other, rule({ uid: both, id: both, name: 'stolen' }), []))).toBe(false)
    expect((await repos.alertRules.get(co, both))?.rule.name).toBe('Hot')
  },
  'answers the ACTIVE periodic rules, of one company or all': async ({ repos }) => {
    const [a, b] = [await newCompany(repos), await newCompany(repos)]
    const sysOnly = await inserted(repos, write(a, rule({ conditions: [{ operator: 'EQUALS', operands: [{ attributeId: { name: 'system.commStatus' } }, { valueStr: 'ERROR' }] }] }), []))
    const silent = await inserted(repos, write(a, rule(), ['temp'], { periodic: true }))
    await inserted(repos, write(a, rule({ active: false }), []))
    await inserted(repos, write(a, rule(), ['temp']))
    const inB = await inserted(repos, write(b, rule(), []))
    expect(uids(await repos.alertRules.rulesWithoutData(a))).toEqual([silent, sysOnly].sort())
    const all = uids(await repos.alertRules.rulesWithoutData())
    expect(all).toEqual(expect.arrayContaining([silent, sysOnly, inB]))
  },
  'keeps a rule\'s hooks oldest first and deletes them with it; deletes only the company\'s rule': async ({ db, repos }) => {
    const [co, other] = [await newCompany(repos), await newCompany(repos)]
    const r = await inserted(repos, write(co, rule(), ['temp']))
    await repos.alertRules.insertHook({ uid: uniq('h2'), ruleUid: r, callback: 'https://b.example/x', createdAt: 20 })
    const h1 = { uid: uniq('h1'), ruleUid: r, callback: 'https://a.example/x', createdAt: 10 }
    await repos.alertRules.insertHook(h1)
    expect((await repos.alertRules.hooks(r)).map((h) => h.callback)).toEqual(['https://a.example/x', 'https://b.example/x'])
    expect(await repos.alertRules.deleteHook('other-rule', h1.uid)).toBe(false)
    expect(await repos.alertRules.deleteHook(r, h1.uid)).toBe(true)
    expect(await repos.alertRules.hooks(r)).toHaveLength(1)
    expect(await repos.alertRules.delete(other, r)).toBe(false)
    const s = await newSystem(repos, co)
    await db.query('INSERT INTO alert_states (rule_uid, system_uid, state, changed_at) VALUES ($1, $2, true, 1)', [r, s])
    expect(await repos.alertRules.delete(co, r)).toBe(true)
    expect(await repos.alertRules.get(co, r)).toBeUndefined()
    expect(await repos.alertRules.hooks(r)).toEqual([])
    expect(await repos.alertRules.rulesForDataIds(co, ['temp'])).toEqual([])
    const left = await db.query<{ n: number }>('SELECT (SELECT count(*) FROM alert_rule_data_ids WHERE rule_uid = $1) + (SELECT count(*) FROM alert_states WHERE rule_uid = $1) AS n', [r])
    expect(Number(left.rows[0]?.n)).toBe(0)
    expect(await repos.alertRules.delete(co, r)).toBe(false)
  }
})

if (EMBEDDED_RUN) contract('PGlite', async () => await createTestDb('pglite'))
if (TEST_DATABASE_URL !== undefined || CI) contract('PostgreSQL', async () => await createTestDb('postgres'))
