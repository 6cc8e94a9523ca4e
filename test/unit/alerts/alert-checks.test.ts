// The periodic side of alert rules (core/services/alerts/alert-checks.service.ts, bin/alert-jobs.ts): alerts.check
// evaluates each company's periodic rules on its systems a page per transaction (a pinned rule on its systems only)
// and passes the raised alerts on; alerts.sweep passes on the alerts pending past the grace period, and does nothing
// where nobody takes them. Fakes of the store's port: what each transaction was asked.
import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { createAlertChecks, PENDING_GRACE_MS } from '../../../core/services/alerts/alert-checks.service.js'
import { alertJobs } from '../../../bin/alert-jobs.js'
import type { AlertAnswer, AlertEvaluationRepository, SystemCursor, SystemFacts } from '../../../core/ports/alert-evaluation.js'
import type { StoredAlertRule } from '../../../core/ports/alert-rules.js'
import type { Repositories } from '../../../core/ports/repositories.js'
import type { UnitOfWork } from '../../../core/ports/store.js'
import { defaultRule } from '../../helpers/alert-rules.js'
import { attr, cond, factsOf, NOW, str } from '../../helpers/alert-facts.js'

const log = pino({ level: 'silent' })

const stored = (uid: string, companyUid: string, conditions = [cond('EQUALS', attr('system.commStatus'), str('OK'))]): StoredAlertRule =>
  ({ rule: defaultRule(uid, conditions), companyUid, ownerUid: null, createdAt: 1, updatedAt: 1 })

/** A store of the systems given (uid → company), each commStatus OK, no stored answer. */
function fakeStore (systems: Record<string, string>, rules: StoredAlertRule[], pending: string[] = []) {
  const written: AlertAnswer[][] = []
  const pendingAsked: number[] = []
  const cursors = Object.keys(systems).sort().map((uid, i): SystemCursor => ({ uid, creationDate: 100 - i }))
  const alertEvaluation: AlertEvaluationRepository = {
    candidates: async () => [],
    cached: () => undefined,
    versions: async () => new Map(),
    async facts (wanted) {
      return new Map([...wanted.keys()].filter((uid) => systems[uid] !== undefined).map((uid): [string, SystemFacts] => {
        const f = factsOf({ system: { uid } })
        return [uid, { companyUid: systems[uid] ?? '', system: f.system, data: f.data }]
      }))
    },
    states: async () => new Map(),
    async transitions (answers) {
      written.push([...answers])
      return { raised: answers.filter((a) => a.holds).map((a) => a.alertUid), closed: [] }
    },
    async systemsPage (companyUid, after, limit) {
      const mine = cursors.filter((c) => systems[c.uid] === companyUid)
      const from = after === null ? 0 : mine.findIndex((c) => c.uid === after.uid) + 1
      return mine.slice(from, from + limit)
    },
    async pendingNotifications (raisedBy) { pendingAsked.push(raisedBy); return pending }
  }
  const repos = { alertEvaluation, alertRules: { rulesWithoutData: async () => rules } } as unknown as Repositories
  const inTransaction: UnitOfWork = async (fn) => await fn(repos)
  return { repos, inTransaction, written, pendingAsked }
}

describe('alerts.check', () => {
  it('evaluates each rule on its company\'s systems a page per transaction, a pinned rule on its systems, and passes the raised alerts on', async () => {
    const systems = { a1: 'A', a2: 'A', a3: 'A', b1: 'B' }
    const pinned = stored('pinned', 'A', [cond('EQUALS', attr('system.id'), str('a2')), cond('EQUALS', attr('system.commStatus'), str('OK'))])
    const store = fakeStore(systems, [stored('everywhere', 'A'), pinned, stored('theirs', 'B')])
    const passed: string[][] = []
    const checks = createAlertChecks({ ...store, clock: { now: () => NOW }, log, pageSize: 2, onAlerts: async (uids) => { passed.push([...uids]) } })
    expect(await checks.check()).toEqual({ raised: 5, closed: 0 })
    const pairs = store.written.map((t) => t.map((a) => `${a.ruleUid}:${a.systemUid}`).sort())
    expect(pairs).toEqual([['pinned:a2'], ['everywhere:a1', 'everywhere:a2'], ['everywhere:a3'], ['theirs:b1']])
    expect(passed.flat()).toEqual(store.written.flat().map((a) => a.alertUid))
  })

  it('runs without anybody to pass the alerts to', async () => {
    const store = fakeStore({ a1: 'A' }, [stored('r', 'A')])
    expect(await createAlertChecks({ ...store, clock: { now: () => NOW }, log }).check()).toEqual({ raised: 1, closed: 0 })
  })
})

describe('alerts.sweep', () => {
  it('passes on the alerts pending since before the grace period', async () => {
    const store = fakeStore({}, [], ['old-1', 'old-2'])
    const passed: string[] = []
    const checks = createAlertChecks({ ...store, clock: { now: () => NOW }, log, onAlerts: async (uids) => { passed.push(...uids) } })
    expect(await checks.sweep()).toBe(2)
    expect(store.pendingAsked).toEqual([NOW - PENDING_GRACE_MS])
    expect(passed).toEqual(['old-1', 'old-2'])
  })

  it('reads nothing where nobody takes the alerts', async () => {
    const store = fakeStore({}, [], ['old-1'])
    expect(await createAlertChecks({ ...store, clock: { now: () => NOW }, log }).sweep()).toBe(0)
    expect(store.pendingAsked).toEqual([])
  })
})

describe('the alert jobs', () => {
  it('run alerts.check every ALERT_CHECK_S seconds and alerts.sweep every 30 s', async () => {
    const calls: string[] = []
    const jobs = alertJobs({ ALERT_CHECK_S: 90 }, { check: async () => { calls.push('check'); return { raised: 0, closed: 0 } }, sweep: async () => { calls.push('sweep'); return 0 } })
    expect(Object.fromEntries(Object.entries(jobs).map(([name, j]) => [name, j.everyMs]))).toEqual({ 'alerts.check': 90_000, 'alerts.sweep': 30_000 })
    await jobs['alerts.check']?.run()
    await jobs['alerts.sweep']?.run()
    expect(calls).toEqual(['check', 'sweep'])
  })
})
